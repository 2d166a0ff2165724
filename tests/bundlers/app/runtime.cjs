// The smoke test of CommonJS: require('attention-wasm') (Node 20's require of an ES module), then as runtime.mjs.
/* global require, console */
const { createAttention } = require('attention-wasm');
const { readNpy } = require('attention-wasm/io');
const { I2, weights } = require('./worked-example.js');

(async () => {
  const attn = await createAttention();
  const output = Array.from(attn.selfAttention(I2, weights).output.data);
  const result = { simd: attn.simd, io: typeof readNpy, output };
  const parallel = await createAttention({ workers: 2 });
  result.workerOutput = Array.from((await parallel.selfAttention(I2, weights)).output.data);
  await parallel.terminate();
  console.log(JSON.stringify(result));
})();
