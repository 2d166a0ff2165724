// The app's entry for the bundlers that emit assets and workers (Vite, webpack): the main entry point.
import { AttentionError, Tensor, createAttention } from 'attention-wasm';
import { readNpy } from 'attention-wasm/io';
import { run } from './run.js';

await run({ createAttention, readNpy, AttentionError, Tensor, workers: true });
