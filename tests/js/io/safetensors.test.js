// attention-wasm/io on .safetensors files written byte by byte to the format: all four float dtypes round-trip
// exactly (fast-check), a Blob is read by its header and slices only, and a bad layout or header is BAD_FILE.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openSafetensors, readSafetensors } from '../../../src/js/io/index.js';
import { caseArb, expectBadFile, expectBadFileAsync, expectTensor } from '../fixtures/io/expect.js';
import { bfloat16Value, halfValue, safetensorsFile, tensorBytes } from '../fixtures/io/writers.js';

describe('readSafetensors and openSafetensors', () => {
  const half = [0x3c00, 0x8000, 0x0001, 0x7c00, 0xfc00, 0x7e00];
  const tensors = [
    { name: 'wq', dtype: 'F32', shape: [2, 2], bytes: tensorBytes('F32', [1, 0, 0, 1]) },
    { name: 'wk', dtype: 'F16', shape: [2, 3], bytes: tensorBytes('F16', half) },
    { name: 'wv', dtype: 'BF16', shape: [3], bytes: tensorBytes('BF16', [0x3f80, 0x4000, 0x0001]) },
    { name: 'bo', dtype: 'F64', shape: [1, 2], bytes: tensorBytes('F64', [0.1, -1e-320]) },
  ];
  const file = safetensorsFile(tensors, { metadata: { format: 'pt' } });
  const expected = {
    wq: [
      [2, 2],
      [1, 0, 0, 1],
    ],
    wk: [[2, 3], half.map(halfValue)],
    wv: [[3], [1, 2, bfloat16Value(1)]],
    bo: [
      [1, 2],
      [Math.fround(0.1), -0],
    ],
  };

  it('reads all four dtypes and skips __metadata__', () => {
    const read = readSafetensors(file);
    expect(Object.keys(read)).toEqual(['wq', 'wk', 'wv', 'bo']);
    for (const [name, [shape, values]] of Object.entries(expected)) expectTensor(read[name], shape, values);
  });

  it('converts all 65536 float16 and bfloat16 patterns exactly', () => {
    const raw = Array.from({ length: 65536 }, (_, i) => i);
    const read = readSafetensors(
      safetensorsFile([
        { name: 'h', dtype: 'F16', shape: [65536], bytes: tensorBytes('F16', raw) },
        { name: 'b', dtype: 'BF16', shape: [256, 256], bytes: tensorBytes('BF16', raw) },
      ]),
    );
    expectTensor(read.h, [65536], raw.map(halfValue));
    expectTensor(read.b, [256, 256], raw.map(bfloat16Value));
  });

  it('round-trips random tensors of every dtype', () => {
    const dtypes = { f2: 'F16', bf16: 'BF16', f4: 'F32', f8: 'F64' };
    fc.assert(
      fc.property(fc.array(caseArb(Object.keys(dtypes)), { minLength: 1, maxLength: 4 }), (cases) => {
        const list = cases.map((c, i) => ({
          name: `t${i}`,
          dtype: dtypes[c.kind],
          shape: c.shape,
          bytes: tensorBytes(dtypes[c.kind], c.values.raw),
        }));
        const read = readSafetensors(safetensorsFile(list));
        cases.forEach((c, i) => expectTensor(read[`t${i}`], c.shape, c.values.expected));
      }),
      { numRuns: 200 },
    );
  });

  it('opens a Blob by its header, lists the tensors, and reads one by slices only', async () => {
    const slices = [];
    class WatchedBlob extends Blob {
      slice(begin, end) {
        slices.push([begin, end]);
        return super.slice(begin, end);
      }

      arrayBuffer() {
        throw new Error('the whole file was read');
      }
    }
    const opened = await openSafetensors(new WatchedBlob([file]));
    expect(opened.metadata).toEqual({ format: 'pt' });
    expect(opened.tensors).toEqual([
      { name: 'wq', dtype: 'F32', shape: [2, 2] },
      { name: 'wk', dtype: 'F16', shape: [2, 3] },
      { name: 'wv', dtype: 'BF16', shape: [3] },
      { name: 'bo', dtype: 'F64', shape: [1, 2] },
    ]);
    const headerEnd = file.length - 16 - 12 - 6 - 16;
    expect(slices).toEqual([
      [0, 8],
      [8, headerEnd],
    ]);
    expectTensor(await opened.read('wv'), ...expected.wv);
    expect(slices[2]).toEqual([headerEnd + 28, headerEnd + 34]);
    const { read } = opened;
    expectTensor(await read('bo'), ...expected.bo);
    await expectBadFileAsync(read('nope'), 'no tensor "nope"', '"wq", "wk", "wv", "bo"');
    expectTensor(await (await openSafetensors(file.buffer)).read('wk'), ...expected.wk);
  });

  it('refuses a 2 GiB tensor of a Blob before reading or allocating it', async () => {
    const header = safetensorsFile([
      { name: 'big', dtype: 'F32', shape: [2 ** 29], bytes: new Uint8Array(0), offsets: [0, 2 ** 31] },
    ]);
    const sliced = [];
    class HugeBlob extends Blob {
      get size() {
        return header.length + 2 ** 31;
      }

      slice(begin, end) {
        sliced.push([begin, end]);
        return new Blob([header.subarray(begin, end)]);
      }
    }
    const opened = await openSafetensors(new HugeBlob([]));
    expect(opened.tensors).toEqual([{ name: 'big', dtype: 'F32', shape: [2 ** 29] }]);
    await expectBadFileAsync(opened.read('big'), 'tensor "big"', 'MAX_CALL_BYTES');
    expect(sliced).toEqual([
      [0, 8],
      [8, header.length],
    ]);
  });

  it('lists an unsupported dtype, refuses to read it, and reads the others by name', async () => {
    const withComplex = safetensorsFile([
      ...tensors,
      { name: 'z', dtype: 'C64', shape: [2], bytes: new Uint8Array(16) },
    ]);
    expectBadFile(() => readSafetensors(withComplex), 'tensor "z"', 'dtype "C64" is not supported');
    expect(Object.keys(readSafetensors(withComplex, { names: ['wq', 'bo'] }))).toEqual(['wq', 'bo']);
    const opened = await openSafetensors(new Blob([withComplex]));
    expect(opened.tensors.map((t) => t.dtype)).toEqual(['F32', 'F16', 'BF16', 'F64', 'C64']);
    await expectBadFileAsync(opened.read('z'), 'C64');
  });

  const t4 = (name, offsets, dtype = 'F32') => ({ name, dtype, shape: [1], bytes: new Uint8Array(4), offsets });
  it.each([
    ['a gap between tensors', [t4('a', [0, 4]), t4('b', [8, 12])], 'a gap'],
    ['overlapping tensors', [t4('a', [0, 4]), t4('b', [2, 6]), t4('c', [6, 10])], 'an overlap'],
    ['offsets past the end', [t4('a', [0, 4]), { ...t4('b', [4, 12]), shape: [2] }], 'past the 8 data bytes'],
    [
      'offsets that disagree with the shape',
      [t4('a', [0, 8]), t4('b', [8, 8])],
      'needs 4 bytes but data_offsets [0, 8] span 8',
    ],
    ['a begin after its end', [t4('a', [4, 0])], 'begin ≤ end'],
    ['a scalar', [{ name: 's', dtype: 'F32', shape: [], bytes: new Uint8Array(4) }], 'scalar'],
  ])('refuses %s', (_, list, word) => {
    expectBadFile(() => readSafetensors(safetensorsFile(list)), word);
  });

  it.each([
    ['a header that is not JSON', "{'a': 1}", 'not JSON'],
    ['a header that is a list', '[]', "not '{'"],
    ['a tensor entry that is not an object', '{"a": 3}', 'not an object'],
    ['__metadata__ with a number', '{"__metadata__": {"n": 1}}', 'not an object of strings'],
    ['a shape of strings', '{"a": {"dtype": "F32", "shape": ["1"], "data_offsets": [0, 4]}}', "'shape'"],
  ])('refuses %s', (_, header, word) => {
    expectBadFile(
      () => readSafetensors(safetensorsFile([t4('a', [0, 4])], { header })),
      'safetensors header at byte 8',
      word,
    );
  });

  it('refuses a header length past the end or over the limit, and a file shorter than 8 bytes', async () => {
    const lying = file.slice();
    lying[0] = 0xff;
    lying[1] = 0xff;
    expectBadFile(() => readSafetensors(lying), 'header length 65535 runs past the end');
    lying[4] = 1;
    expectBadFile(() => readSafetensors(lying), "over the format's limit");
    expectBadFile(() => readSafetensors(file.subarray(0, 5)), 'fewer than the 8');
    await expectBadFileAsync(openSafetensors(new Blob([file.subarray(0, 100)])), 'runs past the end');
  });

  it('says that a JSON file given for the weights is JSON text, not a safetensors file', async () => {
    const config = new TextEncoder().encode(JSON.stringify({ model_type: 'gpt2', n_layer: 2 }, null, 2));
    for (const bytes of [config, new TextEncoder().encode('{}'), new TextEncoder().encode('\n [1, 2, 3]')]) {
      const words = ['starts with', 'JSON text', 'config.json', 'not a safetensors file'];
      expectBadFile(() => readSafetensors(bytes), ...words);
      await expectBadFileAsync(openSafetensors(new Blob([bytes])), ...words);
    }
    // A real header whose length's bytes read " {" (0x7b20 = 31520 bytes) is read as one.
    const w = { name: 'w', dtype: 'F32', shape: [1], bytes: tensorBytes('F32', [2]) };
    const header = JSON.stringify({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }).padEnd(0x7b20, ' ');
    const wide = safetensorsFile([w], { header });
    expect([...wide.subarray(0, 2)]).toEqual([0x20, 0x7b]);
    expectTensor(readSafetensors(wide).w, [1], [2]);
  });
});
