// Node's child process for attention-wasm (impls/attention-wasm.mjs). BENCH_SIMD=0 runs the scalar build;
// BENCH_WORKERS=N spreads each call over N workers;
// BENCH_REUSE=1 writes the results into the same arrays at every call.
import { runChild } from './child.mjs';
import { attentionWasm } from './impls/attention-wasm.mjs';

const workers = process.env.BENCH_WORKERS ? Number(process.env.BENCH_WORKERS) : undefined;
runChild(
  attentionWasm({
    entry: new URL('../src/js/index.node.js', import.meta.url).href, // the package's `node` export condition
    simd: process.env.BENCH_SIMD !== '0',
    workers,
    reuse: process.env.BENCH_REUSE === '1',
  }),
);
