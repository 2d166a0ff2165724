// onnxruntime-web's side of the model bench's per-part profile (bench/model/profile.cc is attention-wasm's): each
// kind of node of gpt2-onnx.mjs's GPT-2-small graph, on its own in a one-node graph (wasm backend, 1 thread), run as
// many times as the whole graph runs it (12 layers; the LM head once); the best of `rounds`, in CPU time.
//
//   node bench/model/ort-parts.mjs [rounds] [n]
import * as ort from 'onnxruntime-web';
import { encode, floatTensor, intAttribute, node, valueInfo } from '../onnx-graph.mjs';

const rounds = Number(process.argv[2] ?? 5);
const n = Number(process.argv[3] ?? 32);
const [d, dFf, V, layers] = [768, 3072, 50257, 12];
ort.env.wasm.numThreads = 1;
ort.env.logLevel = 'error';

let seed = 7;
const random = (size) => {
  const a = new Float32Array(size);
  for (let i = 0; i < size; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    a[i] = (seed / 2 ** 32 - 0.5) * 0.04;
  }
  return a;
};
const ATTR_STRING = 3;

// One node: `op` on input x [n, width] and the given initializers, as a session with its feed.
async function part(op, width, initializers, attributes = [], extra = []) {
  const graph = [
    [1, node(op, ['x', ...initializers.map((t) => t[0]), ...extra], ['y'], attributes)],
    [2, 'part'],
    ...initializers.map(([name, dims, values]) => [5, floatTensor(name, dims, values)]),
    [11, valueInfo('x', [n, width])],
    [12, [[1, 'y']]],
  ];
  const bytes = encode([
    [1, 9],
    [2, 'ort-parts'],
    [7, graph],
    [8, [[2, 20]]],
  ]);
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  const feeds = { x: new ort.Tensor('float32', random(n * width), [n, width]) };
  return () => session.run(feeds);
}

const gemm = (width, out) =>
  part('Gemm', width, [
    ['w', [width, out], random(width * out)],
    ['b', [out], random(out)],
  ]);
const parts = [
  [
    'layernorm (2 per layer)',
    2 * layers,
    await part(
      'LayerNormalization',
      d,
      [
        ['g', [d], random(d)],
        ['b', [d], random(d)],
      ],
      [intAttribute('axis', -1)],
    ),
  ],
  ['qkv MatMul+Add [n,768]x[768,2304]', layers, await gemm(d, 3 * d)],
  ['W_o MatMul+Add [n,768]x[768,768]', layers, await gemm(d, d)],
  ['mlp up [n,768]x[768,3072]', layers, await gemm(d, dFf)],
  [
    'gelu (tanh)',
    layers,
    await part(
      'Gelu',
      dFf,
      [],
      [
        [
          [1, 'approximate'],
          [20, ATTR_STRING],
          [4, 'tanh'],
        ],
      ],
    ),
  ],
  ['mlp down [n,3072]x[3072,768]', layers, await gemm(dFf, d)],
  [
    'logits Gemm transB [n,768]x[50257,768]^T',
    1,
    await part('Gemm', d, [['wte', [V, d], random(V * d)]], [intAttribute('transB', 1)]),
  ],
];
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const best = parts.map(() => Infinity);
for (let round = 0; round < rounds; round++) {
  for (const [i, [, times, run]] of parts.entries()) {
    const t0 = cpu();
    for (let j = 0; j < times; j++) await run();
    best[i] = Math.min(best[i], cpu() - t0);
  }
}
const sum = best.reduce((a, b) => a + b, 0);
for (const [i, [name, times]] of parts.entries()) {
  console.log(`${name.padEnd(44)} ×${String(times).padEnd(3)} ${best[i].toFixed(2).padStart(8)} ms`);
}
console.log(`${'sum'.padEnd(48)} ${sum.toFixed(2).padStart(8)} ms (CPU time; the attention's nodes left out)`);
