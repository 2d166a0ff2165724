// What each argument of a call may be, and how the arguments must fit together once they are read (convert.js):
// the options, then the shapes of the tensors against each other. The checks give the core's dimensions, or an
// AttentionError that names the arguments and their shapes. No code of the caller's runs here.
import { AttentionError, describe, formatShape } from './errors.js';
import { readFloatTensor, readMask } from './convert.js';
import { CAUSAL } from './generated/abi.js';
import { readRope } from './rope.js';

const CAUSAL_MODES = new Map([
  [false, CAUSAL.none],
  [true, CAUSAL.topLeft],
  ['top-left', CAUSAL.topLeft],
  ['bottom-right', CAUSAL.bottomRight],
]);

const heads = (rows, cols) => `[${rows}, ${cols}], [H, ${rows}, ${cols}] or [B, H, ${rows}, ${cols}]`;

/** @returns {import('./convert.js').ArgumentSpec} */
const spec = (name, ranks, layout, mask = false) => ({
  name,
  ranks,
  layout,
  mask,
  shapeName: `${name}.shape`,
  dataName: `${name}.data`,
});

/** What each tensor argument may be. */
export const SPECS = {
  q: spec('q', [2, 3, 4], heads('L_q', 'd_k')),
  k: spec('k', [2, 3, 4], heads('L_k', 'd_k')),
  v: spec('v', [2, 3, 4], heads('L_k', 'd_v')),
  x: spec('x', [2, 3], '[L, d_model] or [B, L, d_model]'),
  context: spec('context', [2, 3], '[L_k, d_context] or [B, L_k, d_context]'),
  mask: spec('mask', [1, 2, 3, 4], 'of at most 4 dimensions, broadcasting to the weights [B, H, L_q, L_k]', true),
  ...Object.fromEntries(['wq', 'wk', 'wv', 'wo'].map((name) => [name, spec(name, [2], 'a matrix')])),
  ...Object.fromEntries(
    ['bq', 'bk', 'bv', 'bo'].map((name) => [name, spec(name, [1], `a vector of one value per column of w${name[1]}`)]),
  ),
};

const mismatch = (message) => new AttentionError('SHAPE_MISMATCH', message);

/**
 * Checks call options, already read into a record (readRecord), and reads the mask.
 * @param {Record<string, unknown>} o
 * @param {boolean} stepsByDefault  returnSteps' default: false for the low-level call, true for the others
 */
export function parseOptions(o, stepsByDefault) {
  const { scale, causal = false, mask, returnWeights = true, returnSteps } = o;
  if (scale !== undefined && (typeof scale !== 'number' || !Number.isFinite(scale))) {
    const got = typeof scale === 'number' ? `${scale}` : describe(scale);
    throw new AttentionError('BAD_OPTION', `scale must be a finite number (0 included), got ${got}`);
  }
  if (!CAUSAL_MODES.has(causal)) {
    throw new AttentionError(
      'BAD_OPTION',
      `causal must be false, true, 'top-left' or 'bottom-right', got ${describe(causal)}`,
    );
  }
  for (const [flag, value] of [
    ['returnWeights', returnWeights],
    ['returnSteps', returnSteps],
  ]) {
    if (value !== undefined && typeof value !== 'boolean') {
      throw new AttentionError('BAD_OPTION', `${flag} must be true or false, got ${describe(value)}`);
    }
  }
  if (returnSteps === true && !returnWeights) {
    throw new AttentionError(
      'BAD_OPTION',
      'returnSteps needs returnWeights: the steps are [L_q, L_k] matrices like the weights',
    );
  }
  // undefined when not given (0 in the call): a checkpoint layer's weights may carry their own (weight-options.js)
  const { softcap, window } = o;
  if (softcap !== undefined && (typeof softcap !== 'number' || !Number.isFinite(softcap) || softcap < 0)) {
    throw new AttentionError(
      'BAD_OPTION',
      `softcap must be a finite number from 0 (0: none), got ${describe(softcap)}`,
    );
  }
  if (window !== undefined && (!Number.isSafeInteger(window) || window < 0 || window > 2 ** 31 - 1)) {
    throw new AttentionError('BAD_OPTION', `window must be an integer from 0 (0: none), got ${describe(window)}`);
  }
  if (window > 0 && causal === false) {
    throw new AttentionError(
      'BAD_OPTION',
      `a sliding window (window ${window}) is causal: give causal: true (or 'bottom-right') with it`,
    );
  }
  return {
    scale,
    causal: CAUSAL_MODES.get(causal),
    softcap,
    window,
    mask: mask === undefined || mask === null ? null : readMask(mask, SPECS.mask),
    returnWeights,
    returnSteps: returnWeights && (returnSteps ?? stepsByDefault),
    rope: readRope(o.rope),
  };
}

/** The shapes of q, k and v against each other. @returns the core's AttentionDims */
export function checkAttentionShapes(Q, K, V) {
  const rank = Q.shape.length;
  for (const T of [K, V]) {
    if (T.shape.length !== rank) {
      const q = `q has ${formatShape(Q.shape)} (rank ${rank})`;
      throw new AttentionError(
        'BAD_RANK',
        `${T.name} has shape ${formatShape(T.shape)} (rank ${T.shape.length}) but ${q}: q, k and v must have the same rank`,
      );
    }
  }
  const [lenQ, dK] = [Q.shape[rank - 2], Q.shape[rank - 1]];
  const [lenK, dKofK] = [K.shape[rank - 2], K.shape[rank - 1]];
  const [lenV, dV] = [V.shape[rank - 2], V.shape[rank - 1]];
  const shapes = () => `(q is ${formatShape(Q.shape)}, k is ${formatShape(K.shape)}, v is ${formatShape(V.shape)})`;
  if (dKofK !== dK) throw mismatch(`k has ${dKofK} columns but q has ${dK}: q and k must share d_k ${shapes()}`);
  if (lenV !== lenK)
    throw mismatch(`v has ${lenV} rows but k has ${lenK}: k and v must hold the same L_k keys ${shapes()}`);
  const batch = rank === 4 ? Q.shape[0] : 1;
  const numHeads = rank >= 3 ? Q.shape[rank - 3] : 1;
  const numKvHeads = rank >= 3 ? K.shape[rank - 3] : 1;
  if (rank === 4) {
    for (const T of [K, V]) {
      if (T.shape[0] !== batch) throw mismatch(`${T.name} has batch ${T.shape[0]} but q has ${batch} ${shapes()}`);
    }
  }
  if (rank >= 3) {
    if (V.shape[rank - 3] !== numKvHeads) {
      throw mismatch(
        `v has ${V.shape[rank - 3]} heads but k has ${numKvHeads}: k and v must have the same heads ${shapes()}`,
      );
    }
    if (numHeads % numKvHeads !== 0) {
      throw new AttentionError(
        'HEADS_DO_NOT_DIVIDE',
        `k and v have ${numKvHeads} heads, which does not divide q's ${numHeads} heads ${shapes()}`,
      );
    }
  }
  return { batch, numHeads, numKvHeads, lenQ, lenK, dK, dV };
}

function positiveInteger(value, name, fallback) {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new AttentionError(
      'BAD_OPTION',
      `${name} must be a positive integer, got ${typeof value === 'number' ? value : describe(value)}`,
    );
  }
  return value;
}

/** numHeads and numKvHeads of a weights record (1 and numHeads by default). */
export function checkHeadCounts(w) {
  const numHeads = positiveInteger(w.numHeads, 'numHeads', 1);
  const numKvHeads = positiveInteger(w.numKvHeads, 'numKvHeads', numHeads);
  if (numHeads % numKvHeads !== 0) {
    throw new AttentionError('HEADS_DO_NOT_DIVIDE', `numKvHeads (${numKvHeads}) must divide numHeads (${numHeads})`);
  }
  return { numHeads, numKvHeads };
}

/**
 * Reads x, the context and the weights of a projected call (a weights record from readRecord), in that order.
 * @returns the plan's inputs by the core's buffer names (null = absent)
 */
export function readProjectedInputs(x, context, w) {
  const X = readFloatTensor(x, SPECS.x);
  const C = context === undefined ? null : readFloatTensor(context, SPECS.context);
  return { x: X, context: C, ...readWeightTensors(w) };
}

/** Reads the tensors of a weights record (readRecord's), wq to bo: { wQ, …, bO } (null = absent). */
export function readWeightTensors(w) {
  const read = (name, required) => {
    if (w[name] === undefined) {
      if (required) throw new AttentionError('NOT_A_TENSOR', `weights.${name} is missing`);
      return null;
    }
    return readFloatTensor(w[name], SPECS[name]);
  };
  if (w.bo !== undefined && w.wo === undefined) throw new AttentionError('BAD_OPTION', 'weights.bo needs weights.wo');
  return {
    wQ: read('wq', true),
    wK: read('wk', true),
    wV: read('wv', true),
    wO: read('wo', false),
    bQ: read('bq', false),
    bK: read('bk', false),
    bV: read('bv', false),
    bO: read('bo', false),
  };
}

const columnsOf = (numHeads, what) => (numHeads === 1 ? what : `numHeads·${what}`);

/** The weights' shapes against x's, the context's and each other's. */
function checkWeights({ x: X, context, wQ, wK, wV, wO }, numHeads, numKvHeads) {
  const C = context ?? X;
  const xName = context ? 'context' : 'x';
  const dModel = X.shape[X.shape.length - 1];
  const dContext = C.shape[C.shape.length - 1];
  const both = (a, b) => `(${a.name} is ${formatShape(a.shape)}, ${b.name} is ${formatShape(b.shape)})`;
  if (wQ.shape[0] !== dModel) {
    throw mismatch(
      `wq has ${wQ.shape[0]} rows but x has ${dModel} columns: wq must be [d_model, ${columnsOf(numHeads, 'd_k')}] ${both(X, wQ)}`,
    );
  }
  for (const W of [wK, wV]) {
    if (W.shape[0] !== dContext) {
      throw mismatch(
        `${W.name} has ${W.shape[0]} rows but ${xName} has ${dContext} columns: ${W.name} must be [d_${context ? 'context' : 'model'}, …] ${both(C, W)}`,
      );
    }
  }
  for (const [W, count, countName] of [
    [wQ, numHeads, 'numHeads'],
    [wK, numKvHeads, 'numKvHeads'],
    [wV, numKvHeads, 'numKvHeads'],
  ]) {
    if (W.shape[1] % count !== 0) {
      throw new AttentionError(
        'HEADS_DO_NOT_DIVIDE',
        `${W.name} has ${W.shape[1]} columns, which ${countName} (${count}) does not divide: heads are equal column blocks`,
      );
    }
  }
  const dK = wQ.shape[1] / numHeads;
  const dV = wV.shape[1] / numKvHeads;
  if (wK.shape[1] !== numKvHeads * dK) {
    throw mismatch(
      numHeads === 1 && numKvHeads === 1
        ? `wk has ${wK.shape[1]} columns but wq has ${wQ.shape[1]}: wq and wk must share d_k ${both(wQ, wK)}`
        : `wk has ${wK.shape[1]} columns but must have ${numKvHeads === 1 ? '' : 'numKvHeads·'}d_k = ${numKvHeads}·${dK} = ` +
            `${numKvHeads * dK}, as wq has ${numHeads}·${dK} ${both(wQ, wK)}`,
    );
  }
  if (wO && wO.shape[0] !== numHeads * dV) {
    const width =
      numHeads === 1 ? 'attention output has d_v' : `concatenated heads have numHeads·d_v = ${numHeads}·${dV}`;
    throw mismatch(`wo has ${wO.shape[0]} rows but the ${width} = ${numHeads * dV} columns ${both(wV, wO)}`);
  }
  return { dModel, dContext, dK, dV, dOut: wO ? wO.shape[1] : 0 };
}

/**
 * The shapes of a projected call's inputs (readProjectedInputs) against each other.
 * @returns the core's ProjectionDims but for numHeads and numKvHeads
 */
export function checkProjectedShapes(inputs, numHeads, numKvHeads) {
  const { x: X, context: C } = inputs;
  if (C && C.shape.length !== X.shape.length) {
    throw new AttentionError(
      'BAD_RANK',
      `context has shape ${formatShape(C.shape)} but x has ${formatShape(X.shape)}: both must be [L, d] or both [B, L, d]`,
    );
  }
  const hasBatch = X.shape.length === 3;
  const batch = hasBatch ? X.shape[0] : 1;
  if (C && hasBatch && C.shape[0] !== batch) throw mismatch(`context has batch ${C.shape[0]} but x has ${batch}`);
  const lenQ = X.shape[X.shape.length - 2];
  const lenK = (C ?? X).shape[X.shape.length - 2];
  const dims = checkWeights(inputs, numHeads, numKvHeads);
  for (const [bias, W] of [
    [inputs.bQ, inputs.wQ],
    [inputs.bK, inputs.wK],
    [inputs.bV, inputs.wV],
    [inputs.bO, inputs.wO],
  ]) {
    if (bias && bias.shape[0] !== W.shape[1]) {
      throw mismatch(
        `${bias.name} has ${bias.shape[0]} values but ${W.name} has ${W.shape[1]} columns (${W.name} is ${formatShape(W.shape)})`,
      );
    }
  }
  return { batch, lenQ, lenK, ...dims };
}

/**
 * Where each mask dimension lands among the core's [B, H, L_q, L_k], broadcasting from the right
 * against the weights' public shape (`axes`: its dimensions, each with its name and its core position).
 */
export function maskDims(mask, axes) {
  const dims = [1, 1, 1, 1];
  const weightsShape = formatShape(axes.map((a) => a.size));
  const names = axes.map((a) => a.name).join(', ');
  const extra = mask.shape.length - axes.length;
  const problem = `mask has shape ${formatShape(mask.shape)} but the attention weights are ${weightsShape} (${names})`;
  for (let i = 0; i < mask.shape.length; i++) {
    const size = mask.shape[i];
    const axis = axes[i - extra];
    if (!axis) {
      if (size === 1) continue;
      throw new AttentionError(
        'MASK_DOES_NOT_BROADCAST',
        `${problem}: the mask has more dimensions than the weights and its extra dimension ${i} is ${size}, not 1`,
      );
    }
    if (size !== 1 && size !== axis.size) {
      throw new AttentionError(
        'MASK_DOES_NOT_BROADCAST',
        `${problem}: mask dimension ${i} is ${size}, which is neither 1 nor ${axis.name} (${axis.size})`,
      );
    }
    dims[axis.core] = size;
  }
  return dims;
}
