// The smoke test under Node, Bun and Deno (tests/bundlers/runtimes.test.mjs): the worked example, then the same
// over 2 workers, a tiny GPT-2 on text through attention-wasm/model and the shipped one by BUILTIN_MODEL (the
// installed folder), printed as one line of JSON. The package resolves from node_modules by its exports' conditions.
import { createAttention } from 'attention-wasm';
import { readNpy } from 'attention-wasm/io';
import { BUILTIN_MODEL, loadModel } from 'attention-wasm/model';
import { runModel } from './model.js';
import { I2, weights } from './worked-example.js';

const attn = await createAttention();
const result = { simd: attn.simd, io: typeof readNpy, output: Array.from(attn.selfAttention(I2, weights).output.data) };
const parallel = await createAttention({ workers: 2 });
result.workerOutput = Array.from((await parallel.selfAttention(I2, weights)).output.data);
await parallel.terminate();
result.model = await runModel(loadModel);
const builtin = await (
  await loadModel(BUILTIN_MODEL)
).run('the cat saw a red ball near the old tree . the cat saw a red');
result.builtin = { href: BUILTIN_MODEL.href, next: builtin.next[0].token };
console.log(JSON.stringify(result));
