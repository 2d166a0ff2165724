// The module as a whole: which build runs, memory growth and reuse, JS-owned results, long sequences.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Tensor, createAttention, simdSupported } from '../../src/js/index.js';
import { VARIANTS, expectClose, randomTensor, referenceAttention, seededRandom } from './reference.js';
import { goldenOutput, I2, weights } from './worked-example.js';

const inBrowser = typeof window !== 'undefined';

describe('builds', () => {
  it('this engine has WebAssembly SIMD, and the default build uses it', async () => {
    expect(simdSupported()).toBe(true);
    const attn = await createAttention();
    expect(attn.simd).toBe(true);
  });

  it("the SIMD build's kernels were compiled for WebAssembly SIMD128, and Eigen's projections are vectorized", async () => {
    const attn = await createAttention({ simd: true });
    // What the module's kernels were built with (vec4.h's backend), not what a compile flag tells Eigen.
    expect(attn.kernelBackend).toBe('wasm-simd128');
    expect(attn.simd).toBe(true);
    expect(attn.instructionSets).toContain('SSE2');
  });

  it('the scalar build runs without SIMD', async () => {
    const attn = await createAttention({ simd: false });
    expect(attn.kernelBackend).toBe('scalar');
    expect(attn.simd).toBe(false);
    expect(attn.instructionSets).toBe('None');
  });

  it('kernelBackend is read-only', async () => {
    const attn = await createAttention({ simd: false });
    expect(() => {
      attn.kernelBackend = 'wasm-simd128';
    }).toThrow(TypeError);
    expect(attn.kernelBackend).toBe('scalar');
  });

  it('where WebAssembly SIMD is missing, createAttention() picks the scalar build by itself', async () => {
    const validate = vi.spyOn(WebAssembly, 'validate').mockReturnValue(false);
    try {
      expect(simdSupported()).toBe(false);
      const attn = await createAttention();
      expect(attn.simd).toBe(false);
      expect(attn.kernelBackend).toBe('scalar');
      const s = attn.selfAttention(I2, weights);
      expectClose(s.output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
      await expect(createAttention({ simd: true })).rejects.toMatchObject({ code: 'SIMD_UNSUPPORTED' });
    } finally {
      validate.mockRestore();
    }
  });

  it('the two builds agree to 1e-6', async () => {
    const [simd, scalar] = await Promise.all([createAttention({ simd: true }), createAttention({ simd: false })]);
    const random = seededRandom(3);
    const q = randomTensor(random, [2, 3, 33, 17]);
    const k = randomTensor(random, [2, 3, 31, 17]);
    const v = randomTensor(random, [2, 3, 31, 9]);
    const a = simd.scaledDotProductAttention(q, k, v, { causal: 'bottom-right' });
    const b = scalar.scaledDotProductAttention(q, k, v, { causal: 'bottom-right' });
    expectClose(a.output.data, b.output.data, { atol: 1e-6, rtol: 0, what: 'output' });
    expectClose(a.weights.data, b.weights.data, { atol: 1e-6, rtol: 0, what: 'weights' });
  });
});

/** A build's .wasm file, as bytes (fetched in a browser, read in Node). */
async function wasmBytes(build) {
  const url = new URL(`../../src/js/wasm/attention-${build}.wasm`, import.meta.url);
  if (inBrowser) return new Uint8Array(await (await fetch(url)).arrayBuffer());
  const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
  return new Uint8Array(await readFile(url));
}

// Each test loads modules several times: give them room on a busy machine.
describe('loading: wasmUrl forms, one compile per page, attention-wasm/inline', () => {
  const expected = async (simd) => (await createAttention({ simd })).selfAttention(I2, weights).output.data;

  it('accepts the bytes, an ArrayBuffer, a compiled WebAssembly.Module and { simd, scalar }; simd tells the build', async () => {
    const [simdBytes, scalarBytes] = await Promise.all([wasmBytes('simd'), wasmBytes('scalar')]);
    const cases = [
      [{ wasmUrl: simdBytes }, true],
      [{ wasmUrl: scalarBytes.buffer, simd: false }, false],
      [{ wasmUrl: await WebAssembly.compile(scalarBytes), simd: false }, false],
      [{ wasmUrl: { simd: simdBytes, scalar: scalarBytes } }, true],
      [{ wasmUrl: { simd: simdBytes, scalar: scalarBytes }, simd: false }, false],
      [{ wasmUrl: { scalar: scalarBytes } }, true], // the SIMD build from next to the package
    ];
    for (const [options, simd] of cases) {
      const attn = await createAttention(options);
      expect(attn.simd).toBe(simd);
      expect(attn.kernelBackend).toBe(simd ? 'wasm-simd128' : 'scalar');
      expect(attn.selfAttention(I2, weights).output.data).toEqual(await expected(simd));
    }
  });

  it('the bytes of the other build than the one asked for are a LOAD_FAILED, never a wrong simd', async () => {
    const error = await createAttention({ wasmUrl: await wasmBytes('scalar') }).catch((e) => e);
    expect(error.code).toBe('LOAD_FAILED');
    expect(error.message).toMatch(/is the scalar build, not the simd build.*simd: false/);
  });

  it('bytes that are not WebAssembly are a LOAD_FAILED saying so', async () => {
    const error = await createAttention({ wasmUrl: new Uint8Array([1, 2, 3]) }).catch((e) => e);
    expect(error.code).toBe('LOAD_FAILED');
    expect(error.message).toMatch(/^the 3 bytes given as wasmUrl is not a WebAssembly module/);
  });

  it('many createAttention() calls, workers included, compile a URL once', async () => {
    const url = new URL('../../src/js/wasm/attention-simd.wasm', import.meta.url);
    url.hash = `once-${Math.random()}`; // a URL no other test compiled
    const compile = vi.spyOn(WebAssembly, 'compile');
    const streaming = vi.spyOn(WebAssembly, 'compileStreaming');
    try {
      const all = await Promise.all([
        ...Array.from({ length: 5 }, () => createAttention({ wasmUrl: url })),
        createAttention({ wasmUrl: url, workers: 2 }),
      ]);
      expect(compile.mock.calls.length + streaming.mock.calls.length).toBe(1);
      for (const attn of all) expect((await attn.selfAttention(I2, weights)).output.data).toEqual(await expected(true));
      await all.at(-1).terminate();
    } finally {
      compile.mockRestore();
      streaming.mockRestore();
    }
  });

  it('attention-wasm/inline: the same API and bits, SIMD where supported, scalar when asked', async () => {
    const inline = await import('../../src/js/inline.js');
    expect(Object.keys(inline).sort()).toEqual(Object.keys(await import('../../src/js/index.js')).sort());
    for (const simd of [undefined, false]) {
      const attn = await inline.createAttention(simd === undefined ? {} : { simd });
      expect(attn.simd).toBe(simd ?? simdSupported());
      expect(attn.selfAttention(I2, weights).output.data).toEqual(await expected(simd ?? simdSupported()));
    }
  });
});

describe.each(VARIANTS)('memory and ownership ($name build)', ({ simd }) => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention({ simd });
  });

  it('results are Tensors owned by JS: not views into WebAssembly memory', () => {
    const s = attn.selfAttention(I2, weights);
    for (const t of Object.values(s)) {
      expect(t).toBeInstanceOf(Tensor);
      expect(t.data).toBeInstanceOf(Float32Array);
      expect(t.data.byteOffset).toBe(0);
      expect(t.data.buffer.byteLength).toBe(t.data.length * 4);
    }
    expect(s.output.toArray()[1][0]).toBeCloseTo(2.3395231, 6);
  });

  it('results stay right, and earlier results stay readable, after WebAssembly memory grows', () => {
    const before = attn.selfAttention(I2, weights);
    const memory = attn.memoryBytes;
    const random = seededRandom(5);
    const n = 1500; // weights and steps: 4 × 1500² floats = 36 MB, more than the initial 16 MB
    const q = randomTensor(random, [n, 8]);
    const big = attn.selfAttention(q, {
      wq: randomTensor(random, [8, 8]),
      wk: randomTensor(random, [8, 8]),
      wv: randomTensor(random, [8, 4]),
    });
    expect(attn.memoryBytes).toBeGreaterThan(memory);
    expect(big.weights.data.length).toBe(n * n);
    let rowSum = 0;
    for (let j = 0; j < n; j++) rowSum += big.weights.data[(n - 1) * n + j];
    expect(rowSum).toBeCloseTo(1, 4);
    expectClose(before.output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
    const after = attn.selfAttention(I2, weights);
    expectClose(after.output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
  });

  it('10 000 calls do not grow memory, and the heap returns to its baseline', () => {
    const random = seededRandom(7);
    const q = randomTensor(random, [16, 16]);
    const k = randomTensor(random, [16, 16]);
    const v = randomTensor(random, [16, 16]);
    attn.scaledDotProductAttention(q, k, v);
    const memory = attn.memoryBytes;
    const heap = attn.heapBytesInUse();
    let last;
    for (let i = 0; i < 10000; i++) last = attn.scaledDotProductAttention(q, k, v, { causal: i % 2 === 0 });
    expect(attn.memoryBytes).toBe(memory);
    expect(attn.heapBytesInUse()).toBe(heap);
    expect(last.output.data.every(Number.isFinite)).toBe(true);
  });

  it('returnWeights: false returns only the output, and matches the full path', () => {
    const random = seededRandom(9);
    const q = randomTensor(random, [2, 200, 16]);
    const k = randomTensor(random, [2, 300, 16]);
    const v = randomTensor(random, [2, 300, 8]);
    const full = attn.scaledDotProductAttention(q, k, v, { causal: 'bottom-right' });
    const lean = attn.scaledDotProductAttention(q, k, v, { causal: 'bottom-right', returnWeights: false });
    expect(Object.keys(lean)).toEqual(['output']);
    expectClose(lean.output.data, full.output.data, { atol: 1e-5, rtol: 0 });
    const s = attn.selfAttention(I2, weights, { returnWeights: false });
    expect(Object.keys(s).sort()).toEqual(['k', 'output', 'q', 'v']);
  });

  it('a long sequence (n = 16 384, d = 64) runs with returnWeights: false in under 64 MB of WebAssembly memory', async () => {
    const fresh = await createAttention({ simd });
    const n = 16384;
    const random = seededRandom(11);
    const q = randomTensor(random, [n, 64]);
    const k = randomTensor(random, [n, 64]);
    const v = randomTensor(random, [n, 64]);
    const r = fresh.scaledDotProductAttention(q, k, v, { causal: true, returnWeights: false });
    expect(r.output.shape).toEqual([n, 64]);
    expect(fresh.memoryBytes).toBeLessThanOrEqual(64 * 2 ** 20);
    // spot-check rows against the reference: first, a middle one, last
    for (const i of [0, 4097, n - 1]) {
      const rows = i + 1;
      const ref = referenceAttention(
        { data: q.data.subarray(i * 64, (i + 1) * 64), shape: [1, 1, 1, 64] },
        { data: k.data.subarray(0, rows * 64), shape: [1, 1, rows, 64] },
        { data: v.data.subarray(0, rows * 64), shape: [1, 1, rows, 64] },
        { scale: 1 / 8 },
      );
      expectClose(r.output.data.subarray(i * 64, (i + 1) * 64), ref.output, { atol: 1e-5, what: `row ${i}` });
    }
  });
});

describe.runIf(inBrowser)('in a module Web Worker', () => {
  it('createAttention and a call work inside a worker', async () => {
    const worker = new Worker(new URL('./fixtures/worker.js', import.meta.url), { type: 'module' });
    const result = await new Promise((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => reject(new Error(event.message));
    });
    worker.terminate();
    expect(result.error).toBeUndefined();
    expect(result.simd).toBe(true);
    expectClose(result.output, goldenOutput, { atol: 1e-6, rtol: 0 });
  });
});

describe('Tensor', () => {
  it('toArray nests by shape, and rounds to the given digits', () => {
    const t = new Tensor(Float32Array.from([0.123456, -1.5, 2, -Infinity, 1e-9, 7]), [2, 3]);
    expect(t.toArray()).toEqual([
      [Math.fround(0.123456), -1.5, 2],
      [-Infinity, Math.fround(1e-9), 7],
    ]);
    expect(t.toArray(3)).toEqual([
      [0.123, -1.5, 2],
      [-Infinity, 0, 7],
    ]);
    expect(Object.is(t.toArray(3)[1][1], 0)).toBe(true);
    expect(new Tensor(Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), [2, 2, 2]).toArray()).toEqual([
      [
        [1, 2],
        [3, 4],
      ],
      [
        [5, 6],
        [7, 8],
      ],
    ]);
    expect(() => t.toArray(-1)).toThrow(/digits must be an integer from 0 to 20/);
  });
});
