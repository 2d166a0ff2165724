// The app's entry for the bundlers that emit assets and workers (Vite, webpack): the main entry point, and
// attention-wasm/model with its cache entry.
import { AttentionError, Tensor, createAttention } from 'attention-wasm';
import { readNpy } from 'attention-wasm/io';
import * as model from 'attention-wasm/model';
import { openModelCache } from 'attention-wasm/model/cache';
import { run } from './run.js';

await run({ createAttention, readNpy, AttentionError, Tensor, ...model, openModelCache, workers: true });
