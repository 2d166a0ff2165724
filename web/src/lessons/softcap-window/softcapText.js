// The softcapping and sliding-window lesson in words: the numbers of softcapWindowStep, and what an open real model
// (its spec: windows per layer, softcap) does. Pure: no DOM.

/** Gemma 2's published settings (gemma-2-2b's config.json), for the lesson's text. */
export const GEMMA2 = Object.freeze({ window: 4096, context: 8192, softcap: 50, finalSoftcap: 30 });

const fixed = (value, precision) => value.toFixed(precision);

/**
 * A capped value with the decimals it needs to show below c (0.9991 is 0.999, not 1.000, at c = 1); one that float32
 * rounded to ±c itself (tanh of a score far above c is 1 to float32's 7 digits) says so.
 */
function inside(value, c, precision) {
  if (Math.abs(value) >= c) return `${value.toFixed(precision)} (tanh rounds to ±1 in float32's 7 digits)`;
  let digits = precision;
  while (digits < 7 && Math.abs(Number(value.toFixed(digits))) >= c) digits++;
  return value.toFixed(digits);
}
const plural = (count, one, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** The window's part: what the sliding layer's queries see, the scores computed, and why Gemma 2 alternates. */
export function windowText(state, step) {
  const { n, precision } = state;
  const w = step.window;
  const last = step.labels[n - 1];
  const sees =
    w >= n
      ? `With w = ${w} and ${plural(n, 'token')}, every query's last ${w} keys are all the keys it has: the sliding layer equals the global one.`
      : `With w = ${w}, query i sees keys i − ${w - 1} to i, itself included: the sliding layer computes ${step.scores.sliding} scores where the global one computes ${step.scores.global} (n(n + 1)/2). “${last}” no longer sees its first ${plural(step.lost.count, 'key')}, which had ${fixed(step.lost.weight, precision)} of its weight in the global layer; softmax shares its weight among the ${w} keys left.`;
  return (
    `${sees} Gemma 2 alternates the two kinds: its even layers (0, 2, 4, …) slide over the last ${GEMMA2.window} tokens and its odd ` +
    `layers see all ${GEMMA2.context}. A sliding layer's work and KV cache stop growing after w tokens, and the global layers ` +
    'between them still carry every earlier token forward, so nothing is out of reach. Gemma 3 keeps one global layer in six.'
  );
}

/** The cap's part: the bound on the scores, the largest score before and after, and the sharpest row flattened. */
export function softcapText(state, step) {
  const { precision } = state;
  const c = step.softcap;
  const { largest, sharpest, labels } = step;
  const cell = `“${labels[largest.i]}” → “${labels[largest.j]}”, query ${largest.i} and key ${largest.j}`;
  const bound =
    `Capped at c = ${c}, each scaled score s becomes tanh(s / ${c})·${c}, inside (−${c}, ${c}): here the widest is ` +
    `${inside(step.widest, c, precision)}. The largest scaled score, ${fixed(largest.value, precision)} (${cell}), becomes ` +
    `${inside(largest.capped, c, precision)}. Near 0, tanh(x) ≈ x: small scores barely move and large ones are squeezed.`;
  const sharp = sharpest
    ? ` The sharpest row, “${labels[sharpest.i]}”, gave ${fixed(sharpest.top, precision)} of its weight to “${labels[sharpest.j]}”; capped, it gives ${fixed(sharpest.cappedTop, precision)}.`
    : '';
  return (
    `${bound}${sharp} Gemma 2 caps its attention scores at ${GEMMA2.softcap} and its logits at ${GEMMA2.finalSoftcap}: ` +
    'however large q and k grow in training, no score can leave (−c, c), so no softmax row turns one-hot (with ' +
    'vanishing gradients) and no score overflows in 16-bit numbers.'
  );
}

/** Layers as a short list: "0, 2, 4, …, 24" past `max` of them. */
function layerList(layers, max = 8) {
  if (layers.length <= max) return layers.join(', ');
  return `${layers.slice(0, max - 1).join(', ')}, …, ${layers[layers.length - 1]}`;
}

/**
 * What the open real model does (model.spec: windows per layer, 0 for a global layer; softcap, 0 for none), or null
 * when no model is open. Layers count from 0.
 * @param {{ spec: { windows: number[], softcap: number, numLayers: number }, name: string } | null} model
 */
export function realModelText(model) {
  if (!model) return null;
  const { windows, softcap, numLayers } = model.spec;
  const sliding = windows.flatMap((w, l) => (w > 0 ? [l] : []));
  const global = windows.flatMap((w, l) => (w > 0 ? [] : [l]));
  const sizes = [...new Set(sliding.map((l) => windows[l]))];
  const slides =
    sliding.length === 0
      ? `none of its ${numLayers} layers slides: each sees every earlier token`
      : `layers ${layerList(sliding)} slide (w = ${sizes.join(' or ')}) and layers ${global.length ? layerList(global) : 'none'} are global, of ${numLayers}`;
  const caps =
    softcap > 0 ? `its attention scores are capped at c = ${softcap}` : 'its attention scores are not capped';
  return `The open model, ${model.name}: ${slides}; ${caps}.`;
}

/**
 * The open model's layer pair to show: its first sliding layer and the first global layer after it (else before it),
 * with head 0's weights of each from a run's attentions ([H, n, n] per layer; null for a layer not run). Null when
 * the model has no sliding layer or no global one, or the run lacks either layer.
 * @param {{ windows: number[] }} spec
 * @param {({ data: Float32Array, shape: number[] } | null)[]} attentions
 * @returns {{ sliding: { layer: number, window: number, data: Float32Array }, global: { layer: number, data:
 *   Float32Array }, n: number } | null}
 */
export function modelPair(spec, attentions) {
  const slidingLayer = spec.windows.findIndex((w) => w > 0);
  if (slidingLayer < 0 || !attentions) return null;
  const globals = spec.windows.flatMap((w, l) => (w > 0 ? [] : [l]));
  const globalLayer = globals.find((l) => l > slidingLayer) ?? globals[0];
  if (globalLayer === undefined || !attentions[slidingLayer] || !attentions[globalLayer]) return null;
  const head0 = (tensor) => {
    const [, n] = tensor.shape;
    return tensor.data.subarray(0, n * n);
  };
  return {
    n: attentions[slidingLayer].shape[1],
    sliding: { layer: slidingLayer, window: spec.windows[slidingLayer], data: head0(attentions[slidingLayer]) },
    global: { layer: globalLayer, data: head0(attentions[globalLayer]) },
  };
}
