// The app's entry for the bundlers that copy no assets (esbuild, Rollup with node-resolve alone): the inline
// entry point, which holds the WebAssembly itself.
import { AttentionError, Tensor, createAttention } from 'attention-wasm/inline';
import { readNpy } from 'attention-wasm/io';
import { run } from './run.js';

await run({ createAttention, readNpy, AttentionError, Tensor, workers: false });
