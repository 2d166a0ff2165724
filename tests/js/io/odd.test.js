// attention-wasm/io on input it cannot read (detached buffers, a File changed on disk) and on files that are
// unusual but valid: 65 535 arrays as numpy.savez writes them, and boolean and integer arrays, which read as
// typed arrays of their kind and feed the API as boolean masks. Each case failed on 0.2.0.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AttentionError, Tensor, createAttention } from '../../../src/js/index.js';
import { openNpz, openSafetensors, readNpy, readNpz, readSafetensors } from '../../../src/js/io/index.js';
import { expectBadFile, expectBadFileAsync } from '../fixtures/io/expect.js';
import { crc32, npyFile, npzFile, safetensorsFile, tensorBytes, zipFile } from '../fixtures/io/writers.js';

const inBrowser = typeof window !== 'undefined';
const npy = npyFile({ shape: [2, 2], values: [1, 2, 3, 4] });
const st = () => safetensorsFile([{ name: 'a', dtype: 'F32', shape: [2], bytes: tensorBytes('F32', [3, 4]) }]);

/** Transfers the buffer under `bytes` away (as postMessage does), leaving `bytes` detached; returns it. */
function detach(bytes) {
  const buffer = bytes instanceof ArrayBuffer ? bytes : bytes.buffer;
  structuredClone(buffer, { transfer: [buffer] });
  return bytes;
}

describe('bytes that can no longer be read', () => {
  it.each([
    ['readNpy', (b) => readNpy(b), () => npy.slice()],
    ['readNpz', (b) => readNpz(b), () => npzFile({ q: npy })],
    ['openNpz', (b) => openNpz(b), () => npzFile({ q: npy })],
    ['readSafetensors', (b) => readSafetensors(b), st],
    ['openSafetensors', (b) => openSafetensors(b), st],
  ])('%s: a detached ArrayBuffer, and a view of one, raise BAD_FILE naming it', async (fn, call, make) => {
    for (const form of [(bytes) => detach(bytes.buffer), (bytes) => detach(bytes)]) {
      const bytes = await make();
      let error;
      try {
        await call(form(bytes));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.code).toBe('BAD_FILE');
      expect(error.message).toContain(fn);
      expect(error.message).toContain('detached');
    }
  });

  it('readNpz and openNpz: a buffer detached while they read (after an await) raises BAD_FILE', async () => {
    for (const method of [0, 8]) {
      const bytes = await npzFile({ q: npy, k: npy, v: npy }, { method });
      const reading = readNpz(bytes);
      detach(bytes);
      await expectBadFileAsync(reading, 'detached');
      const other = await npzFile({ q: npy, k: npy }, { method });
      const opened = await openNpz(other);
      detach(other);
      await expectBadFileAsync(opened.read('k'), 'zip member "k.npy"', 'detached');
    }
  });

  it('openSafetensors: bytes detached after it opened them raise BAD_FILE on read', async () => {
    const bytes = st();
    const opened = await openSafetensors(bytes);
    const reading = opened.read('a');
    detach(bytes);
    await expectBadFileAsync(reading, 'tensor "a"', 'detached');
  });

  it('readNpz, openNpz and openSafetensors: a File changed on disk after it was picked raises BAD_FILE', async () => {
    const npz = await npzFile({ q: npy });
    const changed = await changedFile(npz, 'io-changed.npz');
    for (const read of [readNpz, openNpz]) {
      const error = await expectBadFileAsync(read(changed), 'could not be read', 'NotReadableError');
      expect(error.cause?.name).toBe('NotReadableError');
    }
    await expectBadFileAsync(openSafetensors(await changedFile(st(), 'io-changed.safetensors')), 'could not be read');
  });
});

/**
 * A File (in Node, fs.openAsBlob's Blob) backed by a file on disk holding `bytes`, which is then rewritten: in
 * Chromium picked through a real <input type=file> (Playwright's setInputFiles) and rewritten by Vitest's command.
 */
async function changedFile(bytes, name) {
  const path = `tests/artifacts/${name}`;
  if (!inBrowser) {
    const { mkdirSync, openAsBlob, writeFileSync } = await import('node:fs');
    mkdirSync('tests/artifacts', { recursive: true });
    writeFileSync(path, bytes);
    const blob = await openAsBlob(path);
    writeFileSync(path, new Uint8Array(bytes.length + 1));
    return blob;
  }
  const { commands, userEvent } = await import('vitest/browser');
  const base64 = (data) => btoa(Array.from(data, (b) => String.fromCharCode(b)).join(''));
  await commands.writeFile(path, base64(bytes), 'base64');
  const input = document.body.appendChild(Object.assign(document.createElement('input'), { type: 'file' }));
  await userEvent.upload(input, path);
  const [file] = input.files;
  input.remove();
  expect(file.size).toBe(bytes.length);
  await commands.writeFile(path, base64(new Uint8Array(bytes.length + 1)), 'base64');
  return file;
}

describe('an .npz of 65 535 arrays, as numpy.savez writes it (end record count 0xFFFF, no ZIP64 record)', () => {
  it('is read whole and opened, every array in order', { timeout: 120_000 }, async () => {
    // Every array holds 7 but three, which hold their index (writing 65 535 distinct files would take seconds).
    const seven = npyFile({ shape: [1], values: [7] });
    const marked = new Map([0, 40000, 65534].map((i) => [i, npyFile({ shape: [1], values: [i] })]));
    const crc = crc32(seven);
    const member = (i) =>
      marked.has(i)
        ? { name: `arr_${i}.npy`, data: marked.get(i), method: 0, zip64: true }
        : { name: `arr_${i}.npy`, data: seven, method: 0, zip64: true, crc };
    const file = zipFile(Array.from({ length: 65535 }, (_, i) => member(i)));
    const view = new DataView(file.buffer);
    const end = file.length - 22;
    expect(view.getUint16(end + 10, true)).toBe(0xffff); // the end record's count
    expect(view.getUint32(end - 20, true)).not.toBe(0x07064b50); // and no ZIP64 locator before it
    const arrays = await readNpz(file);
    const keys = Object.keys(arrays);
    expect(keys.length).toBe(65535);
    expect([keys[0], keys[65534]]).toEqual(['arr_0', 'arr_65534']);
    expect([arrays.arr_0, arrays.arr_1, arrays.arr_65534].map((t) => t.data[0])).toEqual([0, 7, 65534]);
    const opened = await openNpz(file);
    expect(opened.arrays.length).toBe(65535);
    expect(opened.arrays[40000]).toEqual({ name: 'arr_40000', dtype: '<f4', shape: [1] });
    expect(Array.from((await opened.read('arr_40000')).data)).toEqual([40000]);
  });

  it('still refuses a size or offset of 0xFFFFFFFF with no ZIP64 locator', async () => {
    const file = zipFile([{ name: 'q.npy', data: npy, method: 0 }]);
    new DataView(file.buffer).setUint32(file.length - 22 + 16, 0xffffffff, true);
    await expectBadFileAsync(readNpz(file), 'no ZIP64 locator');
  });
});

describe('boolean and integer arrays read as typed arrays of their kind', () => {
  const cases = [
    ['|b1', [1, 0, 1, 1], Uint8Array, [1, 0, 1, 1]],
    ['|i1', [-128, 0, 5, 127], Int32Array],
    ['|u1', [0, 1, 200, 255], Int32Array],
    ['<i2', [-32768, 0, 7, 32767], Int32Array],
    ['>u2', [0, 1, 40000, 65535], Int32Array],
    ['<i4', [-(2 ** 31), 0, 1, 2 ** 31 - 1], Int32Array],
    ['>i4', [-5, 0, 1, 6], Int32Array],
    ['<u4', [0, 1, 2, 2 ** 31 - 1], Int32Array],
    ['<u4', [0, 1, 2, 2 ** 32 - 1], BigInt64Array, [0n, 1n, 2n, 2n ** 32n - 1n]],
    ['<i8', [1, 1, 0, 0], Int32Array],
    ['>i8', [-(2 ** 31), 2 ** 31 - 1, 0, 1], Int32Array],
    ['<i8', [-(2n ** 63n), 2n ** 31n, 0, 1], BigInt64Array, [-(2n ** 63n), 2n ** 31n, 0n, 1n]],
    ['<u8', [3, 0, 1, 2], Int32Array],
    ['<u8', [2n ** 63n - 1n, 0, 1, 2], BigInt64Array, [2n ** 63n - 1n, 0n, 1n, 2n]],
    ['>u8', [2n ** 64n - 1n, 0, 1, 2], BigUint64Array, [2n ** 64n - 1n, 0n, 1n, 2n]],
  ];

  it.each(cases)('readNpy case %#, %s: the right typed array', (descr, values, Type, expected = values) => {
    for (const [fortran, version] of [
      [false, 1],
      [true, 3],
    ]) {
      const tensor = readNpy(npyFile({ descr, shape: [2, 2], values, fortran, version }));
      expect(tensor).toBeInstanceOf(Tensor);
      expect(tensor.data).toBeInstanceOf(Type);
      expect(tensor.shape).toEqual([2, 2]);
      expect(Array.from(tensor.data)).toEqual(expected);
    }
  });

  it('reads any non-zero bool byte as 1, and round-trips random int64 values exactly', () => {
    const file = npyFile({ descr: '|b1', shape: [3], values: [0, 2, 255] });
    expect(Array.from(readNpy(file).data)).toEqual([0, 1, 1]);
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    fc.assert(
      fc.property(fc.array(int64, { minLength: 1, maxLength: 9 }), fc.boolean(), (values, big) => {
        const data = readNpy(npyFile({ descr: big ? '>i8' : '<i8', shape: [values.length], values })).data;
        const fits = values.every((v) => v >= -(2n ** 31n) && v < 2n ** 31n);
        expect(data).toBeInstanceOf(fits ? Int32Array : BigInt64Array);
        expect(Array.from(data, BigInt)).toEqual(values);
      }),
      { numRuns: 200 },
    );
  });

  it('readNpz, openNpz and the safetensors readers read them too, and list them with their dtype', async () => {
    const mask = npyFile({ descr: '|b1', shape: [2, 2], values: [1, 0, 1, 1] });
    const ids = npyFile({ descr: '<i8', shape: [1, 2], values: [101, 2023] });
    const file = await npzFile({ mask, ids }, { method: 8 });
    const arrays = await readNpz(file);
    expect([arrays.mask.data, arrays.ids.data].map((d) => d.constructor)).toEqual([Uint8Array, Int32Array]);
    const opened = await openNpz(file);
    expect(opened.arrays).toEqual([
      { name: 'mask', dtype: '|b1', shape: [2, 2] },
      { name: 'ids', dtype: '<i8', shape: [1, 2] },
    ]);
    expect(Array.from((await opened.read('ids')).data)).toEqual([101, 2023]);
    const tensors = [
      { name: 'm', dtype: 'BOOL', shape: [2], bytes: tensorBytes('BOOL', [1, 0]) },
      { name: 'i', dtype: 'I64', shape: [2], bytes: tensorBytes('I64', [-1, 2n ** 40n]) },
      { name: 'u', dtype: 'U16', shape: [1], bytes: tensorBytes('U16', [65535]) },
    ];
    const read = readSafetensors(safetensorsFile(tensors));
    expect(Object.values(read).map((t) => [t.data.constructor, Array.from(t.data)])).toEqual([
      [Uint8Array, [1, 0]],
      [BigInt64Array, [-1n, 2n ** 40n]],
      [Int32Array, [65535]],
    ]);
    expect(Array.from((await (await openSafetensors(new Blob([safetensorsFile(tensors)]))).read('m')).data)).toEqual([
      1, 0,
    ]);
  });

  it('still refuses other dtypes, naming what they hold', () => {
    for (const [descr, word] of [
      ['<c8', 'a complex array'],
      ['<U3', 'a unicode string array'],
      ['<b1', 'bool'],
      ['=i4', "byte order '='"],
      ['|i4', "byte order '|'"],
    ]) {
      const header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (1,), }`;
      expectBadFile(() => readNpy(npyFile({ header, shape: [1], values: [0] })), word);
    }
  });

  it('a Tensor of BigInt64Array data prints as nested bigints and as JSON strings', () => {
    const tensor = readNpy(npyFile({ descr: '<i8', shape: [1, 2], values: [2n ** 40n, -3] }));
    expect(tensor.toArray()).toEqual([[2n ** 40n, -3n]]);
    expect(tensor.toArray(2)).toEqual([[2n ** 40n, -3n]]);
    expect(JSON.parse(JSON.stringify(tensor))).toEqual({ shape: [1, 2], data: ['1099511627776', '-3'] });
  });
});

describe('bool and integer masks from files are boolean masks to the API', () => {
  const x = [
    [1, 0],
    [0.5, 2],
    [-1, 1],
  ];
  const allowed = [
    [true, false, true],
    [true, true, false],
    [false, true, true],
  ];
  const flat = allowed.flat().map(Number);

  it('a |b1 or int64 mask gives the weights of the same boolean mask; a float 0/1 mask stays additive', async () => {
    const attn = await createAttention();
    const weights = (mask) => Array.from(attn.scaledDotProductAttention(x, x, x, { mask }).weights.data);
    const expected = weights(allowed);
    for (const descr of ['|b1', '<i8', '>i4', '|u1']) {
      expect(weights(readNpy(npyFile({ descr, shape: [3, 3], values: flat })))).toEqual(expected);
    }
    const npz = await readNpz(await npzFile({ m: npyFile({ descr: '<i8', shape: [1, 3], values: [1, 1, 0] }) }));
    expect(weights(npz.m)).toEqual(weights([[true, true, false]]));
    const float = readNpy(npyFile({ descr: '<f4', shape: [3, 3], values: flat }));
    expect(weights(float)).not.toEqual(expected); // 0 and 1 added to the scores
    expect(weights(float)).toEqual(weights(allowed.map((row) => row.map(Number))));
  });

  it('takes integer typed arrays as a mask in every form, and refuses values other than 0 and 1', async () => {
    const attn = await createAttention();
    const weights = (mask) => Array.from(attn.scaledDotProductAttention(x, x, x, { mask }).weights.data);
    const expected = weights(allowed);
    const forms = [
      { data: BigInt64Array.from(flat, BigInt), dims: [3, 3] }, // transformers.js' int64 attention_mask
      { data: Int32Array.from(flat), shape: [3, 3] },
      allowed.map((row) => Uint16Array.from(row, Number)),
    ];
    for (const mask of forms) expect(weights(mask)).toEqual(expected);
    const bad = { data: BigInt64Array.of(1n, 2n, 1n), shape: [1, 3] };
    expect(() => weights(bad)).toThrow(
      expect.objectContaining({
        code: 'NOT_A_NUMBER',
        message: expect.stringContaining('mask.data[1] is the bigint 2n'),
      }),
    );
    expect(() =>
      attn.scaledDotProductAttention({ data: Int32Array.of(1, 0), shape: [1, 2] }, [[1, 0]], [[1, 0]]),
    ).toThrow(expect.objectContaining({ code: 'NOT_A_TENSOR' }));
  });
});
