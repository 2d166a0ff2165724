// Small calls side by side in one process (node bench/small-calls.mjs [--n 16] [--rounds 41]): n × d = 64
// self-attention with weights, through scaledDotProductAttention with new result arrays, with options.out, and
// through prepare() without and with out, interleaved round by round so that a busy machine slows all alike.
// Prints a Markdown table of µs per call: median and min of the rounds, and the spread (max − min).
import os from 'node:os';
import { createAttention } from '../src/js/index.node.js';
import { D, randomNormal } from './cases.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const n = arg('n', 16);
const rounds = arg('rounds', 41);
const attn = await createAttention();
const shape = [n, D];
const [q, k, v] = [1, 2, 3].map((seed) => randomNormal(n * D, seed));
const tensors = [q, k, v].map((data) => ({ data, shape }));
const out = { output: new Float32Array(n * D), weights: new Float32Array(n * n) };
const prepared = attn.prepare({ q: shape, k: shape, v: shape });
const preparedOut = attn.prepare({ q: shape, k: shape, v: shape }, { out });
const withOut = { out };
const ways = {
  'scaledDotProductAttention, new arrays': () => attn.scaledDotProductAttention(...tensors),
  'scaledDotProductAttention, out': () => attn.scaledDotProductAttention(...tensors, withOut),
  'prepare, new arrays': () => prepared(q, k, v),
  'prepare, out': () => preparedOut(q, k, v),
};

/** µs per call over a batch of about 2 ms. */
function time(call, batch) {
  const t0 = performance.now();
  for (let i = 0; i < batch; i++) call();
  return ((performance.now() - t0) / batch) * 1000;
}
for (const call of Object.values(ways)) time(call, 20000); // warm-up: every way optimized
const batch = Math.max(1, Math.round(2000 / time(ways['scaledDotProductAttention, new arrays'], 2000)));
const samples = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, call] of Object.entries(ways)) samples[name].push(time(call, batch));
}
const lines = ['| n = ' + n + ', d = 64, weights returned | median µs | min µs | spread µs |', '|---|--:|--:|--:|'];
for (const [name, t] of Object.entries(samples)) {
  t.sort((a, b) => a - b);
  const f = (x) => x.toFixed(2);
  lines.push(`| ${name} | ${f(t[t.length >> 1])} | ${f(t[0])} | ${f(t[t.length - 1] - t[0])} |`);
}
console.log(lines.join('\n'));
const load = os.loadavg().map((x) => x.toFixed(2));
console.log(
  `\n${os.cpus()[0]?.model}, Node ${process.version}; ${rounds} rounds of ${batch} calls each; load ${load}.`,
);
