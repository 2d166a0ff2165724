// The worker of seedAhead.js: makes a state's generated matrices with the page's own generatedMatrix (the same code
// and the same V8 Math as the page, so the same numbers bit for bit), then the attention result of the page's own
// call for that state (attentionCall and float32Call, as render() makes it, and the same WebAssembly module through
// the package's public API: the same bits). It sends the new matrices as flat float64 and float32 arrays and the
// result's arrays, all transferred, not copied (a nested array of 590 000 numbers would take the page ~50 ms to read).
import { createAttention } from 'attention-wasm';
import { INPUT_NAMES, generatedMatrix, generationKey, prepareGenerated } from '../shared/matrices.js';
import { attentionCall } from '../shared/inputs.js';
import '../lessons/designed-heads/designedHeads.js'; // the designed heads' matrices, for matrices.js
import { float32Call } from './attentionCalls.js';
import { flatRows, flatten } from '../shared/reuse.js';

/** The rows of the matrices the page may still take, by generation key (the page says which it still wants). */
const kept = new Map();
let attention = null;

/**
 * The result of the page's call for `state`, and how its inputs were made: a slot (x, wq, …, bo) whose numbers are a
 * kept matrix's float32 copy is named by that matrix's key (the page holds the same copy); any other (X with
 * positions, biases) is sent as the numbers themselves.
 */
async function resultOf(state, transfer) {
  // Fresh outer arrays, so that the flat copies reuse.js caches for them are made here and dropped with them (the
  // ones sent are transferred, never cached).
  const keys = new Map();
  for (const name of INPUT_NAMES) {
    const key = generationKey(state, name);
    const rows = kept.get(key);
    if (!rows) continue;
    keys.set(name, key);
    prepareGenerated(name, key, rows.slice());
  }
  const call = attentionCall(state);
  const keyOf = new Map([...keys].map(([name, key]) => [flatRows(generatedMatrix(state, name)), key]));
  const single = float32Call(call);
  attention ??= createAttention();
  const out = (await attention).selfAttention(single.x, single.weights, single.options);
  const inputs = {};
  const slot = (name, tensor, made) => {
    const key = keyOf.get(tensor.data);
    inputs[name] = key ? { key, shape: tensor.shape } : { data: made.data.slice(), shape: tensor.shape };
    if (!key) transfer.push(inputs[name].data.buffer);
  };
  slot('x', call.x, single.x);
  for (const name of ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo']) {
    if (call.weights[name]) slot(name, call.weights[name], single.weights[name]);
  }
  const tensors = {};
  for (const [name, { data, shape }] of Object.entries(out)) {
    tensors[name] = { data, shape };
    transfer.push(data.buffer);
  }
  const { numHeads, numKvHeads } = call.weights;
  return { tensors, inputs, numHeads, numKvHeads, options: JSON.stringify(call.options) };
}

globalThis.onmessage = async ({ data: { id, state, names, keep } }) => {
  for (const key of [...kept.keys()]) if (!keep.includes(key)) kept.delete(key);
  const matrices = [];
  const transfer = [];
  for (const name of names) {
    const rows = generatedMatrix(state, name);
    const key = generationKey(state, name);
    kept.set(key, rows);
    const flat = flatten(rows);
    const single = Float32Array.from(flat);
    matrices.push({ name, key, rows: rows.length, flat, single });
    transfer.push(flat.buffer, single.buffer);
  }
  // Without a result (the module did not load here, or the call failed), the page computes it itself.
  const result = await resultOf(state, transfer).catch(() => null);
  globalThis.postMessage({ id, matrices, result }, [...new Set(transfer)]); // a buffer listed twice would throw
};
