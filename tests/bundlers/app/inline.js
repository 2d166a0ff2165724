// The app's entry for the bundlers that copy no assets (esbuild, Rollup with node-resolve alone): the inline
// entry point, which holds the WebAssembly itself; and attention-wasm/model, whose .wasm files the app serves
// itself (the test copies them into dist/wasm/, where the bundle's `new URL('../wasm/…', import.meta.url)` points).
import { AttentionError, Tensor, createAttention } from 'attention-wasm/inline';
import { readNpy } from 'attention-wasm/io';
import * as model from 'attention-wasm/model';
import { openModelCache } from 'attention-wasm/model/cache';
import { run } from './run.js';

await run({ createAttention, readNpy, AttentionError, Tensor, ...model, openModelCache, workers: false });
