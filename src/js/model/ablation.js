// model.run's `ablate`: heads whose output (headOutput, before W_O) is replaced inside the forward, by mode:
//   'zero'      0 at every position (transformers' head_mask; the call's head mask)
//   'mean'      its mean over the positions of this run (computed by the forward as it goes, after the layer's edits
//               and patches of earlier steps), or over the positions of a reference run (`reference`: its prompt)
//   'resample'  its output, row by row, in a run of another prompt of the same length (`reference`)
// TransformerLens's zero, mean and resample ablation of hook_z. 'mean' and 'resample' become rows of the layer call's
// `edits` input (edits.js's layout), after the run's own edits and before its patches.
import { AttentionError, describe } from '../errors.js';
import { readList, readRecord } from '../read.js';
import { LAYER_STEPS } from '../generated/model-abi.js';

const bad = (message) => new AttentionError('BAD_OPTION', message);

/** The modes an ablation takes. */
export const ABLATION_MODES = Object.freeze(['zero', 'mean', 'resample']);

/**
 * run's `ablate`: [layer, head] pairs (zero) or { layer, head, mode?, reference? } entries, each checked; `readInput`
 * reads a reference prompt as run reads its input. @returns {{ layer: number, head: number, mode: string,
 * reference: { ids: number[] } | null }[]}
 */
export function readAblate(list, spec, n, readInput) {
  return readList(list, 'ablate', 'an array of [layer, head] or { layer, head, mode }').map((entry, i) => {
    const name = `ablate[${i}]`;
    const given = Array.isArray(entry)
      ? entry.length === 2
        ? { layer: entry[0], head: entry[1] }
        : null
      : entry !== null && typeof entry === 'object'
        ? readRecord(entry, name, ['layer', 'head', 'mode', 'reference'], 'key')
        : null;
    if (!given) throw bad(`${name} must be [layer, head] or { layer, head, mode, reference? }, got ${describe(entry)}`);
    const { layer, head, mode = 'zero', reference } = given;
    if (!Number.isInteger(layer) || layer < 0 || layer >= spec.numLayers) {
      throw bad(`${name}: layer ${describe(layer)} is not a layer of this model (0 to ${spec.numLayers - 1})`);
    }
    if (!Number.isInteger(head) || head < 0 || head >= spec.numHeads) {
      throw bad(`${name}: head ${describe(head)} is not a head of this model (0 to ${spec.numHeads - 1})`);
    }
    if (!ABLATION_MODES.includes(mode))
      throw bad(`${name}: mode ${describe(mode)} is not one of ${ABLATION_MODES.join(', ')}`);
    if (mode === 'zero' && reference !== undefined) throw bad(`${name}: mode 'zero' takes no reference`);
    if (mode === 'resample' && reference === undefined) {
      throw bad(`${name}: mode 'resample' needs a reference: the prompt whose run gives the head's output`);
    }
    const ref = reference === undefined ? null : { ids: readInput(reference, `${name}.reference`).ids };
    if (mode === 'resample' && ref.ids.length !== n) {
      throw new AttentionError(
        'SHAPE_MISMATCH',
        `${name}: the reference has ${ref.ids.length} tokens, but resampling takes a prompt of the run's ${n}`,
      );
    }
    return { layer, head, mode, reference: ref };
  });
}

/**
 * The rows [n, d_k] that replace a head's output, from its output [rows, d_k] in a run (`heads`: that layer's
 * [H, rows, d_k]): the mean row n times ('mean'), or the rows themselves ('resample').
 */
export function ablationValues(mode, heads, head, n, dK) {
  const rows = heads.shape[1];
  const own = heads.data.subarray(head * rows * dK, (head + 1) * rows * dK);
  if (mode === 'resample') return Float32Array.from(own);
  const mean = new Float64Array(dK);
  for (let r = 0; r < rows; r++) for (let c = 0; c < dK; c++) mean[c] += own[r * dK + c];
  const out = new Float32Array(n * dK);
  for (let r = 0; r < n; r++) for (let c = 0; c < dK; c++) out[r * dK + c] = mean[c] / rows;
  return out;
}

/** A head's replaced output [n, d_k] as rows of the `edits` input, [n·d_k, 5]. */
export function headOutputRows(head, values, n, dK) {
  const data = new Float32Array(n * dK * 5);
  const code = LAYER_STEPS.headOutput;
  for (let r = 0, e = 0; r < n; r++) {
    for (let c = 0; c < dK; c++, e++) data.set([code, head, r, c, values[r * dK + c]], e * 5);
  }
  return data;
}
