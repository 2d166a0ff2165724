// A layer's `edits` input (rows [step, block, row, col, value]: run's edits, then the reference ablations' rows, then
// the patches', edits.js and patches.js) cut for loadModel({ workers }) (shards.js). Each row goes where its step is
// computed: the attention's input and the MLP's input to every worker's call of that half (each computes them whole),
// a head's step to the worker of that head (its block counted from the worker's first head, or key-value head), a
// column of concat or of the MLP's activation to the worker of that column (counted from its first); the steps after
// a sum of the workers' parts (W_o's output, the residual, the MLP's output, the layer's output) to the calling
// thread, which writes them after that sum, in order, as the core writes them after its own.
import { LAYER_STEPS } from '../generated/model-abi.js';
import { made } from './calls.js';
import { STEPS } from './edits.js';

const NAMES = Object.fromEntries(Object.entries(LAYER_STEPS).map(([name, code]) => [code, name]));
/** The steps written on the calling thread, after the sums. */
export const SUMMED_STEPS = ['output', 'residual', 'mlpOutput', 'hidden'];

/**
 * The rows of `rows` (a Float32Array [m, 5], or null) for each worker's calls and for the calling thread:
 * { attention: per worker an edits input or null, mlp: likewise, here: { step: [[row, col, value], …] } }. An edits
 * input is { tensor, count, steps } as forward-pass.js's editInput gives it.
 */
export function splitEdits(rows, spec, parts) {
  const { headDim: dK } = spec;
  const attention = parts.map(() => []);
  const mlp = parts.map(() => []);
  const here = Object.fromEntries(SUMMED_STEPS.map((step) => [step, []]));
  for (let e = 0; rows && e < rows.length; e += 5) {
    const [code, block, row, col, value] = rows.subarray(e, e + 5);
    const step = NAMES[code];
    if (step in here) {
      here[step].push([row, col, value]);
      continue;
    }
    parts.forEach(({ heads: [h0, h1], kv: [g0, g1], ff: [f0, f1] }, w) => {
      const { head } = STEPS[step];
      if (step === 'x' && h1 > h0) attention[w].push(code, 0, row, col, value);
      else if (head === 'query' && block >= h0 && block < h1) attention[w].push(code, block - h0, row, col, value);
      else if (head === 'kv' && block >= g0 && block < g1) attention[w].push(code, block - g0, row, col, value);
      else if (step === 'concat' && col >= h0 * dK && col < h1 * dK)
        attention[w].push(code, 0, row, col - h0 * dK, value);
      else if (step === 'mlpInput' && f1 > f0) mlp[w].push(code, 0, row, col, value);
      else if (step === 'mlpHidden' && col >= f0 && col < f1) mlp[w].push(code, 0, row, col - f0, value);
    });
  }
  const input = (list) => {
    if (!list.length) return null;
    const data = Float32Array.from(list);
    let steps = 0;
    for (let e = 0; e < data.length; e += 5) steps |= 1 << data[e];
    return { tensor: made(data, [data.length / 5, 5], 'edits'), count: data.length / 5, steps };
  };
  return { attention: attention.map(input), mlp: mlp.map(input), here };
}

/** Writes the calling thread's edits of `step` into `data` [n, d] (a later row wins). */
export function writeEdits(here, step, data, d) {
  for (const [row, col, value] of here?.[step] ?? []) data[row * d + col] = value;
}
