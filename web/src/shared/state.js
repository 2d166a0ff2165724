// The page's whole state, its defaults and its limits. Its encoding in the URL hash (a permalink) is link.js's.
import { INPUT_NAMES, resizeMask, resizeOverride } from './matrices.js';

/**
 * What the page accepts. Heads sit side by side in the weight matrices, so numHeads·dK and numHeads·dV
 * are limited too.
 */
export const LIMITS = Object.freeze({
  n: 256,
  dModel: 1024,
  dK: 128,
  dV: 128,
  numHeads: 16,
  headsWidth: 1024,
  precision: 7,
  temperatureMin: 0.05,
  temperatureMax: 5,
  sentenceChars: 2000,
  hashChars: 200_000,
  // The largest magnitude a number may have, typed, pasted or read from a link.
  typed: 1e6,
});

/** The names of the sizes, as the page writes them. */
export const SIZE_NAMES = { n: 'n', dModel: 'd_model', dK: 'd_k', dV: 'd_v', numHeads: 'heads' };

/** @typedef {object} State  the page's whole state; its fields are typed and documented in state-types.d.ts */

/** The cross-attention lesson's second sentence, until one is typed: the default sentence in French. */
export const DEFAULT_SOURCE = 'le temps vole comme une flèche';

/** The RoPE lesson's choices (lessons/rope/ropeView.js names them): theta (rope_theta), pairing style, shift. */
export const ROPE = Object.freeze({
  thetas: Object.freeze([10, 100, 1000, 10000, 500000, 1000000]),
  styles: Object.freeze(['half', 'interleaved']),
  maxShift: 1000,
  defaults: Object.freeze({ ropeTheta: 10000, ropeStyle: 'half', ropeShift: 3 }),
});

/**
 * The softcapping and sliding-window lesson's settings (lessons/softcap-window/): the window w of the sliding layer
 * (keys it sees, itself included) and the cap c (scores become tanh(s / c)·c). Gemma 2 slides 4096 tokens and caps
 * at 50; the lesson's sentence is a few tokens and its scores a few units, so its defaults are small.
 */
export const SLIDING = Object.freeze({
  maxWindow: LIMITS.n,
  minSoftcap: 0.5,
  maxSoftcap: 20,
  softcapStep: 0.5,
  defaults: Object.freeze({ slidingWindow: 3, softcap: 1 }),
});

/** The default example: "time flies like an arrow". @returns {State} */
export function defaultState() {
  return {
    sentence: 'time flies like an arrow',
    n: 5,
    dModel: 8,
    dK: 4,
    dV: 4,
    numHeads: 1,
    seed: 42,
    dist: 'normal',
    precision: 3,
    causal: false,
    scaling: true,
    temperature: 1,
    shareQK: false,
    head: 0,
    x: null,
    wq: null,
    wk: null,
    wv: null,
    wo: null,
    mask: null,
    embed: 'token',
    positions: false,
    shuffle: 1,
    design: false,
    kvHeads: null,
    source: DEFAULT_SOURCE,
    ...ROPE.defaults,
    ...SLIDING.defaults,
  };
}

/**
 * Checks sizes against the limits (the page's, or the smaller ones of the embeddable elements).
 * @param {{ n: number, dModel: number, dK: number, dV: number, numHeads: number }} sizes
 * @returns {Record<string, string>} a message per size that is out of range (empty when all are fine)
 */
export function checkSizes(sizes, limits = LIMITS) {
  const errors = {};
  for (const key of Object.keys(SIZE_NAMES)) {
    const value = sizes[key];
    const max = limits[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
      errors[key] = `${SIZE_NAMES[key]} must be a whole number from 1 to ${max}`;
    }
  }
  if (!errors.numHeads) {
    for (const key of ['dK', 'dV']) {
      if (!errors[key] && sizes.numHeads * sizes[key] > limits.headsWidth) {
        errors[key] =
          `heads × ${SIZE_NAMES[key]} is ${sizes.numHeads * sizes[key]}, over ${limits.headsWidth}: lower ${SIZE_NAMES[key]} or the heads`;
      }
    }
  }
  return errors;
}

/**
 * The state with new sizes, carrying over typed numbers (overrides and mask) that still fit.
 * Sizes must have passed checkSizes.
 * @returns {State}
 */
export function withSizes(state, sizes) {
  const next = { ...state, ...sizes };
  next.head = Math.min(state.head, next.numHeads - 1);
  for (const name of INPUT_NAMES) next[name] = resizeOverride(state[name], state, next, name);
  if (next.shareQK) next.wk = null;
  next.mask = resizeMask(state.mask, next.n);
  return next;
}
