// GPT-2's forward as an ONNX graph (protobuf bytes written by onnx-graph.mjs's encoder), for onnxruntime-web in
// the model bench: the same computation as attention-wasm/model's GPT-2 (and transformers' GPT2LMHeadModel), with
// the checkpoint's weights as initializers. Runs anywhere (Node and the bench page).
//
//   inputs   ids, positions  int64 [n]
//   outputs  logits [n, V]; attentions.{l} [H, n, n], one per layer (softmax of the causal, scaled scores)
//
// Per layer: LayerNormalization → MatMul + Add (c_attn) → Split q|k|v → Reshape [n, H, d_k] → Transpose [H, n, d_k]
// → MatMul q·kᵀ · 1/√d_k + causal mask → Softmax → MatMul v → [n, d] → c_proj → residual; LayerNormalization →
// c_fc → Gelu (tanh) → c_proj → residual. Then ln_f and the tied head: Gemm(h, wte, transB).
import { encode, floatTensor, intAttribute, intsAttribute, node } from '../onnx-graph.mjs';

const INT64 = 7; // TensorProto.DataType
const FLOAT = 1;
const ATTR_STRING = 3; // AttributeProto.AttributeType

const int64Tensor = (name, values) => [
  [1, values.length],
  [2, INT64],
  [8, name],
  [9, new Uint8Array(BigInt64Array.from(values, BigInt).buffer)],
];
const stringAttribute = (name, s) => [
  [1, name],
  [20, ATTR_STRING],
  [4, s],
];
const tensorInfo = (name, type, dims) => [
  [1, name],
  [
    2,
    [
      [
        1,
        [
          [1, type],
          [2, dims.map((d) => [1, [[1, d]]])],
        ],
      ],
    ],
  ],
];

/**
 * The model's bytes. `read(name)` gives a tensor of the checkpoint ({ data: Float32Array, shape }), as
 * GPT2LMHeadModel names them without a prefix; it is called once per tensor, in order.
 * @param {{ layers: number, d: number, heads: number, vocab: number, n: number }} sizes
 */
export async function gpt2Model({ layers, d, heads, vocab, n }, read) {
  const dK = d / heads;
  const nodes = [];
  const initializers = [];
  const weight = async (name) => {
    const t = await read(name);
    initializers.push(floatTensor(name, t.shape, t.data));
    return name;
  };
  const add = (op, inputs, output, attributes) => {
    nodes.push(node(op, inputs, [output], attributes));
    return output;
  };
  const linear = async (x, prefix, out) => {
    const y = add('MatMul', [x, await weight(`${prefix}.weight`)], `${out}.mm`);
    return add('Add', [y, await weight(`${prefix}.bias`)], out);
  };
  const layerNorm = async (x, prefix, out) =>
    add('LayerNormalization', [x, await weight(`${prefix}.weight`), await weight(`${prefix}.bias`)], out, [
      intAttribute('axis', -1),
    ]);

  const mask = new Float32Array(n * n); // [n, n]: −inf above the diagonal
  for (let i = 0; i < n; i++) mask.fill(-Infinity, i * n + i + 1, (i + 1) * n);
  initializers.push(
    floatTensor('mask', [n, n], mask),
    floatTensor('scale', [], Float32Array.of(1 / Math.sqrt(dK))),
    int64Tensor('split', [d, d, d]),
    int64Tensor('heads_shape', [n, heads, dK]),
    int64Tensor('flat_shape', [n, d]),
  );
  const tokens = add('Gather', [await weight('wte.weight'), 'ids'], 'tokens');
  const positions = add('Gather', [await weight('wpe.weight'), 'positions'], 'pos');
  let h = add('Add', [tokens, positions], 'h0');
  const outputs = [];
  for (let l = 0; l < layers; l++) {
    const at = `h.${l}`;
    const x = await layerNorm(h, `${at}.ln_1`, `${at}.ln1`);
    const qkv = await linear(x, `${at}.attn.c_attn`, `${at}.qkv`);
    nodes.push(node('Split', [qkv, 'split'], [`${at}.q`, `${at}.k`, `${at}.v`], [intAttribute('axis', 1)]));
    const [q, k, v] = ['q', 'k', 'v'].map((part) => {
      const r = add('Reshape', [`${at}.${part}`, 'heads_shape'], `${at}.${part}.r`);
      return add('Transpose', [r], `${at}.${part}.t`, [intsAttribute('perm', [1, 0, 2])]); // [H, n, d_k]
    });
    const kT = add('Transpose', [k], `${at}.kT`, [intsAttribute('perm', [0, 2, 1])]);
    const raw = add('MatMul', [q, kT], `${at}.raw`);
    const scaled = add('Mul', [raw, 'scale'], `${at}.scaled`);
    const scores = add('Add', [scaled, 'mask'], `${at}.scores`);
    const weights = add('Softmax', [scores], `attentions.${l}`, [intAttribute('axis', -1)]);
    outputs.push([`attentions.${l}`, [heads, n, n]]);
    const heads_ = add('MatMul', [weights, v], `${at}.heads`);
    const merged = add('Transpose', [heads_], `${at}.merged`, [intsAttribute('perm', [1, 0, 2])]);
    const concat = add('Reshape', [merged, 'flat_shape'], `${at}.concat`);
    const attention = await linear(concat, `${at}.attn.c_proj`, `${at}.attn`);
    const residual = add('Add', [h, attention], `${at}.residual`);
    const x2 = await layerNorm(residual, `${at}.ln_2`, `${at}.ln2`);
    const up = await linear(x2, `${at}.mlp.c_fc`, `${at}.up`);
    const act = add('Gelu', [up], `${at}.gelu`, [stringAttribute('approximate', 'tanh')]);
    const down = await linear(act, `${at}.mlp.c_proj`, `${at}.down`);
    h = add('Add', [residual, down], `h${l + 1}`);
  }
  const final = await layerNorm(h, 'ln_f', 'final');
  add('Gemm', [final, 'wte.weight'], 'logits', [intAttribute('transB', 1)]);
  outputs.unshift(['logits', [n, vocab]]);
  const graph = [
    ...nodes.map((x) => [1, x]),
    [2, 'gpt2'],
    ...initializers.map((t) => [5, t]),
    [11, tensorInfo('ids', INT64, [n])],
    [11, tensorInfo('positions', INT64, [n])],
    ...outputs.map(([name, dims]) => [12, tensorInfo(name, FLOAT, dims)]),
  ];
  return encode([
    [1, 9], // ir_version
    [2, 'attention-wasm model bench'],
    [7, graph],
    [8, [[2, 20]]], // opset_import: default domain, opset 20 (Gelu's approximate)
  ]);
}
