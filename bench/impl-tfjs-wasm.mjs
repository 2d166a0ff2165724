// Node's child process for @tensorflow/tfjs-backend-wasm (impls/tfjs-wasm.mjs).
import path from 'node:path';
import { createRequire } from 'node:module';
import { runChild } from './child.mjs';
import { tfjsWasm } from './impls/tfjs-wasm.mjs';

const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
runChild(tfjsWasm({ wasmPath: dist + path.sep }));
