// The app every bundler builds (tests/bundlers/bundlers.test.mjs): it reads the worked example's x from a .npy
// file made in memory (attention-wasm/io), computes self-attention, and with workers the same over 2 Web
// Workers, then writes what it got into #out as JSON ({ error } when something threw). It uses only the public
// API, as a new user's app would; its entry (main.js or inline.js) says which entry point it imports. It runs a
// tiny GPT-2 on text through attention-wasm/model (model.js), the shipped model by BUILTIN_MODEL (the app serves a copy
// at models/induction/, as docs/model.md's recipe says), and opens a cache of attention-wasm/model/cache. It also
// checks that io's tensors and errors are instances of the classes that entry exports (one class per package).
import { runModel } from './model.js';
import { goldenOutput, weights } from './worked-example.js';

/** A .npy file (version 1.0, little-endian float32, C order) holding `values` of `shape`. */
function npy(shape, values) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')},), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n'; // the data starts at a multiple of 64
  const bytes = new Uint8Array(10 + header.length + 4 * values.length);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]);
  bytes.set(new TextEncoder().encode(header), 10);
  new Float32Array(bytes.buffer, 10 + header.length).set(values);
  return bytes;
}

/**
 * @param {{ createAttention: Function, readNpy: Function, AttentionError: Function, Tensor: Function,
 *   loadModel: Function, BUILTIN_MODEL: URL, openModelCache: Function, workers: boolean }} api
 */
export async function run(api) {
  const { createAttention, readNpy, AttentionError, Tensor, loadModel, BUILTIN_MODEL, openModelCache, workers } = api;
  const out = document.getElementById('out');
  try {
    const x = readNpy(npy([2, 2], [1, 0, 0, 1]));
    const attn = await createAttention();
    const fromIo = (() => {
      try {
        return readNpy('not bytes');
      } catch (error) {
        return error;
      }
    })();
    const fromApi = await createAttention({ simd: 'yes' }).catch((error) => error);
    const result = {
      simd: attn.simd,
      shape: x.shape,
      sharedClasses: [x instanceof Tensor, fromIo instanceof AttentionError, fromApi instanceof fromIo.constructor],
      golden: goldenOutput,
      output: Array.from(attn.selfAttention(x, weights).output.data),
    };
    result.model = await runModel(loadModel);
    const builtin = await (
      await loadModel(BUILTIN_MODEL)
    ).run('the cat saw a red ball near the old tree . the cat saw a red');
    result.builtin = { href: BUILTIN_MODEL.href, next: builtin.next[0].token };
    result.cacheBytes = (await openModelCache(`bundler-app`)).name === 'bundler-app';
    if (workers) {
      const parallel = await createAttention({ workers: 2 });
      result.workerOutput = Array.from((await parallel.selfAttention(x, weights)).output.data);
      await parallel.terminate();
      result.modelOnWorkers = await runModel(loadModel, { workers: 2 }); // the model's worker, as the bundler emits it
    }
    out.textContent = JSON.stringify(result);
  } catch (error) {
    out.textContent = JSON.stringify({ error: `${error?.code ?? error?.name}: ${error?.message ?? error}` });
  }
}
