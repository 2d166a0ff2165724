// createAttention({ workers }) under faults: a worker killed mid-call, an error thrown inside a worker, an
// unhandled rejection inside one, terminate() before, during and after calls, 1 000 concurrent calls, and
// (Node) the process exiting exactly when the last call settles. Faults come from pool.js's internal
// injectFault, which the public API does not expose.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttentionError, createAttention } from '../../src/js/index.js';
import { injectFault } from '../../src/js/pool.js';
import { randomTensor, seededRandom } from './reference.js';

function expectSameBits(actual, expected) {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const key of Object.keys(expected))
    expect(Array.from(actual[key].data), key).toEqual(Array.from(expected[key].data));
}

const inNode = typeof window === 'undefined' && typeof process !== 'undefined' && Boolean(process.versions?.node);
const q = randomTensor(seededRandom(11), [4, 6, 3]); // 4 heads: over 2 workers, worker 0 takes heads 0 and 1

describe('workers: faults', () => {
  let single;
  let parallel;
  beforeAll(async () => {
    [single, parallel] = await Promise.all([createAttention(), createAttention({ workers: 2 })]);
  });
  afterAll(() => parallel.terminate());

  for (const fault of ['exit', 'reject']) {
    it(`a worker that dies mid-call (${fault}) rejects its call with WORKER_FAILED and is replaced for the next`, async () => {
      await injectFault(parallel, 0, fault);
      const error = await parallel.scaledDotProductAttention(q, q, q).catch((e) => e);
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.code).toBe('WORKER_FAILED');
      expect(error.message).toMatch(/^worker 0 /);
      expectSameBits(await parallel.scaledDotProductAttention(q, q, q), single.scaledDotProductAttention(q, q, q));
    });
  }

  it('an error thrown inside a worker rejects that call, and the worker keeps serving', async () => {
    await injectFault(parallel, 1, 'throw');
    const error = await parallel.scaledDotProductAttention(q, q, q).catch((e) => e);
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toContain('fault injected');
    expectSameBits(await parallel.scaledDotProductAttention(q, q, q), single.scaledDotProductAttention(q, q, q));
  });

  it('a worker killed while it holds many calls rejects exactly those; the others and later calls succeed', async () => {
    const x = randomTensor(seededRandom(13), [2, 5, 4]); // 2 heads over 2 workers
    const w = {
      wq: randomTensor(seededRandom(14), [4, 4]),
      wk: randomTensor(seededRandom(15), [4, 4]),
      wv: randomTensor(seededRandom(16), [4, 4]),
    };
    const expected = single.scaledDotProductAttention(x, x, x);
    await injectFault(parallel, 1, 'exit');
    const calls = Array.from({ length: 20 }, () =>
      parallel.scaledDotProductAttention(x, x, x).then(
        (r) => r,
        (e) => e,
      ),
    );
    const results = await Promise.all(calls);
    expect(results[0]).toBeInstanceOf(AttentionError);
    expect(results[0].code).toBe('WORKER_FAILED');
    for (const r of results) {
      if (r instanceof Error) expect(r.code).toBe('WORKER_FAILED');
      else expectSameBits(r, expected);
    }
    expectSameBits(
      await parallel.selfAttention(x.data.length ? { data: x.data.slice(0, 20), shape: [5, 4] } : x, w),
      single.selfAttention({ data: x.data.slice(0, 20), shape: [5, 4] }, w),
    );
    expectSameBits(await parallel.scaledDotProductAttention(x, x, x), expected);
  });

  it("1 000 concurrent calls all settle with one thread's bits", async () => {
    const random = seededRandom(17);
    const inputs = Array.from({ length: 1000 }, (_, i) => randomTensor(random, [1 + (i % 5), 3 + (i % 4), 2]));
    const results = await Promise.all(inputs.map((t) => parallel.scaledDotProductAttention(t, t, t, { causal: true })));
    results.forEach((r, i) =>
      expectSameBits(r, single.scaledDotProductAttention(inputs[i], inputs[i], inputs[i], { causal: true })),
    );
  });
});

describe('workers: a module that cannot load', () => {
  it('rejects createAttention with LOAD_FAILED naming the URL, before any worker starts', async () => {
    const url = new URL('./no-such-file.wasm', import.meta.url);
    const error = await createAttention({ workers: 2, wasmUrl: url }).catch((e) => e);
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('LOAD_FAILED');
    expect(error.message).toContain(url.href);
  });

  it('rejects createAttention with LOAD_FAILED naming the worker and the cause when workers cannot start it', async () => {
    const scalar = new URL('../../src/js/wasm/attention-scalar.wasm', import.meta.url);
    const error = await createAttention({ workers: 2, simd: true, wasmUrl: { simd: scalar } }).catch((e) => e);
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('LOAD_FAILED');
    expect(error.message).toMatch(/^worker \d could not load its module: .*is the scalar build/);
  });
});

/** Runs a small ESM script in a fresh `node`; resolves to { code, stdout, stderr } (a hang is killed after 60 s). */
async function runNode(body) {
  const { execFile } = await import(/* @vite-ignore */ 'node:child_process');
  const { mkdtempSync, rmSync, writeFileSync } = await import(/* @vite-ignore */ 'node:fs');
  const { tmpdir } = await import(/* @vite-ignore */ 'node:os');
  const src = new URL('../../src/js/', import.meta.url).href;
  const folder = mkdtempSync(`${tmpdir()}/attention-workers-`);
  // a file, not `node -e`: workers inherit the parent's execArgv, and --input-type would stop them
  const file = `${folder}/script.mjs`;
  writeFileSync(
    file,
    `import { createAttention } from '${src}index.node.js';\nimport { injectFault } from '${src}pool.js';\n${body}`,
  );
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { timeout: 60000 }, (error, stdout, stderr) => {
      rmSync(folder, { recursive: true, force: true });
      resolve({ code: error ? (error.code ?? error.signal) : 0, stdout, stderr });
    });
  });
}

const SETUP = `
const small = { data: new Float32Array(4 * 8 * 4).fill(0.5), shape: [4, 8, 4] };
const big = { data: new Float32Array(8 * 400 * 32).fill(0.25), shape: [8, 400, 32] };
const attn = await createAttention({ workers: 1 });
const call = (t) => attn.scaledDotProductAttention(t, t, t);
`;

describe.skipIf(!inNode)('workers: Node exits exactly when the last call settles', () => {
  it('#2: two overlapping calls on one worker, awaited one after the other', async () => {
    const { code, stdout, stderr } = await runNode(`${SETUP}
const p1 = call(small); const p2 = call(big);
await p1; console.log('p1');
const r = await p2; console.log('p2', r.output.data.length);`);
    expect(stderr).toBe('');
    expect(stdout).toBe('p1\np2 102400\n');
    expect(code).toBe(0);
  });

  it('#2: Promise.all with .then and nothing awaited: the callback runs, then Node exits', async () => {
    const { code, stdout } = await runNode(`${SETUP}
Promise.all([call(small), call(big), call(small)]).then((rs) => console.log('then', rs.length));
// two rounds (heads, then the output projection): the worker is idle between them for a moment
const x = { data: new Float32Array(300 * 8).fill(0.1), shape: [300, 8] };
const w = { wq: { data: new Float32Array(64).fill(0.1), shape: [8, 8] }, numHeads: 2 };
Object.assign(w, { wk: w.wq, wv: w.wq, wo: w.wq });
attn.multiHeadAttention(x, w).then((r) => console.log('projected', r.output.shape));`);
    expect(stdout).toBe('then 3\nprojected [ 300, 8 ]\n');
    expect(code).toBe(0);
  });

  it('a worker that died, terminate() and a call after it leave nothing holding Node open', async () => {
    const { code, stdout } = await runNode(`${SETUP}
await injectFault(attn, 0, 'exit');
await call(small).catch((e) => console.log(e.code));
await call(small).then(() => console.log('replaced'));
const inFlight = call(big).catch((e) => console.log(e.code));
await attn.terminate();
await inFlight;
await call(small).catch((e) => console.log(e.code));`);
    expect(stdout).toBe('WORKER_FAILED\nreplaced\nTERMINATED\nTERMINATED\n');
    expect(code).toBe(0);
  });

  it('a module that cannot load leaves nothing holding Node open', async () => {
    const { code, stdout } = await runNode(`
await createAttention({ workers: 2, wasmUrl: 'file:///no-such-folder/x.wasm' }).catch((e) => console.log(e.code));`);
    expect(stdout).toBe('LOAD_FAILED\n');
    expect(code).toBe(0);
  });

  it('a replacement needs no file: the pool gives it the module it compiled once', async () => {
    const { code, stdout } = await runNode(`
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
const folder = mkdtempSync(tmpdir() + '/attention-wasm-');
const wasm = folder + '/attention.wasm';
copyFileSync(new URL('${new URL('../../src/js/wasm/attention-simd.wasm', import.meta.url).href}'), wasm);
const attn = await createAttention({ workers: 1, simd: true, wasmUrl: wasm });
const t = { data: new Float32Array(8).fill(1), shape: [2, 2, 2] };
await injectFault(attn, 0, 'exit');
rmSync(folder, { recursive: true });
await attn.scaledDotProductAttention(t, t, t).catch((e) => console.log(e.code));
await attn.scaledDotProductAttention(t, t, t).then((r) => console.log(r.output.shape));`);
    expect(stdout).toBe('WORKER_FAILED\n[ 2, 2, 2 ]\n');
    expect(code).toBe(0);
  });

  it('#4: a cyclic property on the input neither hangs the call nor keeps Node alive', async () => {
    const { code, stdout } = await runNode(`${SETUP}
const meta = {}; meta.self = meta;
const x = { data: Object.assign([1, 0, 0, 1], { meta }), shape: [2, 2] };
await attn.selfAttention(x, { wq: x, wk: x, wv: x }).then(() => console.log('answered'), (e) => console.log(e.code));
await call(small).then(() => console.log('next'));`);
    expect(stdout).toBe('answered\nnext\n');
    expect(code).toBe(0);
  });

  it('#5: an uncloneable input neither throws a DataCloneError nor keeps Node alive', async () => {
    const { code, stdout } = await runNode(`${SETUP}
const x = { data: Object.assign([1, 0, 0, 1], { f() {} }), shape: [2, 2] };
await attn.selfAttention(x, { wq: x, wk: x, wv: x }).then(() => console.log('answered'), (e) => console.log(e.name, e.code));`);
    expect(stdout).toBe('answered\n');
    expect(code).toBe(0);
  });
});
