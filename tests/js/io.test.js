// attention-wasm/io on files written byte by byte to the published formats: every dtype, byte order, memory
// order and format version round-trips exactly (fast-check), and the results feed the API like typed numbers.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AttentionError, Tensor, createAttention } from '../../src/js/index.js';
import { openSafetensors, readNpy, readNpz, readSafetensors } from '../../src/js/io/index.js';
import {
  bfloat16Value, halfValue, npyFile, npzFile, safetensorsFile, tensorBytes, zipFile,
} from './fixtures/io/writers.js';

const KINDS = ['f2', 'f4', 'f8'];
const shapeArb = fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 4 });
const size = (shape) => shape.reduce((a, b) => a * b, 1);

/** Raw values for a kind (16-bit patterns for f2/bf16) and the float32 values a reader must return. */
function valuesArb(kind, count) {
  if (kind === 'f2' || kind === 'bf16') {
    const value = kind === 'f2' ? halfValue : bfloat16Value;
    return fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: count, maxLength: count })
      .map((raw) => ({ raw, expected: raw.map(value) }));
  }
  const double = fc.double({ noDefaultInfinity: false, noNaN: false });
  return fc.array(kind === 'f4' ? double.map(Math.fround) : double, { minLength: count, maxLength: count })
    .map((raw) => ({ raw, expected: raw.map(Math.fround) }));
}

const caseArb = (kinds) => fc.record({ shape: shapeArb, kind: fc.constantFrom(...kinds) })
  .chain(({ shape, kind }) => fc.record({
    shape: fc.constant(shape),
    kind: fc.constant(kind),
    values: valuesArb(kind, size(shape)),
    bigEndian: fc.boolean(),
    fortran: fc.boolean(),
    version: fc.constantFrom(1, 2, 3),
  }));

/** Expects a float32 Tensor with exactly these values (NaN equals NaN, +0 differs from -0). */
function expectTensor(tensor, shape, expected) {
  expect(tensor).toBeInstanceOf(Tensor);
  expect(tensor.data).toBeInstanceOf(Float32Array);
  expect(tensor.shape).toEqual(shape);
  expect(Array.from(tensor.data)).toEqual(expected);
}

function expectBadFile(call, ...words) {
  let error;
  try {
    call();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AttentionError);
  expect(error.code).toBe('BAD_FILE');
  for (const word of words) expect(error.message).toContain(word);
  return error;
}

async function expectBadFileAsync(promise, ...words) {
  const error = await promise.then(() => undefined, (e) => e);
  expect(error).toBeInstanceOf(AttentionError);
  expect(error.code).toBe('BAD_FILE');
  for (const word of words) expect(error.message).toContain(word);
  return error;
}

const npyOf = ({ shape, kind, values, bigEndian, fortran, version }) => npyFile({
  descr: `${bigEndian ? '>' : '<'}${kind}`, shape, values: values.raw, fortran, version,
});

describe('readNpy', () => {
  it('round-trips every dtype, byte order, memory order and version exactly', () => {
    fc.assert(fc.property(caseArb(KINDS), (c) => {
      expectTensor(readNpy(npyOf(c)), c.shape, c.values.expected);
    }), { numRuns: 300 });
  });

  it('converts all 65536 float16 patterns exactly, subnormals, ±0, ±inf and NaN included', () => {
    const raw = Array.from({ length: 65536 }, (_, i) => i);
    expectTensor(readNpy(npyFile({ descr: '<f2', shape: [65536], values: raw })), [65536], raw.map(halfValue));
  });

  it('reads a Fortran-order matrix into row-major order', () => {
    const file = npyFile({ shape: [2, 3], values: [1, 2, 3, 4, 5, 6], fortran: true });
    expect(readNpy(file).toArray()).toEqual([[1, 2, 3], [4, 5, 6]]);
  });

  it('takes an ArrayBuffer, and a Uint8Array at an odd offset of a larger buffer', () => {
    const file = npyFile({ descr: '<f8', shape: [3], values: [0.1, -2, 1e300] });
    expectTensor(readNpy(file.buffer), [3], [Math.fround(0.1), -2, Infinity]);
    const shifted = new Uint8Array(file.length + 3);
    shifted.set(file, 3);
    expectTensor(readNpy(shifted.subarray(3)), [3], [Math.fround(0.1), -2, Infinity]);
  });

  it('returns data of its own: changing the file afterwards changes no tensor', async () => {
    const file = npyFile({ shape: [2], values: [1, 2] });
    const st = safetensorsFile([{ name: 'a', dtype: 'F32', shape: [2], bytes: tensorBytes('F32', [3, 4]) }]);
    const tensors = [readNpy(file), readSafetensors(st).a, await (await openSafetensors(st)).read('a')];
    file.fill(0);
    st.fill(0);
    expect(tensors.map((t) => Array.from(t.data))).toEqual([[1, 2], [3, 4], [3, 4]]);
  });

  it("reads through a Uint8Array subclass whose slice() is a view, as Node's Buffer's is, without changing it", () => {
    class ViewSlice extends Uint8Array {
      slice(begin, end) {
        return this.subarray(begin, end);
      }
    }
    const file = npyFile({ descr: '>f4', shape: [3], values: [1.5, -2, 3] });
    const pool = new ViewSlice(file.length + 5).fill(7);
    pool.set(file, 5);
    expectTensor(readNpy(pool.subarray(5)), [3], [1.5, -2, 3]);
    expect(Array.from(pool.subarray(5))).toEqual(Array.from(file));
  });

  it('accepts header dicts in any key order, either quote, with or without trailing commas, and 16-byte alignment', () => {
    for (const header of [
      "{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}",
      '{"descr": "<f4", "fortran_order": False, "shape": (2,),}',
      "{'descr':'<f4','fortran_order':False,'shape':(2L,)}",
    ]) {
      expectTensor(readNpy(npyFile({ header, shape: [2], values: [1, 2], align: 16 })), [2], [1, 2]);
    }
  });

  it.each([
    ['bad magic', (f) => { f[1] = 0x4d; }, 'bad magic'],
    ['version 4.0', (f) => { f[6] = 4; }, 'format version 4.0'],
  ])('refuses %s', (_, mangle, word) => {
    const file = npyFile({ shape: [2], values: [1, 2] });
    mangle(file);
    expectBadFile(() => readNpy(file), word);
  });

  it.each([
    ["{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", "'descr' is \"<i4\", an integer array"],
    ["{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2,), }", 'structured'],
    ["{'descr': '<f16', 'fortran_order': False, 'shape': (2,), }", '128-bit float'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 'scalar'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", 'empty'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536), }", 'MAX_CALL_BYTES'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 'too large'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 'trailing comma'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': [2], }", "expected '('"],
    ["{'descr': '<f4', 'fortran_order': false, 'shape': (2,), }", 'True or False'],
    ["{'descr': '<f4', 'fortran_order': False, }", "'shape' is missing"],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", 'unknown key'],
    ["{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 'appears twice'],
    ["{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", 'unexpected text'],
    ["__import__('os')", "expected '{'"],
  ])('refuses the header %s', (header, word) => {
    const error = expectBadFile(() => readNpy(npyFile({ header, shape: [2], values: [1, 2] })), 'npy header at byte 10', word);
    expect(error.message.length).toBeLessThan(400);
  });

  it('refuses a version 3 header that is not UTF-8', () => {
    const file = npyFile({ shape: [2], values: [1, 2], version: 3 });
    file[13] = 0xff;
    expectBadFile(() => readNpy(file), 'npy header at byte 12', 'not valid UTF-8');
  });

  it('refuses data shorter or longer than the shape, and a header length past the end', () => {
    const file = npyFile({ shape: [2, 2], values: [1, 2, 3, 4] });
    expectBadFile(() => readNpy(file.subarray(0, file.length - 1)), 'npy data at byte 128', 'needs 16 bytes', 'truncated');
    const longer = new Uint8Array(file.length + 4);
    longer.set(file);
    expectBadFile(() => readNpy(longer), 'more than the array holds');
    expectBadFile(() => readNpy(file.subarray(0, 40)), 'header length 118 runs past the end');
  });

  it('refuses what is not bytes, and tells how to read a Blob', () => {
    expectBadFile(() => readNpy('x.npy'), 'ArrayBuffer or a Uint8Array', 'the string "x.npy"');
    expectBadFile(() => readNpy(null), 'null');
    expectBadFile(() => readNpy(new Blob([])), 'blob.arrayBuffer()');
  });
});

describe('readNpz', () => {
  const q = npyFile({ shape: [2, 2], values: [1, 2, 3, 4] });
  const k = npyFile({ descr: '>f8', shape: [2, 2], values: [5, 6, 7, 8], fortran: true, version: 2 });
  const expectQK = (arrays) => {
    expect(Object.keys(arrays)).toEqual(['q', 'k']);
    expect(arrays.q.toArray()).toEqual([[1, 2], [3, 4]]);
    expect(arrays.k.toArray()).toEqual([[5, 6], [7, 8]]);
  };

  it.each([
    ['stored with ZIP64 local extras (numpy.savez)', { method: 0 }],
    ['deflated (numpy.savez_compressed)', { method: 8 }],
    ['stored without ZIP64 extras', { method: 0, zip64: false }],
    ['deflated with data descriptors', { method: 8, zip64: false, descriptor: true }],
    ['deflated with ZIP64 descriptors and a ZIP64 end record', { method: 8, descriptor: true, zip64End: true }],
  ])('reads an archive %s', async (_, options) => {
    const file = await npzFile({ q, k }, options);
    expectQK(await readNpz(file));
    expectQK(await readNpz(new Blob([file])));
  });

  it('round-trips random arrays through deflated and stored members', async () => {
    await fc.assert(fc.asyncProperty(fc.array(caseArb(KINDS), { minLength: 1, maxLength: 3 }), fc.constantFrom(0, 8), async (cases, method) => {
      const file = await npzFile(Object.fromEntries(cases.map((c, i) => [`a${i}`, npyOf(c)])), { method });
      const arrays = await readNpz(file);
      cases.forEach((c, i) => expectTensor(arrays[`a${i}`], c.shape, c.values.expected));
    }), { numRuns: 40 });
  });

  it('reads only the arrays named, and names the ones it has for a missing one', async () => {
    const ints = npyFile({ header: "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", shape: [1], values: [0] });
    const file = await npzFile({ q, step: ints });
    await expectBadFileAsync(readNpz(file), "npz member \"step.npy\"", 'integer');
    expect(Object.keys(await readNpz(file, { names: ['q'] }))).toEqual(['q']);
    await expectBadFileAsync(readNpz(file, { names: ['v'] }), 'no array "v"', '"q", "step"');
  });

  it('refuses names that are not a list of strings, and a deflated member where DecompressionStream is missing', async () => {
    const file = await npzFile({ q }, { method: 8 });
    await expect(readNpz(file, { names: 'q' })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    const saved = globalThis.DecompressionStream;
    globalThis.DecompressionStream = undefined;
    try {
      await expectBadFileAsync(readNpz(file), 'no DecompressionStream');
    } finally {
      globalThis.DecompressionStream = saved;
    }
    expect(Object.keys(await readNpz(await npzFile({ q }, { method: 0 })))).toEqual(['q']);
  });

  it.each([
    ['a file that is not a zip', async () => q, 'not a zip archive'],
    ['an empty file', async () => new Uint8Array(0), 'not a zip archive'],
    ['a wrong CRC', async () => zipFile([{ name: 'q.npy', data: q, method: 0, crc: 1 }]), 'CRC-32'],
    ['a member that is not .npy', async () => zipFile([{ name: 'q.txt', data: q, method: 0 }]), 'not an .npy file'],
    ['a duplicate member', async () => zipFile([{ name: 'q.npy', data: q, method: 0 }, { name: 'q.npy', data: q, method: 0 }]), 'second member'],
    ['an unknown method', async () => zipFile([{ name: 'q.npy', data: q, method: 12 }]), 'compression method 12'],
    ['a deflated member that inflates past its size', async () => {
      const big = npyFile({ shape: [4096], values: new Array(4096).fill(0) });
      return zipFile([{ name: 'q.npy', data: big, method: 8, compressed: await (await import('./fixtures/io/writers.js')).deflateRaw(big), size: 100 }]);
    }, 'more than the 100 bytes'],
    ['a zip bomb claiming 1 GiB from a few bytes', async () => {
      const { deflateRaw } = await import('./fixtures/io/writers.js');
      return zipFile([{ name: 'q.npy', data: q, method: 8, compressed: await deflateRaw(q), size: 2 ** 30 }]);
    }, 'cannot inflate to'],
    ['members that share their data', async () => {
      const file = zipFile([{ name: 'q.npy', data: q, method: 0 }, { name: 'k.npy', data: q, method: 0 }]);
      const central = file.length - 22 - 2 * (46 + 5);
      new DataView(file.buffer).setUint32(central + 46 + 5 + 42, 0, true); // k's local offset → q's
      return file;
    }, 'overlaps'],
  ])('refuses %s', async (_, make, word) => {
    await expectBadFileAsync(readNpz(await make()), word);
  });
});

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
    wq: [[2, 2], [1, 0, 0, 1]],
    wk: [[2, 3], half.map(halfValue)],
    wv: [[3], [1, 2, bfloat16Value(1)]],
    bo: [[1, 2], [Math.fround(0.1), -0]],
  };

  it('reads all four dtypes and skips __metadata__', () => {
    const read = readSafetensors(file);
    expect(Object.keys(read)).toEqual(['wq', 'wk', 'wv', 'bo']);
    for (const [name, [shape, values]] of Object.entries(expected)) expectTensor(read[name], shape, values);
  });

  it('round-trips random tensors of every dtype', () => {
    const dtypes = { f2: 'F16', bf16: 'BF16', f4: 'F32', f8: 'F64' };
    fc.assert(fc.property(fc.array(caseArb(Object.keys(dtypes)), { minLength: 1, maxLength: 4 }), (cases) => {
      const list = cases.map((c, i) => ({ name: `t${i}`, dtype: dtypes[c.kind], shape: c.shape, bytes: tensorBytes(dtypes[c.kind], c.values.raw) }));
      const read = readSafetensors(safetensorsFile(list));
      cases.forEach((c, i) => expectTensor(read[`t${i}`], c.shape, c.values.expected));
    }), { numRuns: 200 });
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
      { name: 'wq', dtype: 'F32', shape: [2, 2] }, { name: 'wk', dtype: 'F16', shape: [2, 3] },
      { name: 'wv', dtype: 'BF16', shape: [3] }, { name: 'bo', dtype: 'F64', shape: [1, 2] },
    ]);
    const headerEnd = file.length - 16 - 12 - 6 - 16;
    expect(slices).toEqual([[0, 8], [8, headerEnd]]);
    expectTensor(await opened.read('wv'), ...expected.wv);
    expect(slices[2]).toEqual([headerEnd + 28, headerEnd + 34]);
    const { read } = opened;
    expectTensor(await read('bo'), ...expected.bo);
    await expectBadFileAsync(read('nope'), 'no tensor "nope"', '"wq", "wk", "wv", "bo"');
    expectTensor(await (await openSafetensors(file.buffer)).read('wk'), ...expected.wk);
  });

  it('refuses a 2 GiB tensor of a Blob before reading or allocating it', async () => {
    const header = safetensorsFile([{ name: 'big', dtype: 'F32', shape: [2 ** 29], bytes: new Uint8Array(0), offsets: [0, 2 ** 31] }]);
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
    expect(sliced).toEqual([[0, 8], [8, header.length]]);
  });

  it('lists an unsupported dtype, refuses to read it, and reads the others by name', async () => {
    const withInts = safetensorsFile([...tensors, { name: 'ids', dtype: 'I64', shape: [2], bytes: new Uint8Array(16) }]);
    expectBadFile(() => readSafetensors(withInts), 'tensor "ids"', 'dtype "I64" is not supported');
    expect(Object.keys(readSafetensors(withInts, { names: ['wq', 'bo'] }))).toEqual(['wq', 'bo']);
    const opened = await openSafetensors(new Blob([withInts]));
    expect(opened.tensors.map((t) => t.dtype)).toEqual(['F32', 'F16', 'BF16', 'F64', 'I64']);
    await expectBadFileAsync(opened.read('ids'), 'I64');
  });

  const t4 = (name, offsets, dtype = 'F32') => ({ name, dtype, shape: [1], bytes: new Uint8Array(4), offsets });
  it.each([
    ['a gap between tensors', [t4('a', [0, 4]), t4('b', [8, 12])], 'a gap'],
    ['overlapping tensors', [t4('a', [0, 4]), t4('b', [2, 6]), t4('c', [6, 10])], 'an overlap'],
    ['offsets past the end', [t4('a', [0, 4]), { ...t4('b', [4, 12]), shape: [2] }], 'past the 8 data bytes'],
    ['offsets that disagree with the shape', [t4('a', [0, 8]), t4('b', [8, 8])], 'needs 4 bytes but data_offsets [0, 8] span 8'],
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
    expectBadFile(() => readSafetensors(safetensorsFile([t4('a', [0, 4])], { header })), 'safetensors header at byte 8', word);
  });

  it('refuses a header length past the end or over the limit, and a file shorter than 8 bytes', async () => {
    const lying = file.slice();
    lying[0] = 0xff;
    lying[1] = 0xff;
    expectBadFile(() => readSafetensors(lying), 'header length 65535 runs past the end');
    lying[4] = 1;
    expectBadFile(() => readSafetensors(lying), 'over the format\'s limit');
    expectBadFile(() => readSafetensors(file.subarray(0, 5)), 'fewer than the 8');
    await expectBadFileAsync(openSafetensors(new Blob([file.subarray(0, 100)])), 'runs past the end');
  });
});

describe('tensors read from files feed the API', () => {
  it('selfAttention gives the same result for file tensors as for the same numbers passed directly', async () => {
    const attn = await createAttention();
    const x = [[0.5, -1, 2], [1.5, 0.25, -0.75]];
    const w = [[1, 0.5, 0], [0, 1, -0.5], [0.25, 0, 1]];
    const direct = attn.selfAttention(x, { wq: w, wk: w, wv: w });
    const flat = (m) => m.flat();
    const fromNpy = readNpy(npyFile({ descr: '>f8', shape: [2, 3], values: flat(x), fortran: true, version: 3 }));
    const npz = await readNpz(await npzFile({ w: npyFile({ shape: [3, 3], values: flat(w) }) }, { method: 8 }));
    const st = await openSafetensors(new Blob([safetensorsFile([{ name: 'w', dtype: 'F32', shape: [3, 3], bytes: tensorBytes('F32', flat(w)) }])]));
    const fromFiles = attn.selfAttention(fromNpy, { wq: npz.w, wk: await st.read('w'), wv: readSafetensors(safetensorsFile([{ name: 'w', dtype: 'F64', shape: [3, 3], bytes: tensorBytes('F64', flat(w)) }])).w });
    expect(Array.from(fromFiles.output.data)).toEqual(Array.from(direct.output.data));
    expect(fromFiles.output.shape).toEqual([2, 3]);
  });

  it('reads NaN and ±inf as data, which the API then refuses as NON_FINITE', async () => {
    const attn = await createAttention();
    const x = readNpy(npyFile({ shape: [2, 2], values: [1, NaN, 0, Infinity] }));
    expect(Array.from(x.data)).toEqual([1, NaN, 0, Infinity]);
    expect(() => attn.scaledDotProductAttention(x, x, x)).toThrow(expect.objectContaining({ code: 'NON_FINITE' }));
  });
});
