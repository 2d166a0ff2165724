// A run's results as named tensors, written as a NumPy .npz or a .safetensors file by attention-wasm/io's writers
// (writeNpz, writeSafetensors), which this entry imports only when one is called: r.toNpz() and r.toSafetensors().
import { Tensor } from '../tensor.js';

/**
 * The tensors of a run's result, in this order and under these names:
 *
 * | name                     | shape                          |
 * |--------------------------|--------------------------------|
 * | ids                      | [n] int32                      |
 * | attentions.{l}           | [H, n, n] (layers that ran)    |
 * | hiddenStates.{l}         | [n, d_model]                   |
 * | logits                   | [rows, vocab]                  |
 * | captures.{i}.{step}      | each step of capture i         |
 * | loss.perToken, loss.mean | [n − 1] (n > 1), [1] float64   |
 * @returns {[string, { data: ArrayBufferView, shape: number[] }][]}
 */
export function runTensors(result) {
  const list = [['ids', new Tensor(Int32Array.from(result.ids), [result.ids.length])]];
  result.attentions?.forEach((a, l) => a && list.push([`attentions.${l}`, a]));
  result.hiddenStates?.forEach((h, l) => h && list.push([`hiddenStates.${l}`, h]));
  if (result.logits) list.push(['logits', result.logits]);
  result.captures?.forEach((capture, i) => {
    for (const [step, value] of Object.entries(capture)) {
      if (value instanceof Tensor) list.push([`captures.${i}.${step}`, value]);
    }
  });
  if (result.loss) {
    if (result.loss.perToken.length)
      list.push(['loss.perToken', new Tensor(result.loss.perToken, [result.loss.perToken.length])]);
    list.push(['loss.mean', new Tensor(new Float64Array([result.loss.mean]), [1])]);
  }
  return list;
}

/** Gives a run's result its toNpz() and toSafetensors() (not enumerable: the result's fields stay its data). */
export function withExport(result) {
  return Object.defineProperties(result, {
    toNpz: {
      value: async () => (await import('../io/npz-write.js')).writeNpz(runTensors(result)),
    },
    toSafetensors: {
      value: async () =>
        (await import('../io/safetensors-write.js')).writeSafetensors(runTensors(result), {
          metadata: { format: 'pt' },
        }),
    },
  });
}
