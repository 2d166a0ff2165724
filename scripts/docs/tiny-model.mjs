#!/usr/bin/env node
// Writes docs/examples/tiny-gpt2/ (config.json, model.safetensors): a GPT-2 of 2 layers, d_model 8, 2 heads and a
// vocabulary of 23, with seeded random weights, in the Hub's file layout, for the documentation's runnable examples
// of attention-wasm/model. The same writer as the tests' (tests/js/model/fixtures.js); run it again after a change
// there, and the examples' printed numbers are checked by tests/readme/docs.test.mjs.
import { mkdir, writeFile } from 'node:fs/promises';
import { gpt2Fixture } from '../../tests/js/model/fixtures.js';

const folder = new URL('../../docs/examples/tiny-gpt2/', import.meta.url);
await mkdir(folder, { recursive: true });
for (const [name, content] of Object.entries(gpt2Fixture({ seed: 2024 }).files)) {
  await writeFile(new URL(name, folder), content);
}
