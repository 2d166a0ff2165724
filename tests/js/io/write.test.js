// writeNpz and writeSafetensors (attention-wasm/io): named tensors written as .npz and .safetensors are read back
// the same by readNpz/openNpz and readSafetensors/openSafetensors (fast-check over dtypes, shapes and values, NaN,
// ±Infinity and −0 included), by NumPy (Debian's python3-numpy, in Node: numpy.load and a reader of the safetensors
// format of its own), and a safetensors file equals, byte for byte, the one the test's own writer makes from the
// format (fixtures/io/writers.js). Bad input is an AttentionError with a code and a message that names the tensor.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AttentionError, Tensor } from '../../../src/js/index.js';
import {
  openNpz,
  openSafetensors,
  readNpz,
  readSafetensors,
  writeNpz,
  writeSafetensors,
} from '../../../src/js/io/index.js';
import { safetensorsFile, tensorBytes } from '../fixtures/io/writers.js';

const inNode = typeof window === 'undefined' && typeof process !== 'undefined' && Boolean(process.versions?.node);
const ARRAYS = { f4: Float32Array, f8: Float64Array, i4: Int32Array, i8: BigInt64Array };
const size = (shape) => shape.reduce((a, b) => a * b, 1);

/** A tensor of a kind with random values (any float64 for f8, its float32 rounding for f4), as the writers take it. */
const tensorArb = fc
  .record({
    kind: fc.constantFrom('f4', 'f8', 'i4', 'i8'),
    shape: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 4 }),
  })
  .chain(({ kind, shape }) => {
    const value = {
      f4: fc.double().map(Math.fround),
      f8: fc.double(),
      i4: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      i8: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    }[kind];
    const count = size(shape);
    return fc
      .array(value, { minLength: count, maxLength: count })
      .map((values) => ({ kind, shape, data: ARRAYS[kind].from(values) }));
  });

/** What the readers give for a written tensor: float32 for floats, Int32Array for integers that fit, else BigInt64Array. */
function readBack({ kind, data }) {
  if (kind === 'f4' || kind === 'f8') return { Type: Float32Array, values: Array.from(data, Math.fround) };
  const fits = Array.from(data).every((x) => x >= -(2 ** 31) && x <= 2 ** 31 - 1);
  return fits
    ? { Type: Int32Array, values: Array.from(data, Number) }
    : { Type: BigInt64Array, values: Array.from(data) };
}

/** Expects the readers' tensors to hold exactly what was written (NaN equals NaN, +0 differs from −0). */
function expectReadBack(read, cases) {
  expect(Object.keys(read)).toEqual(cases.map((_, i) => `t${i}`));
  cases.forEach((c, i) => {
    const { Type, values } = readBack(c);
    expect(read[`t${i}`]).toBeInstanceOf(Tensor);
    expect(read[`t${i}`].data).toBeInstanceOf(Type);
    expect(read[`t${i}`].shape).toEqual(c.shape);
    expect(Array.from(read[`t${i}`].data)).toEqual(values);
  });
}

const named = (cases) => Object.fromEntries(cases.map((c, i) => [`t${i}`, { data: c.data, shape: c.shape }]));

describe('writeNpz and writeSafetensors: read back by attention-wasm/io', () => {
  it('random tensors of every dtype round-trip through readNpz and readSafetensors', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tensorArb, { minLength: 1, maxLength: 5 }), async (cases) => {
        const npz = writeNpz(named(cases));
        expect(npz).toBeInstanceOf(Uint8Array);
        expectReadBack(await readNpz(npz), cases);
        expectReadBack(readSafetensors(writeSafetensors(named(cases))), cases);
      }),
      { numRuns: 150 },
    );
  });

  it('NaN, ±Infinity and −0 are written as they are, and the file lists dtypes and shapes', async () => {
    const special = new Float32Array([NaN, Infinity, -Infinity, -0, 0, 3.4e38, 1e-45]);
    const tensors = { x: { data: special, shape: [7] }, ids: { data: Int32Array.of(5, 1, 7), shape: [1, 3] } };
    const fromNpz = await openNpz(writeNpz(tensors));
    expect(fromNpz.arrays).toEqual([
      { name: 'x', dtype: '<f4', shape: [7] },
      { name: 'ids', dtype: '<i4', shape: [1, 3] },
    ]);
    expect(Array.from((await fromNpz.read('x')).data)).toEqual(Array.from(special));
    const fromSafetensors = await openSafetensors(writeSafetensors(tensors, { metadata: { format: 'pt' } }));
    expect(fromSafetensors.tensors).toEqual([
      { name: 'x', dtype: 'F32', shape: [7] },
      { name: 'ids', dtype: 'I32', shape: [1, 3] },
    ]);
    expect(fromSafetensors.metadata).toEqual({ format: 'pt' });
    expect(Array.from((await fromSafetensors.read('x')).data)).toEqual(Array.from(special));
  });

  it('takes a Tensor, { data, dims }, a bare typed array, a Map or [name, tensor] pairs, in their order', async () => {
    const t = new Tensor(Float32Array.of(1, 2, 3, 4), [2, 2]);
    const pairs = [
      ['z', t],
      ['0', { data: Float64Array.of(0.5), dims: [1] }],
      ['__proto__', Int32Array.of(9, 8)],
      ['é/ü 名', new Float32Array([7])],
    ];
    const expected = {
      z: [
        [2, 2],
        [1, 2, 3, 4],
      ],
      0: [[1], [0.5]],
      ['__proto__']: [[2], [9, 8]],
      'é/ü 名': [[1], [7]],
    };
    for (const input of [pairs, new Map(pairs)]) {
      for (const read of [await readNpz(writeNpz(input)), readSafetensors(writeSafetensors(input))]) {
        expect(Object.keys(read).sort()).toEqual(pairs.map(([name]) => name).sort());
        for (const [name, [shape, values]] of Object.entries(expected)) {
          expect(Object.getOwnPropertyDescriptor(read, name).value.shape).toEqual(shape);
          expect(Array.from(Object.getOwnPropertyDescriptor(read, name).value.data)).toEqual(values);
        }
      }
      // The file's order is the order given (readers list tensors in the file's order).
      expect((await openNpz(writeNpz(input))).arrays.map((a) => a.name)).toEqual(pairs.map(([name]) => name));
      expect((await openSafetensors(writeSafetensors(input))).tensors.map((a) => a.name)).toEqual(
        pairs.map(([name]) => name),
      );
    }
    expect(await readNpz(writeNpz({}))).toEqual({});
    expect(readSafetensors(writeSafetensors([]))).toEqual({});
  });

  it('a safetensors file is byte for byte the format as the test writer lays it out; the same input, the same bytes', async () => {
    const a = Float32Array.of(1.5, -2, 0.25, 8, 9, 10);
    const written = writeSafetensors(
      { a: { data: a, shape: [2, 3] }, b: { data: Float64Array.of(0.1), shape: [1] } },
      { metadata: { format: 'pt', source: 'attention-wasm' } },
    );
    const expected = safetensorsFile(
      [
        { name: 'a', dtype: 'F32', shape: [2, 3], bytes: tensorBytes('F32', Array.from(a)) },
        { name: 'b', dtype: 'F64', shape: [1], bytes: tensorBytes('F64', [0.1]) },
      ],
      { metadata: { format: 'pt', source: 'attention-wasm' } },
    );
    expect(Array.from(written)).toEqual(Array.from(expected));
    const npz = () => writeNpz({ a: { data: a, shape: [3, 2] } });
    expect(Array.from(npz())).toEqual(Array.from(npz()));
  });

  it('65 535 arrays: the count goes into a ZIP64 end record, and readNpz reads them all', async () => {
    const count = 0xffff;
    const pairs = Array.from({ length: count }, (_, i) => [`a${i}`, Int32Array.of(i)]);
    const file = writeNpz(pairs);
    const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
    expect(view.getUint32(file.length - 22, true)).toBe(0x06054b50);
    expect(view.getUint16(file.length - 22 + 10, true)).toBe(0xffff);
    expect(view.getUint32(file.length - 22 - 20, true)).toBe(0x07064b50); // the ZIP64 locator
    const read = await readNpz(file);
    expect(Object.keys(read)).toHaveLength(count);
    expect(read.a65534.data).toEqual(Int32Array.of(65534));
    const small = writeNpz({ a: Int32Array.of(1) });
    expect(new DataView(small.buffer).getUint32(small.length - 22 - 20, true)).not.toBe(0x07064b50);
  });
});

/** Calls `write` and expects an AttentionError of `code` whose message holds each of `words`. */
function expectError(write, code, ...words) {
  let error;
  try {
    write();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AttentionError);
  expect(error.code).toBe(code);
  for (const word of words) expect(error.message).toContain(word);
  return error;
}

describe('writeNpz and writeSafetensors: bad input', () => {
  const ok = { data: new Float32Array(6), shape: [2, 3] };
  const both = [
    ['writeNpz', (tensors) => writeNpz(tensors)],
    ['writeSafetensors', (tensors) => writeSafetensors(tensors)],
  ];
  for (const [fn, write] of both) {
    it(`${fn}: names that are not strings, empty, given twice or not UTF-8 text are BAD_OPTION`, () => {
      expectError(() => write('x'), 'BAD_OPTION', fn, 'named tensors', 'the string "x"');
      expectError(() => write(null), 'BAD_OPTION', 'named tensors');
      expectError(() => write([['a', ok], ['b']]), 'BAD_OPTION', 'entry 1', 'not a [name, tensor] pair');
      expectError(() => write([[3, ok]]), 'BAD_OPTION', "tensor 0's name is the number 3, not a string");
      expectError(() => write(new Map([[Symbol('s'), ok]])), 'BAD_OPTION', 'the symbol "s"', 'not a string');
      expectError(() => write({ '': ok }), 'BAD_OPTION', 'is empty');
      expectError(
        () =>
          write([
            ['q', ok],
            ['k', ok],
            ['q', ok],
          ]),
        'BAD_OPTION',
        '"q" is given twice (tensors 0 and 2)',
      );
      expectError(() => write({ ['a\uD800']: ok }), 'BAD_OPTION', 'lone surrogate');
      expectError(() => write({ ['a\0b']: ok }), 'BAD_OPTION', 'NUL');
      expectError(() => write(new (class Named {})()), 'BAD_OPTION', 'plain object');
    });

    it(`${fn}: data of another type, bad shapes and a length that differs from the shape name the tensor`, () => {
      expectError(() => write({ q: [1, 2] }), 'NOT_A_TENSOR', 'tensor "q"', 'an array');
      expectError(() => write({ q: 3 }), 'NOT_A_TENSOR', 'tensor "q"', 'the number 3');
      expectError(() => write({ q: { data: [1, 2], shape: [2] } }), 'NOT_A_TENSOR', 'tensor "q"', 'an array');
      expectError(() => write({ q: Uint8Array.of(1) }), 'NOT_A_TENSOR', 'Uint8Array', 'Float32Array, Float64Array');
      expectError(() => write({ q: { data: new Float32Array(2) } }), 'NOT_A_TENSOR', 'tensor "q" has no shape');
      expectError(() => write({ q: { data: new Float32Array(1), shape: [] } }), 'BAD_RANK', 'a scalar');
      const deep = { data: new Float32Array(1), shape: new Array(33).fill(1) };
      expectError(() => write({ q: deep }), 'BAD_RANK', 'rank 33', '1 to 32 dimensions');
      expectError(() => write({ q: { data: new Float32Array(0), shape: [2, 0] } }), 'BAD_DIMENSION', 'q".shape[1]');
      expectError(
        () => write({ q: { data: new Float32Array(3), shape: [2, 1.5] } }),
        'BAD_DIMENSION',
        'the number 1.5',
      );
      expectError(() => write({ q: { data: new Float32Array(3), shape: ['3'] } }), 'BAD_DIMENSION', 'the string "3"');
      expectError(
        () => write({ k: ok, q: { data: new Float32Array(5), shape: [2, 3] } }),
        'DATA_LENGTH_MISMATCH',
        'tensor "q".data has 5 values but shape [2, 3] holds 6',
      );
      const thrown = new Error('no data today');
      const getter = { get data() { throw thrown; }, shape: [1] }; // prettier-ignore
      expect(expectError(() => write({ q: getter }), 'NOT_A_TENSOR', 'tensor "q"', 'getter').cause).toBe(thrown);
    });

    it(`${fn}: a tensor the readers could not read back, or a file of 4 GiB, is TOO_LARGE before any allocation`, () => {
      const tiny = new Float32Array(4);
      expectError(
        () => write({ q: { data: tiny, shape: [2 ** 16, 2 ** 13 + 1] } }),
        'TOO_LARGE',
        'tensor "q"',
        'MAX_CALL_BYTES',
      );
      // Five tensors of 1 GiB each (as float32): each may be read back, the file may not; the data's length is
      // checked after the sizes, so nothing of 5 GiB is needed to ask.
      const huge = Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`t${i}`, { data: tiny, shape: [2 ** 28] }]));
      expectError(() => write(huge), 'TOO_LARGE', fn, 'the file would take', '4 GiB');
    });
  }

  it('writeSafetensors: the name __metadata__, metadata that is not strings, an unknown option', () => {
    expectError(
      () => writeSafetensors({ __metadata__: { data: new Float32Array(1), shape: [1] } }),
      'BAD_OPTION',
      'reserved',
    );
    expectError(
      () => writeSafetensors({}, { metadata: { format: 3 } }),
      'BAD_OPTION',
      'metadata "format" is the number 3',
    );
    expectError(() => writeSafetensors({}, { metadata: 'pt' }), 'BAD_OPTION', 'metadata');
    expectError(() => writeSafetensors({}, { metdata: {} }), 'UNKNOWN_OPTION', "did you mean 'metadata'");
  });

  it('writeNpz: a name longer than a zip name can be', () => {
    expectError(
      () => writeNpz({ ['n'.repeat(65532)]: Int32Array.of(1) }),
      'BAD_OPTION',
      '65536 bytes',
      'at most 65535',
    );
  });
});

/** The first of Debian's python3 and the one on PATH that imports NumPy, or undefined. */
async function pythonWithNumpy() {
  const { execFileSync } = await import(/* @vite-ignore */ 'node:child_process');
  for (const python of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(python, ['-c', 'import numpy'], { stdio: 'ignore' });
      return python;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** The values as read_back.py prints them: NaN, infinities and −0 as strings. */
const asPrinted = (data) =>
  Array.from(data, (x) =>
    typeof x === 'bigint'
      ? Number(x)
      : Number.isNaN(x)
        ? 'nan'
        : x === Infinity
          ? 'inf'
          : x === -Infinity
            ? '-inf'
            : Object.is(x, -0)
              ? '-0'
              : x,
  );

describe.runIf(inNode)('NumPy reads the files (Node, Debian’s python3-numpy)', () => {
  it('numpy.load reads the .npz and numpy.frombuffer the .safetensors: the same names, dtypes, shapes and values', async () => {
    const python = await pythonWithNumpy();
    expect(python, 'no python3 with NumPy here: scripts/setup.sh installs python3-numpy').toBeDefined();
    const { execFileSync } = await import(/* @vite-ignore */ 'node:child_process');
    const { mkdtempSync, rmSync, writeFileSync } = await import(/* @vite-ignore */ 'node:fs');
    const { tmpdir } = await import(/* @vite-ignore */ 'node:os');
    const { fileURLToPath } = await import(/* @vite-ignore */ 'node:url');
    const tensors = {
      attentions: {
        data: Float32Array.from({ length: 2 * 3 * 3 }, (_, i) => Math.fround(i / 7 - 1)),
        shape: [2, 3, 3],
      },
      special: { data: Float32Array.of(NaN, Infinity, -Infinity, -0, 1e-45, 3.4028234663852886e38), shape: [3, 2] },
      wide: { data: Float64Array.of(0.1, -1e300, 5e-324), shape: [3] },
      ids: { data: Int32Array.of(5, -1, 2 ** 31 - 1), shape: [3, 1] },
      long: { data: BigInt64Array.of(-(2n ** 50n), 2n ** 40n), shape: [1, 2] },
      'L0H2 é': { data: Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8), shape: [2, 2, 2] },
    };
    const dtypes = { attentions: '<f4', special: '<f4', wide: '<f8', ids: '<i4', long: '<i8', 'L0H2 é': '<f4' };
    const folder = mkdtempSync(`${tmpdir()}/attention-io-write-`);
    try {
      writeFileSync(`${folder}/run.npz`, writeNpz(tensors));
      writeFileSync(`${folder}/run.safetensors`, writeSafetensors(tensors, { metadata: { format: 'pt' } }));
      const script = fileURLToPath(new URL('../fixtures/io/read_back.py', import.meta.url));
      const printed = execFileSync(python, [script, `${folder}/run.npz`, `${folder}/run.safetensors`], {
        encoding: 'utf8',
      });
      const read = JSON.parse(printed);
      expect(read.zip_ok).toBe(true);
      expect(read.members).toEqual(Object.keys(tensors).map((name) => `${name}.npy`));
      expect(read.metadata).toEqual({ format: 'pt' });
      for (const file of ['npz', 'safetensors']) {
        expect(Object.keys(read[file]).sort()).toEqual(Object.keys(tensors).sort());
        for (const [name, { data, shape }] of Object.entries(tensors)) {
          expect(read[file][name], `${file} ${name}`).toEqual({ dtype: dtypes[name], shape, values: asPrinted(data) });
        }
      }
      // 65 535 arrays: Python's zipfile finds the count in the ZIP64 end record.
      const many = Array.from({ length: 0xffff }, (_, i) => [`a${i}`, Int32Array.of(i)]);
      writeFileSync(`${folder}/many.npz`, writeNpz(many));
      const count = execFileSync(
        python,
        ['-c', `import numpy as np; z = np.load('${folder}/many.npz'); print(len(z.files), int(z['a65534'][0]))`],
        { encoding: 'utf8' },
      );
      expect(count.trim()).toBe('65535 65534');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
