// attention-wasm/io on .npy and .npz files written byte by byte to the published formats: every dtype, byte
// order, memory order and format version round-trips exactly (fast-check), malformed files raise BAD_FILE, and
// the results feed the API like typed numbers.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createAttention } from '../../../src/js/index.js';
import { openSafetensors, readNpy, readNpz, readSafetensors } from '../../../src/js/io/index.js';
import { KINDS, caseArb, expectBadFile, expectBadFileAsync, expectTensor, npyOf } from '../fixtures/io/expect.js';
import {
  deflateRaw,
  halfValue,
  npyFile,
  npzFile,
  safetensorsFile,
  tensorBytes,
  zipFile,
} from '../fixtures/io/writers.js';

describe('readNpy', () => {
  it('round-trips every dtype, byte order, memory order and version exactly', () => {
    fc.assert(
      fc.property(caseArb(KINDS), (c) => {
        expectTensor(readNpy(npyOf(c)), c.shape, c.values.expected);
      }),
      { numRuns: 300 },
    );
  });

  it('converts all 65536 float16 patterns exactly, subnormals, ±0, ±inf and NaN included', () => {
    const raw = Array.from({ length: 65536 }, (_, i) => i);
    expectTensor(readNpy(npyFile({ descr: '<f2', shape: [65536], values: raw })), [65536], raw.map(halfValue));
  });

  it('reads a Fortran-order matrix into row-major order', () => {
    const file = npyFile({ shape: [2, 3], values: [1, 2, 3, 4, 5, 6], fortran: true });
    expect(readNpy(file).toArray()).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
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
    expect(tensors.map((t) => Array.from(t.data))).toEqual([
      [1, 2],
      [3, 4],
      [3, 4],
    ]);
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
    [
      'bad magic',
      (f) => {
        f[1] = 0x4d;
      },
      'bad magic',
    ],
    [
      'version 4.0',
      (f) => {
        f[6] = 4;
      },
      'format version 4.0',
    ],
  ])('refuses %s', (_, mangle, word) => {
    const file = npyFile({ shape: [2], values: [1, 2] });
    mangle(file);
    expectBadFile(() => readNpy(file), word);
  });

  it.each([
    ["{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", '\'descr\' is "<c8", a complex array'],
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
    const error = expectBadFile(
      () => readNpy(npyFile({ header, shape: [2], values: [1, 2] })),
      'npy header at byte 10',
      word,
    );
    expect(error.message.length).toBeLessThan(400);
  });

  it('refuses a version 3 header that is not UTF-8', () => {
    const file = npyFile({ shape: [2], values: [1, 2], version: 3 });
    file[13] = 0xff;
    expectBadFile(() => readNpy(file), 'npy header at byte 12', 'not valid UTF-8');
  });

  it('refuses data shorter or longer than the shape, and a header length past the end', () => {
    const file = npyFile({ shape: [2, 2], values: [1, 2, 3, 4] });
    expectBadFile(
      () => readNpy(file.subarray(0, file.length - 1)),
      'npy data at byte 128',
      'needs 16 bytes',
      'truncated',
    );
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
    expect(arrays.q.toArray()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(arrays.k.toArray()).toEqual([
      [5, 6],
      [7, 8],
    ]);
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
    const arrays = fc.array(caseArb(KINDS), { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(arrays, fc.constantFrom(0, 8), async (cases, method) => {
        const file = await npzFile(Object.fromEntries(cases.map((c, i) => [`a${i}`, npyOf(c)])), { method });
        const arrays = await readNpz(file);
        cases.forEach((c, i) => expectTensor(arrays[`a${i}`], c.shape, c.values.expected));
      }),
      { numRuns: 40 },
    );
  });

  it('reads only the arrays named, and names the ones it has for a missing one', async () => {
    const complex = npyFile({
      header: "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
      shape: [1],
      values: [0],
    });
    const file = await npzFile({ q, step: complex });
    await expectBadFileAsync(readNpz(file), 'npz member "step.npy"', 'complex');
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
    [
      'a duplicate member',
      async () =>
        zipFile([
          { name: 'q.npy', data: q, method: 0 },
          { name: 'q.npy', data: q, method: 0 },
        ]),
      'second member',
    ],
    ['an unknown method', async () => zipFile([{ name: 'q.npy', data: q, method: 12 }]), 'compression method 12'],
    [
      'a deflated member that inflates past its size',
      async () => {
        const big = npyFile({ shape: [4096], values: new Array(4096).fill(0) });
        return zipFile([{ name: 'q.npy', data: big, method: 8, compressed: await deflateRaw(big), size: 100 }]);
      },
      'more than the 100 bytes',
    ],
    [
      'a zip bomb claiming 1 GiB from a few bytes',
      async () => {
        return zipFile([{ name: 'q.npy', data: q, method: 8, compressed: await deflateRaw(q), size: 2 ** 30 }]);
      },
      'cannot inflate to',
    ],
    [
      'members that share their data',
      async () => {
        const file = zipFile([
          { name: 'q.npy', data: q, method: 0 },
          { name: 'k.npy', data: q, method: 0 },
        ]);
        const central = file.length - 22 - 2 * (46 + 5);
        new DataView(file.buffer).setUint32(central + 46 + 5 + 42, 0, true); // k's local offset → q's
        return file;
      },
      'overlaps',
    ],
  ])('refuses %s', async (_, make, word) => {
    await expectBadFileAsync(readNpz(await make()), word);
  });
});

describe('tensors read from files feed the API', () => {
  it('selfAttention gives the same result for file tensors as for the same numbers passed directly', async () => {
    const attn = await createAttention();
    const x = [
      [0.5, -1, 2],
      [1.5, 0.25, -0.75],
    ];
    const w = [
      [1, 0.5, 0],
      [0, 1, -0.5],
      [0.25, 0, 1],
    ];
    const direct = attn.selfAttention(x, { wq: w, wk: w, wv: w });
    const flat = (m) => m.flat();
    const fromNpy = readNpy(npyFile({ descr: '>f8', shape: [2, 3], values: flat(x), fortran: true, version: 3 }));
    const npz = await readNpz(await npzFile({ w: npyFile({ shape: [3, 3], values: flat(w) }) }, { method: 8 }));
    const stFile = (dtype) =>
      safetensorsFile([{ name: 'w', dtype, shape: [3, 3], bytes: tensorBytes(dtype, flat(w)) }]);
    const opened = await openSafetensors(new Blob([stFile('F32')]));
    const fromFiles = attn.selfAttention(fromNpy, {
      wq: npz.w,
      wk: await opened.read('w'),
      wv: readSafetensors(stFile('F64')).w,
    });
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
