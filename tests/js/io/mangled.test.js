// A corpus of mangled files: small valid .npy, .npz and .safetensors files cut at every length and with
// bytes flipped. Every outcome is either well-formed Tensors (float32, or bool and integer data) or an
// AttentionError with code BAD_FILE: never another error type, and never a hang (bounded by the runner's timeout).
import { describe, expect, it } from 'vitest';
import { AttentionError, Tensor } from '../../../src/js/index.js';
import { openNpz, openSafetensors, readNpy, readNpz, readSafetensors } from '../../../src/js/io/index.js';
import { npyFile, npzFile, safetensorsFile, tensorBytes } from '../fixtures/io/writers.js';

const FLIPS = [0xff, 0x01, 0x20, 0x80];

function checkTensor(tensor) {
  expect(tensor).toBeInstanceOf(Tensor);
  const kinds = [Float32Array, Uint8Array, Int32Array, BigInt64Array, BigUint64Array];
  expect(kinds.some((Type) => tensor.data instanceof Type)).toBe(true);
  expect(tensor.shape.length).toBeGreaterThan(0);
  expect(tensor.shape.every((d) => Number.isInteger(d) && d > 0)).toBe(true);
  expect(tensor.data.length).toBe(tensor.shape.reduce((a, b) => a * b, 1));
}

/** Runs `read` on `bytes`; returns 'ok' (results checked) or 'bad' (a BAD_FILE error); anything else fails. */
async function outcome(read, bytes, label) {
  try {
    const result = await read(bytes);
    for (const tensor of result instanceof Tensor ? [result] : Object.values(result)) checkTensor(tensor);
    return 'ok';
  } catch (error) {
    if (!(error instanceof AttentionError) || error.code !== 'BAD_FILE') {
      throw new Error(`${label}: ${error?.name} ${error?.code ?? ''}: ${error?.message}`, { cause: error });
    }
    expect(error.message.length, label).toBeLessThan(500);
    return 'bad';
  }
}

/** Every prefix of `file` (all must fail), then each byte of `range` flipped by each of FLIPS. */
async function mangle(read, file, range = [0, file.length]) {
  for (let length = 0; length < file.length; length++) {
    expect(await outcome(read, file.slice(0, length), `cut at ${length}`), `cut at ${length}`).toBe('bad');
  }
  const counts = { ok: 0, bad: 0 };
  for (let at = range[0]; at < range[1]; at++) {
    for (const flip of FLIPS) {
      const copy = file.slice();
      copy[at] ^= flip;
      counts[await outcome(read, copy, `byte ${at} ^ 0x${flip.toString(16)}`)]++;
    }
  }
  expect(await outcome(read, file, 'the valid file')).toBe('ok');
  return counts;
}

const values = [1, -2, 0.5, 3, 1e-3, -0];
const headerEnd = (npy) => 10 + (npy[8] | (npy[9] << 8));

describe('mangled files give a Tensor or BAD_FILE, nothing else', () => {
  it('.npy version 1, 2 and 3, C and Fortran order, float, bool and int64', { timeout: 60_000 }, async () => {
    const variants = [
      [{ descr: '<f4' }, 2],
      [{ descr: '>f8', fortran: true, version: 2 }, 4],
      [{ descr: '<f2', version: 3 }, 4],
      [{ descr: '|b1' }, 2],
      [{ descr: '>i8', fortran: true }, 2],
    ];
    const integers = [1, 0, 1, 1, 0, 2];
    for (const [options, lengthBytes] of variants) {
      const kind = options.descr.slice(1);
      const raw =
        kind === 'f2' ? [0x3c00, 0xc000, 0x3800, 0x4200, 0x1419, 0x8000] : kind[0] === 'f' ? values : integers;
      const file = npyFile({ ...options, shape: [2, 3], values: raw });
      const end = lengthBytes === 2 ? headerEnd(file) : 12 + (file[8] | (file[9] << 8));
      const counts = await mangle(readNpy, file, [0, end]);
      expect(counts.bad).toBeGreaterThan(0);
    }
  });

  const npzCases = [
    ['read whole', { method: 0 }],
    ['read whole', { method: 8 }],
    ['read whole', { method: 8, zip64: false, descriptor: true, zip64End: true }],
    ['opened', { method: 0 }],
    ['opened', { method: 8 }],
  ];
  it.each(npzCases)('.npz %s: %j', { timeout: 60_000 }, async (how, options) => {
    const openAll = async (bytes) => {
      const opened = await openNpz(bytes);
      return Object.fromEntries(await Promise.all(opened.arrays.map(async (a) => [a.name, await opened.read(a.name)])));
    };
    const file = await npzFile({ q: npyFile({ shape: [2, 3], values }) }, options);
    const counts = await mangle(how === 'opened' ? openAll : readNpz, file);
    expect(counts.bad).toBeGreaterThan(0);
  });

  it('.safetensors, read whole and opened from a Blob', { timeout: 60_000 }, async () => {
    const file = safetensorsFile(
      [
        { name: 'a', dtype: 'F32', shape: [2, 3], bytes: tensorBytes('F32', values) },
        { name: 'b', dtype: 'BF16', shape: [2], bytes: tensorBytes('BF16', [0x3f80, 0xc000]) },
      ],
      { metadata: { format: 'pt' } },
    );
    const headerBytes = 8 + Number(new DataView(file.buffer).getBigUint64(0, true));
    const counts = await mangle(readSafetensors, file, [0, headerBytes]);
    expect(counts.bad).toBeGreaterThan(0);
    const openAll = async (bytes) => {
      const opened = await openSafetensors(new Blob([bytes]));
      return Object.fromEntries(
        await Promise.all(opened.tensors.map(async (t) => [t.name, await opened.read(t.name)])),
      );
    };
    await mangle(openAll, file, [0, headerBytes]);
  });
});
