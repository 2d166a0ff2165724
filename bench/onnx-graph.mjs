// A tiny ONNX attention graph, written as protobuf bytes by hand (field numbers from onnx/onnx.proto):
//   scores  = MatMul(q, Transpose(k)) · scale (+ causal mask)   [H, n, n]
//   weights = Softmax(scores, axis -1)                           [H, n, n]
//   output  = MatMul(weights, v)                                 [H, n, d]

const WIRE_VARINT = 0;
const WIRE_BYTES = 2;
const FLOAT = 1; // TensorProto.DataType
const ATTR_INT = 2; // AttributeProto.AttributeType
const ATTR_INTS = 7;

const utf8 = (s) => new TextEncoder().encode(s);

/** Protobuf varint of an int64, negatives as 10-byte two's complement. */
function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v ? byte | 0x80 : byte);
  } while (v);
  return out;
}

/** A message: a list of [field, value]; value is a number (varint), string, Uint8Array or nested list. */
export function encode(fields) {
  const parts = [];
  for (const [field, value] of fields) {
    if (typeof value === 'number' || typeof value === 'bigint') {
      parts.push(varint((field << 3) | WIRE_VARINT), varint(value));
      continue;
    }
    const bytes = typeof value === 'string' ? utf8(value) : value instanceof Uint8Array ? value : encode(value);
    parts.push(varint((field << 3) | WIRE_BYTES), varint(bytes.length), bytes);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export const node = (op, inputs, outputs, attributes = []) => [
  ...inputs.map((name) => [1, name]),
  ...outputs.map((name) => [2, name]),
  [3, `${op}_${outputs[0]}`],
  [4, op],
  ...attributes.map((a) => [5, a]),
];
export const intAttribute = (name, i) => [
  [1, name],
  [20, ATTR_INT],
  [3, i],
];
export const intsAttribute = (name, ints) => [[1, name], [20, ATTR_INTS], ...ints.map((i) => [8, i])];
export const floatTensor = (name, dims, values) => [
  ...dims.map((d) => [1, d]),
  [2, FLOAT],
  [8, name],
  [9, new Uint8Array(values.buffer, values.byteOffset, values.byteLength)],
];
export const valueInfo = (name, dims) => [
  [1, name],
  [
    2,
    [
      [
        1,
        [
          [1, FLOAT],
          [2, dims.map((d) => [1, [[1, d]]])],
        ],
      ],
    ],
  ],
];

/**
 * The model's bytes for `heads` heads of n × d, with inputs q, k, v [heads, n, d] and outputs `output`
 * (and `weights` when `withWeights`).
 */
export function attentionModel({ heads, n, d, causal, withWeights }) {
  const nodes = [
    node('Transpose', ['k'], ['k_t'], [intsAttribute('perm', [0, 2, 1])]),
    node('MatMul', ['q', 'k_t'], ['raw']),
    node('Mul', ['raw', 'scale'], causal ? ['scaled'] : ['scores']),
  ];
  const initializers = [floatTensor('scale', [], Float32Array.of(1 / Math.sqrt(d)))];
  if (causal) {
    const mask = new Float32Array(n * n);
    for (let i = 0; i < n; i++) mask.fill(-Infinity, i * n + i + 1, (i + 1) * n);
    nodes.push(node('Add', ['scaled', 'mask'], ['scores']));
    initializers.push(floatTensor('mask', [n, n], mask));
  }
  nodes.push(node('Softmax', ['scores'], ['weights'], [intAttribute('axis', -1)]));
  nodes.push(node('MatMul', ['weights', 'v'], ['output']));
  const graph = [
    ...nodes.map((n) => [1, n]),
    [2, 'attention'],
    ...initializers.map((t) => [5, t]),
    ...['q', 'k', 'v'].map((name) => [11, valueInfo(name, [heads, n, d])]),
    [12, valueInfo('output', [heads, n, d])],
    ...(withWeights ? [[12, valueInfo('weights', [heads, n, n])]] : []),
  ];
  return encode([
    [1, 8], // ir_version
    [2, 'attention-wasm bench'],
    [7, graph],
    [8, [[2, 17]]], // opset_import: default domain, opset 17
  ]);
}
