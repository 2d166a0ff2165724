// openSafetensors' read(name, { rows }): rows [begin, end) of a tensor's first dimension, and only their bytes read
// from a Blob (an embedding's rows for the tokens used). F32 and BF16; rows out of the tensor are BAD_OPTION.
import { describe, expect, it } from 'vitest';
import { openSafetensors } from '../../../src/js/io/index.js';
import { bfloat16Value, safetensorsFile, tensorBytes } from '../fixtures/io/writers.js';

class CountingBlob extends Blob {
  read = 0;
  slice(begin, end) {
    this.read += end - begin;
    return super.slice(begin, end);
  }
}

describe('openSafetensors read(name, { rows })', () => {
  const values = Array.from({ length: 5 * 3 }, (_, i) => i + 0.5); // [5, 3]
  const bits = values.map((v) => new Uint32Array(new Float32Array([v]).buffer)[0] >>> 16); // exact in bfloat16
  const file = safetensorsFile([
    { name: 'f32', dtype: 'F32', shape: [5, 3], bytes: tensorBytes('F32', values) },
    { name: 'bf16', dtype: 'BF16', shape: [5, 3], bytes: tensorBytes('BF16', bits) },
  ]);

  it('gives rows [begin, end) of F32 and BF16 tensors, reading only their bytes from a Blob', async () => {
    const blob = new CountingBlob([file]);
    const opened = await openSafetensors(blob);
    const header = blob.read;
    const rows = await opened.read('f32', { rows: [1, 3] });
    expect(rows.shape).toEqual([2, 3]);
    expect(Array.from(rows.data)).toEqual(values.slice(3, 9));
    expect(blob.read - header).toBe(2 * 3 * 4);
    const half = await opened.read('bf16', { rows: [4, 5] });
    expect(Array.from(half.data)).toEqual(bits.slice(12, 15).map(bfloat16Value));
    expect((await opened.read('f32')).shape).toEqual([5, 3]);
  });

  it.each([[[0, 0]], [[3, 2]], [[-1, 2]], [[0, 6]], [[0.5, 2]], ['1-2']])('rows %j is BAD_OPTION', async (rows) => {
    const opened = await openSafetensors(file);
    await expect(opened.read('f32', { rows })).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message: expect.stringContaining('rows must be [begin, end] with 0 ≤ begin < end ≤ 5 (the tensor is [5, 3])'),
    });
  });
});
