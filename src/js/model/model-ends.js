// The forward's two ends on a model's weights (model.js's engine.embed, .final and .logits): the embeddings' output
// of the tokens' rows (with positions and token types), the final norm, and the LM head's logits by blocks of the
// vocabulary. Each reads its tables through the model's `parts` (resident in WebAssembly memory, or read from the
// checkpoint) and runs its call on the model's module.
import { Tensor } from '../tensor.js';
import { made, modelDims, modelPlan, weight } from './calls.js';
import { blockRows } from './resident.js';
import { positionIds } from './positions.js';

/**
 * @typedef {object} ModelParts  what the ends use of a Model (model.js)
 * @property {object} spec  the model's normalized description
 * @property {() => object} tensors  the resolved tensors (checkpoint.js), null once the model is disposed
 * @property {() => object | null} shards  the workers (shards.js), or null
 * @property {(plan: object) => object} call  runs a model call's plan
 * @property {(phase: string, layer: number | undefined, ctx: object) => void} progress  a progress event
 * @property {(key: string, entries: object[], ctx: object) => Promise<object>} group  a group of tensors
 * @property {(entry: object, ctx: object) => Promise<number>} matrix  a resident table's address, else 0
 * @property {(entry: object, range: number[], address: number, ctx: object) => Promise<Float32Array>} rows
 * @property {(entry: object, rows: number[] | undefined, ctx: object) => Promise<object>} read  a call's weight input
 */

/** Rows `rowIds` of a table [rows, d] as [rowIds.length, d], each distinct row read once (in order). */
async function gather(parts, entry, rowIds, table, ctx) {
  const d = entry.shape[1];
  const byId = new Map();
  for (const id of [...new Set(rowIds)].sort((a, b) => a - b)) {
    byId.set(id, await parts.rows(entry, [id, id + 1], table, ctx));
  }
  const out = new Float32Array(rowIds.length * d); // [rows, d]
  rowIds.forEach((id, i) => out.set(byId.get(id), i * d));
  return out;
}

/**
 * The embeddings' output [n, d]: the ids' token rows + positions (positions.js: from `first`) and types.
 * @param {ModelParts} parts
 */
export async function embed(parts, ids, tokenTypeIds, first = 0, ctx) {
  parts.progress('embeddings', undefined, ctx);
  const spec = parts.spec;
  const { dModel: d } = spec;
  const n = ids.length;
  const { tokens, positions, types } = parts.tensors().embeddings;
  const [tokenTable, positionTable, typeTable] = [
    await parts.matrix(tokens, ctx),
    await parts.matrix(positions, ctx),
    await parts.matrix(types, ctx),
  ];
  const inputs = { x: made(await gather(parts, tokens, ids, tokenTable, ctx), [n, d], tokens.name) };
  const dims = modelDims(spec, n);
  const at = positionIds(spec.positions, ids, first);
  const start = at[0];
  // A resident table's rows are passed where they are: the call adds them, element by element.
  if (positions && !at.every((p, i) => p === start + i)) {
    const rows = await gather(parts, positions, at, positionTable, ctx);
    inputs.positionEmbeddings = weight({ data: rows, shape: [n, d] }, positions.name); // scanned, as a read's
  } else if (positionTable) dims.positionEmbeddings = positionTable + start * d * 4;
  else if (positions) inputs.positionEmbeddings = await parts.read(positions, [start, start + n], ctx);
  if (types) {
    const typeIds = ids.map((_, i) => tokenTypeIds?.[i] ?? 0);
    inputs.typeEmbeddings = made(await gather(parts, types, typeIds, typeTable, ctx), [n, d], types.name);
  }
  const norm = await parts.group('embedNorm', parts.tensors().embedNorm, ctx);
  Object.assign(inputs, norm.inputs);
  const plan = modelPlan('modelEmbed', { ...dims, ...norm.addresses }, inputs, { output: [n, d] });
  return parts.call(plan).output;
}

/**
 * The final norm (GPT-2's ln_f, LLaMA's norm) or BERT's prediction-head transform, on [n, d].
 * @param {ModelParts} parts
 */
export async function finalNorm(parts, hidden, ctx) {
  parts.progress('final', undefined, ctx);
  const spec = parts.spec;
  const inputs = { x: made(hidden.data, hidden.shape, 'the last hidden state') };
  const norm = await parts.group('final', parts.tensors().final, ctx);
  Object.assign(inputs, norm.inputs);
  const dims = { ...modelDims(spec, hidden.shape[0]), ...norm.addresses };
  const plan = modelPlan('modelNorm', dims, inputs, { output: hidden.shape });
  return parts.call(plan).output;
}

/**
 * logits [n, vocab] = h · W_headᵀ (+ bias) by blocks of W_head's rows; on the workers' rows in a ctx.sharded run.
 * @param {ModelParts} parts
 */
export async function headLogits(parts, h, ctx) {
  const shards = parts.shards();
  if (ctx?.sharded && shards) {
    parts.progress('head', undefined, ctx);
    return shards.logits(h, ctx.signal);
  }
  const spec = parts.spec;
  const [n, d] = h.shape;
  const { vocabSize: V } = spec;
  const logits = new Float32Array(n * V); // [n, V]
  const block = blockRows(d);
  const { head, headBias } = parts.tensors();
  const table = await parts.matrix(head, ctx); // a resident head's blocks are passed where they are
  const bias = headBias ? await parts.group('headBias', [headBias], ctx) : null;
  const readBlock = (v0) => {
    const read = v0 < V && !table ? parts.read(head, [v0, Math.min(v0 + block, V)], ctx) : null;
    read?.catch(() => {}); // awaited below, or dropped after an error
    return read;
  };
  let next = readBlock(0);
  for (let v0 = 0; v0 < V; v0 += block) {
    parts.progress('head', undefined, ctx);
    const rows = Math.min(block, V - v0);
    const inputs = { x: made(h.data, h.shape, 'the final hidden state') };
    const dims = { ...modelDims(spec, n), dOut: rows };
    if (table) dims.wHead = table + v0 * d * 4;
    else inputs.wHead = await next;
    next = readBlock(v0 + block); // the next block is read while this one computes
    if (bias?.addresses.bHead) dims.bHead = bias.addresses.bHead + v0 * 4;
    else if (bias)
      inputs.bHead = weight({ data: bias.inputs.bHead.data.subarray(v0, v0 + rows), shape: [rows] }, headBias.name);
    const { output } = parts.call(modelPlan('modelLogits', dims, inputs, { output: [n, rows] }));
    for (let i = 0; i < n; i++) logits.set(output.data.subarray(i * rows, (i + 1) * rows), i * V + v0);
  }
  return new Tensor(logits, [n, V]);
}
