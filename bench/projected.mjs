// The attention API with its projections, against onnxruntime-web running the same graph on 1 thread, in one process
// and interleaved round by round (so that a busy machine slows all alike): x [n, d_model] → q, k, v = x·W + b split
// into heads → softmax(q·kᵀ/√d_k)·v → the heads side by side → ·W_o + b_o. Issue 38 §3's case: n 512, d_model 768,
// 12 heads (d_k 64).
//
//   node bench/projected.mjs [--n 512] [--d-model 768] [--heads 12] [--rounds 15] [--quick] [--baseline <index.node.js>]
//   (bash scripts/bench.sh --projected … builds the module first; BENCH_QUICK=1 is --quick: n 33, d_model 64, 2 heads)
//
// Contenders, each on one thread, float32, no weights returned (returnWeights: false, returnSteps: false):
//   attention-wasm: selfAttention(x, weights): its results hold q, k, v, heads and concat besides the output
//   attention-wasm, prepared layer: prepareSelfAttention(weights).run(x), x alternating between two inputs that differ
//     in every row, so that every row is projected again
//   onnxruntime-web, 1 thread: one session of the graph above, the weights as initializers
//   --baseline: selfAttention of another build of the package (its src/js/index.node.js, built), taking turns too
// Prints a Markdown table: wall and CPU ms per call (medians and mins of the rounds), GFLOP/s (2·n·d_model·(3·H·d_k) +
// 4·n²·d_k·H + 2·n·H·d_k·d_model per call) and each median's ratio to onnxruntime-web's, then the outputs' largest
// difference from onnxruntime-web's and the machine's load before and after.
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-web';
import { createAttention } from '../src/js/index.node.js';
import { randomNormal } from './cases.mjs';
import { encode, floatTensor, intAttribute, intsAttribute, node, valueInfo } from './onnx-graph.mjs';

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const arg = (name, fallback, quickValue) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : quick ? quickValue : fallback;
};
const n = arg('n', 512, 33);
const dModel = arg('d-model', 768, 64);
const heads = arg('heads', 12, 2);
const rounds = arg('rounds', 15, 2);
const baselineAt = process.argv.indexOf('--baseline');
const baseline = baselineAt > 0 ? path.resolve(process.argv[baselineAt + 1]) : null;
const dK = dModel / heads;
if (!Number.isInteger(dK)) throw new Error(`--heads (${heads}) must divide --d-model (${dModel})`);

const INT64 = 7; // TensorProto.DataType
const int64Tensor = (name, values) => [
  [1, values.length],
  [2, INT64],
  [8, name],
  [9, new Uint8Array(BigInt64Array.from(values, BigInt).buffer)],
];

/** The ONNX graph: x [n, d_model] → output [n, d_model], with the weights as initializers. */
function projectedModel(w) {
  const nodes = [];
  for (const p of ['q', 'k', 'v']) {
    nodes.push(node('MatMul', ['x', `w${p}`], [`${p}_xw`]), node('Add', [`${p}_xw`, `b${p}`], [`${p}_flat`]));
    nodes.push(node('Reshape', [`${p}_flat`, 'split'], [`${p}_split`])); // [n, H, d_k]
  }
  nodes.push(
    node('Transpose', ['q_split'], ['q'], [intsAttribute('perm', [1, 0, 2])]), // [H, n, d_k]
    node('Transpose', ['k_split'], ['k_t'], [intsAttribute('perm', [1, 2, 0])]), // [H, d_k, n]
    node('Transpose', ['v_split'], ['v'], [intsAttribute('perm', [1, 0, 2])]), // [H, n, d_k]
    node('MatMul', ['q', 'k_t'], ['raw']),
    node('Mul', ['raw', 'scale'], ['scores']),
    node('Softmax', ['scores'], ['weights'], [intAttribute('axis', -1)]),
    node('MatMul', ['weights', 'v'], ['heads']), // [H, n, d_k]
    node('Transpose', ['heads'], ['heads_t'], [intsAttribute('perm', [1, 0, 2])]), // [n, H, d_k]
    node('Reshape', ['heads_t', 'join'], ['concat']), // [n, H·d_k]
    node('MatMul', ['concat', 'wo'], ['concat_wo']),
    node('Add', ['concat_wo', 'bo'], ['output']),
  );
  const width = heads * dK;
  const initializers = [
    ...['q', 'k', 'v'].flatMap((p) => [
      floatTensor(`w${p}`, [dModel, width], w[`w${p}`]),
      floatTensor(`b${p}`, [width], w[`b${p}`]),
    ]),
    floatTensor('wo', [width, dModel], w.wo),
    floatTensor('bo', [dModel], w.bo),
    floatTensor('scale', [], Float32Array.of(1 / Math.sqrt(dK))),
    int64Tensor('split', [n, heads, dK]),
    int64Tensor('join', [n, width]),
  ];
  const graph = [
    ...nodes.map((x) => [1, x]),
    [2, 'projected attention'],
    ...initializers.map((t) => [5, t]),
    [11, valueInfo('x', [n, dModel])],
    [12, valueInfo('output', [n, dModel])],
  ];
  return encode([
    [1, 8], // ir_version
    [2, 'attention-wasm bench'],
    [7, graph],
    [8, [[2, 17]]], // opset_import: default domain, opset 17
  ]);
}

const scaled = (count, seed, factor) => randomNormal(count, seed).map((x) => x * factor);
const width = heads * dK;
const w = {
  wq: scaled(dModel * width, 11, 1 / Math.sqrt(dModel)),
  wk: scaled(dModel * width, 12, 1 / Math.sqrt(dModel)),
  wv: scaled(dModel * width, 13, 1 / Math.sqrt(dModel)),
  wo: scaled(width * dModel, 14, 1 / Math.sqrt(width)),
  bq: scaled(width, 15, 0.1),
  bk: scaled(width, 16, 0.1),
  bv: scaled(width, 17, 0.1),
  bo: scaled(dModel, 18, 0.1),
};
const xs = [randomNormal(n * dModel, 1), randomNormal(n * dModel, 2)];

ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';
const session = await ort.InferenceSession.create(projectedModel(w), { executionProviders: ['wasm'] });
const feeds = xs.map((x) => ({ x: new ort.Tensor('float32', x, [n, dModel]) }));

const attn = await createAttention();
const t = (data, ...shape) => ({ data, shape });
const weights = {
  wq: t(w.wq, dModel, width),
  wk: t(w.wk, dModel, width),
  wv: t(w.wv, dModel, width),
  wo: t(w.wo, width, dModel),
  bq: t(w.bq, width),
  bk: t(w.bk, width),
  bv: t(w.bv, width),
  bo: t(w.bo, dModel),
  numHeads: heads,
};
const options = { returnWeights: false, returnSteps: false };
const layer = await attn.prepareSelfAttention(weights);
const before = baseline && (await (await import(pathToFileURL(baseline).href)).createAttention());

let call = 0; // which x: alternates, so that the prepared layer projects every row again
const contenders = {
  'attention-wasm': () => attn.selfAttention(t(xs[call % 2], n, dModel), weights, options).output.data,
  'attention-wasm, prepared layer': () => layer.run(t(xs[call % 2], n, dModel), options).output.data,
  'onnxruntime-web, 1 thread': async () => (await session.run(feeds[call % 2])).output.data,
};
if (before) {
  contenders['attention-wasm, baseline'] = () =>
    before.selfAttention(t(xs[call % 2], n, dModel), weights, options).output.data;
}

const loadBefore = os.loadavg();
const outputs = {};
for (const [name, run] of Object.entries(contenders)) outputs[name] = await run(); // warm-up, and the outputs of x₀
const samples = Object.fromEntries(Object.keys(contenders).map((name) => [name, { wall: [], cpu: [] }]));
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(contenders)) {
    call = round + 1;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run();
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    samples[name].wall.push(wall);
    samples[name].cpu.push((c.user + c.system) / 1000);
  }
}
const loadAfter = os.loadavg();

const flop = 2 * n * dModel * 3 * width + 4 * n * n * dK * heads + 2 * n * width * dModel;
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const min = (a) => Math.min(...a);
const ort1 = samples['onnxruntime-web, 1 thread'];
const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const lines = [
  `| n ${n}, d_model ${dModel}, ${heads} heads | wall ms (median) | min | CPU ms (median) | min | GFLOP/s (CPU) | × onnxruntime-web (wall) | × onnxruntime-web (CPU) |`,
  '|---|--:|--:|--:|--:|--:|--:|--:|',
];
for (const [name, s] of Object.entries(samples)) {
  const cells = [median(s.wall), min(s.wall), median(s.cpu), min(s.cpu)].map(f);
  const gflops = (flop / median(s.cpu) / 1e6).toFixed(1);
  const ratios = [median(s.wall) / median(ort1.wall), median(s.cpu) / median(ort1.cpu)].map((r) => r.toFixed(2));
  lines.push(`| ${name} | ${cells.join(' | ')} | ${gflops} | ${ratios.join(' | ')} |`);
}
console.log(lines.join('\n'));
const reference = outputs['onnxruntime-web, 1 thread'];
for (const name of Object.keys(outputs).filter((key) => key.startsWith('attention-wasm'))) {
  let worst = 0;
  outputs[name].forEach((x, i) => (worst = Math.max(worst, Math.abs(x - reference[i]))));
  console.log(`${name}: largest |output − onnxruntime-web's| ${worst.toExponential(1)}`);
  if (!(worst < 1e-3)) throw new Error(`${name}'s output differs from onnxruntime-web's by ${worst}`);
}
const load = (l) => l.map((x) => x.toFixed(1)).join(' ');
console.log(
  `\n${os.cpus()[0]?.model}, ${os.cpus().length} cores, Node ${process.version}, onnxruntime-web ${ort.env.versions?.web ?? ''}; ` +
    `${rounds} rounds; load average ${load(loadBefore)} before, ${load(loadAfter)} after.`,
);
layer.free();
