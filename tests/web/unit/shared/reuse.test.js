import { describe, expect, it } from 'vitest';
import { attentionCall } from '../../../../web/src/shared/inputs.js';
import { columnBlockOf, flatRows, tensorOf } from '../../../../web/src/shared/reuse.js';
import {
  float32Call,
  onlyScaleChanged,
  previewsTemperature,
  sameCall,
} from '../../../../web/src/app/attentionCalls.js';
import { defaultState } from '../../../../web/src/shared/state.js';

describe('reuse', () => {
  it('copies a matrix once, and a changed matrix again', () => {
    const rows = [
      [1, 2],
      [3, 4],
    ];
    expect(flatRows(rows)).toBe(flatRows(rows));
    expect(Array.from(flatRows(rows))).toEqual([1, 2, 3, 4]);
    expect(tensorOf(rows).shape).toEqual([2, 2]);
    expect(tensorOf(rows).data).toBe(flatRows(rows));
    expect(flatRows(rows.map((r) => r.slice()))).not.toBe(flatRows(rows));
    expect(columnBlockOf(rows, 1, 1)).toBe(columnBlockOf(rows, 1, 1));
    expect(columnBlockOf(rows, 1, 1).rows).toEqual([[2], [4]]);
    expect(Array.from(columnBlockOf(rows, 0, 1).data)).toEqual([1, 3]);
  });

  it('knows when two calls are the same, and when only the scale differs', () => {
    const state = defaultState();
    const a = attentionCall(state);
    // Made before another seed replaces the cached matrices (one per name): the same arrays as a's.
    const warmer = attentionCall({ ...state, temperature: 2 });
    expect(sameCall(a, attentionCall({ ...state, head: 0, precision: 5 }))).toBe(true);
    expect(sameCall(a, attentionCall({ ...state, causal: true }))).toBe(false);
    expect(sameCall(a, attentionCall({ ...state, seed: 43 }))).toBe(false);
    expect(sameCall(a, warmer)).toBe(false);
    expect(onlyScaleChanged(warmer, a)).toBe(true);
    expect(onlyScaleChanged(attentionCall({ ...state, temperature: 2, causal: true }), a)).toBe(false);
    expect(onlyScaleChanged(a, a)).toBe(false);
  });

  it('gives float32 copies of the data, once per array', () => {
    const call = attentionCall(defaultState());
    const single = float32Call(call);
    expect(single.x.data).toBeInstanceOf(Float32Array);
    expect(single.x.data).toBe(float32Call(call).x.data);
    expect(Array.from(single.weights.wq.data)).toEqual(Array.from(Float32Array.from(call.weights.wq.data)));
    expect(single.weights.numHeads).toBe(call.weights.numHeads);
  });

  it('previews a temperature change only on a large layer, and not a scaling toggle', () => {
    const small = defaultState();
    const gpt2 = { ...small, n: 64, dModel: 768, dK: 64, dV: 64, numHeads: 12 };
    expect(previewsTemperature(gpt2, { ...gpt2, temperature: 2 })).toBe(true);
    expect(previewsTemperature(small, { ...small, temperature: 2 })).toBe(false);
    expect(previewsTemperature(gpt2, { ...gpt2, temperature: 2, scaling: false })).toBe(false);
    expect(previewsTemperature(null, gpt2)).toBe(false);
  });
});
