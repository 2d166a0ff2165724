// "Use your own model": which tensors of a model's file are X, W_q, W_k, W_v, W_o, the biases and the model's own
// attention probabilities, for the common layouts (GPT-2, nn.MultiheadAttention, BERT, LLaMA), and the page's
// matrices cut out of them. Pure: tensors are { data: Float32Array, shape: number[] }; nothing here draws.
import { attentionTensorsOf, attentionWeightsFrom } from '../../../src/js/model/index.js';

/**
 * A slot's source: a tensor, the part of it to take, and whether it is transposed ([out, in] → [in, out]). A part is
 * block `index` of `of` along `axis`: equal blocks, or with `blocks` q | k | v of H·d_k, H_kv·d_k, H_kv·d_k (a
 * fused tensor of a family: GPT-2's c_attn, Phi-3's qkv_proj), or with `perHead` the `index`-th d_k of each head's
 * [q_h | k_h | v_h] (GPT-NeoX's query_key_value).
 * @typedef {{ name: string, part?: { axis: 0 | 1, index: number, of: number, blocks?: boolean, perHead?: boolean },
 *   transpose?: boolean }} Source
 */

/**
 * The layouts of a checkpoint's family (GPT-2, BERT, LLaMA): attention-wasm/model's attentionTensorsOf recognises
 * them and gives each weight's source (the names, prefixes, c_attn's split and Linear's transposes live there, as
 * attentionWeightsFrom reads them); the page titles them.
 */
const FAMILY_TITLES = {
  gpt2: 'GPT-2 (fused c_attn, Conv1D [in, out])',
  bert: 'BERT (query/key/value Linear [out, in]: transposed)',
  llama: 'LLaMA-style q_proj/k_proj/v_proj/o_proj (Linear [out, in]: transposed; fewer K/V heads allowed)',
};

/** The title of a family the page has no words of its own for: its label, how its q, k and v are stored. */
const familyTitle = ({ label, choices, sources }) => {
  const fused = Object.values(sources).some((s) => s.part);
  const qkv = !fused ? '' : choices.qkvLayout === 'perHead' ? 'q, k and v fused by head, ' : 'q | k | v fused, ';
  return `${label} (${qkv}${choices.layout === 'outIn' ? 'Linear [out, in]: transposed' : 'Conv1D [in, out]'})`;
};

/**
 * attentionTensorsOf's sources as the page's: a fused tensor's q, k and v (the family file says how: by columns, by
 * rows, or by head), along axis 1 of a Conv1D weight [in, out], else along axis 0 (a Linear weight's rows, a bias).
 */
const pageSources = (sources) =>
  Object.fromEntries(
    Object.entries(sources).map(([slot, { part, ...rest }]) => {
      if (!part) return [slot, rest];
      const axis = slot.startsWith('b') || part.byRows || part.perHead ? 0 : 1;
      const how = part.perHead ? { perHead: true } : { blocks: true };
      return [slot, { ...rest, part: { axis, index: part.index, of: part.of, ...how } }];
    }),
  );

/**
 * Where output k of a part (along its axis, of `size` in the tensor) is in the tensor, and the part's length; null
 * when the size does not split so. `heads`: { numHeads, numKvHeads? } for q | k | v blocks and per-head parts.
 */
function partIndex(part, size, heads) {
  const H = heads?.numHeads ?? 1;
  const Hkv = heads?.numKvHeads ?? H;
  if (part.perHead) {
    const dK = size / (3 * H);
    if (!Number.isInteger(dK)) return null;
    return { length: H * dK, at: (k) => Math.floor(k / dK) * 3 * dK + part.index * dK + (k % dK) };
  }
  const widths = part.blocks
    ? [H, Hkv, Hkv].map((h) => (h * size) / (H + 2 * Hkv))
    : Array(part.of).fill(size / part.of);
  if (!widths.every(Number.isInteger)) return null;
  const from = widths.slice(0, part.index).reduce((a, b) => a + b, 0);
  return { length: widths[part.index], at: (k) => from + k };
}

/** The layouts only the page reads (no checkpoint family): each gives, for a prefix, its sources. */
const LAYOUTS = [
  {
    id: 'mha',
    title: 'PyTorch nn.MultiheadAttention (in_proj_weight [3·d_model, d_model], Linear [out, in]: transposed)',
    match: /^(.*?)in_proj_weight$/u,
    sources: (p) => {
      const part = (index) => ({ axis: 0, index, of: 3 });
      return {
        wq: { name: `${p}in_proj_weight`, part: part(0), transpose: true },
        wk: { name: `${p}in_proj_weight`, part: part(1), transpose: true },
        wv: { name: `${p}in_proj_weight`, part: part(2), transpose: true },
        wo: { name: `${p}out_proj.weight`, transpose: true },
        bq: { name: `${p}in_proj_bias`, part: part(0) },
        bk: { name: `${p}in_proj_bias`, part: part(1) },
        bv: { name: `${p}in_proj_bias`, part: part(2) },
        bo: { name: `${p}out_proj.bias` },
      };
    },
  },
  {
    id: 'plain',
    title: "attention-wasm's own names (x, wq, wk, wv, wo, as <attention-explorer src> reads them: [in, out])",
    match: /^(.*?)wq$/u,
    sources: (p) =>
      Object.fromEntries(
        ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'].map((slot) => [slot, { name: `${p}${slot}` }]),
      ),
  },
];

/** The slots of the mapping, as the page names them. */
export const SLOT_TITLES = {
  x: 'X (hidden states entering attention)',
  wq: 'W_q',
  wk: 'W_k',
  wv: 'W_v',
  wo: 'W_o',
  bq: 'b_q',
  bk: 'b_k',
  bv: 'b_v',
  bo: 'b_o',
  attentions: "the model's attention probabilities",
};

const X_NAMES = /^(x|hidden|hidden_states?|inputs?|ln_1|ln_out|h)(\.\d+)?$|hidden/iu;
const ATTENTION_NAMES = /attention|attn_probs|probs/iu;

/** Drops leading dimensions of size 1 (a batch of one). */
export const squeeze = (shape) => {
  const out = [...shape];
  while (out.length > 2 && out[0] === 1) out.shift();
  return out;
};

/** The layer a tensor's name ends with ("attentions.5" → 5), or null. */
const layerOfName = (name) => {
  const m = /\.(\d+)$/u.exec(name);
  return m ? Number(m[1]) : null;
};

/**
 * Guesses the mapping of a file's tensors.
 * @param {{ name: string, shape: number[] }[]} tensors
 * @param {{ layer?: number, config?: object }} [options]  layer: the one chosen, else the config's; config: a model's
 *   config.json or the README script's JSON (num_attention_heads, n_head, num_key_value_heads, layer)
 * @returns {{ layout: string | null, choices: object | null, title: string, layers: number[], layer: number,
 *   slots: Record<string, Source>,
 *   numHeads: number | null, headsFrom: 'config' | 'attentions' | null, numKvHeads: number | null, notes: string[] }}
 *   slots.attentions is only ever the chosen layer's (a name ending in it, or a name without a layer when the JSON's
 *   layer is the one chosen or the file has one layer)
 */
export function guessMapping(tensors, { layer, config } = {}) {
  const names = new Set(tensors.map((t) => t.name));
  const shapeOf = (name) => squeeze(tensors.find((t) => t.name === name)?.shape ?? []);
  const notes = [];
  const family = attentionTensorsOf([...names]);
  const page = family ? null : LAYOUTS.find((l) => tensors.some((t) => l.match.test(t.name)));
  const layerList = family?.layers ?? [];
  const exported = Number.isInteger(config?.layer) ? config.layer : null; // the README script's JSON says it
  const wanted = layer ?? exported;
  const chosen = layerList.includes(wanted) ? wanted : (layerList[0] ?? exported ?? 0);
  let slots = {};
  if (family) slots = pageSources(attentionTensorsOf([...names], { layer: chosen }).sources);
  else if (page) {
    const prefix = page.match.exec(tensors.find((t) => page.match.test(t.name)).name)[1];
    for (const [slot, source] of Object.entries(page.sources(prefix))) if (names.has(source.name)) slots[slot] = source;
  }
  const layoutId = family?.family ?? page?.id ?? null;
  if (!layoutId) notes.push('No known layout was recognised: choose each tensor below.');
  else if (Object.values(slots).some((s) => s.transpose))
    notes.push('PyTorch Linear weights are stored [out, in]: the page transposes them to [in, out].');
  const x = tensors.find((t) => X_NAMES.test(t.name) && squeeze(t.shape).length === 2);
  if (x) slots.x = { name: x.name };
  const square = (t) => squeeze(t.shape).length === 3 && squeeze(t.shape)[1] === squeeze(t.shape)[2];
  const attentions = tensors.filter((t) => ATTENTION_NAMES.test(t.name) && !names.has(`${t.name}.weight`) && square(t));
  // A model's attention probabilities are compared with the same layer only: those of another layer never are.
  const unnamedIsChosen = exported === null ? layerList.length <= 1 : exported === chosen;
  const probs =
    attentions.find((t) => layerOfName(t.name) === chosen) ??
    attentions.find((t) => layerOfName(t.name) === null && unnamedIsChosen);
  if (probs) slots.attentions = { name: probs.name };
  const others = attentions.filter((t) => t !== probs).map((t) => `“${t.name}”`);
  if (others.length && !probs)
    notes.push(
      `${others.join(', ')}: another layer's attention probabilities, so layer ${chosen} is not compared with them.`,
    );
  if (exported !== null && layerList.length && exported !== chosen)
    notes.push(
      `The JSON says this file was exported for layer ${exported}: its X is what layer ${exported} receives, so layer ${chosen} runs on another layer's input.`,
    );
  const fromConfig = config?.num_attention_heads ?? config?.n_head ?? null;
  const numHeads = fromConfig ?? (probs ? squeeze(probs.shape)[0] : null);
  const headsFrom = fromConfig ? 'config' : probs ? 'attentions' : null;
  let numKvHeads = config?.num_key_value_heads ?? null;
  if (numKvHeads === null && numHeads && slots.wq && slots.wk) {
    const q = shapeOf(slots.wq.name)[0];
    const k = shapeOf(slots.wk.name)[0];
    if (family?.choices.groupedKv && k < q && q % numHeads === 0) numKvHeads = k / (q / numHeads);
  }
  return {
    layout: layoutId,
    choices: family?.choices ?? null,
    title: FAMILY_TITLES[layoutId] ?? (family ? familyTitle(family) : (page?.title ?? 'unknown layout')),
    layers: layerList,
    layer: chosen,
    slots,
    numHeads,
    headsFrom,
    numKvHeads,
    notes,
  };
}

/** A source's shape after its part is taken and it is transposed (`heads`: partIndex's). */
export function sourceShape(source, shape, heads) {
  let dims = squeeze(shape);
  if (source.part) {
    const axis = Math.min(source.part.axis, dims.length - 1);
    const part = partIndex(source.part, dims[axis], heads);
    if (!part) return null;
    dims = dims.map((size, a) => (a === axis ? part.length : size));
  }
  if (source.transpose && dims.length === 2) dims = [dims[1], dims[0]];
  return dims;
}

/**
 * Cuts a source out of its tensor: the part, then the transpose. A 1-D tensor (a bias) gives a 1-D array.
 * @param {{ data: ArrayLike<number>, shape: number[] }} tensor
 * @param {{ numHeads: number, numKvHeads?: number | null }} [heads]  for a family's fused q | k | v (partIndex)
 * @returns {number[][] | number[]}
 */
export function extract(tensor, source, heads) {
  const dims = squeeze(tensor.shape);
  const whole = (size) => ({ length: size, at: (k) => k });
  const along = (axis, size) =>
    source.part && source.part.axis === axis ? partIndex(source.part, size, heads) : whole(size);
  if (dims.length === 1) {
    const part = source.part ? partIndex(source.part, dims[0], heads) : whole(dims[0]);
    return Array.from({ length: part.length }, (_, k) => tensor.data[part.at(k)]);
  }
  const [rows, cols] = dims;
  const [r, c] = [along(0, rows), along(1, cols)];
  const at = (i, j) => tensor.data[r.at(i) * cols + c.at(j)];
  return source.transpose
    ? Array.from({ length: c.length }, (_, j) => Array.from({ length: r.length }, (_, i) => at(i, j)))
    : Array.from({ length: r.length }, (_, i) => Array.from({ length: c.length }, (_, j) => at(i, j)));
}

const WEIGHT_SLOTS = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];

/** A [rows, cols] tensor as number[][], a vector as number[]. */
const asRows = ({ data, shape }) =>
  shape.length === 1
    ? Array.from(data)
    : Array.from({ length: shape[0] }, (_, r) => Array.from(data.subarray(r * shape[1], (r + 1) * shape[1])));

/**
 * A family layout's weights and biases as the page holds them (number[][], number[]), read by attention-wasm/model's
 * attentionWeightsFrom from the tensors the mapping names; null for another layout or when a weight is missing
 * (the page then cuts each source with extract and seeds the rest).
 * @param {(name: string) => Promise<{ data: Float32Array, shape: number[] }>} read
 */
export async function familyWeights(guess, read, { numHeads, numKvHeads }) {
  if (!guess.choices || ['wq', 'wk', 'wv', 'wo'].some((slot) => !guess.slots[slot])) return null;
  const names = [...new Set(WEIGHT_SLOTS.filter((slot) => guess.slots[slot]).map((slot) => guess.slots[slot].name))];
  const tensors = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await read(name)])));
  const config = { family: guess.layout, numHeads, ...(numKvHeads ? { numKvHeads } : {}) };
  const w = attentionWeightsFrom(tensors, { layer: guess.layer, config });
  return Object.fromEntries(WEIGHT_SLOTS.filter((slot) => w[slot]).map((slot) => [slot, asRows(w[slot])]));
}

/**
 * Grouped-query K or V weights [d_model, H_kv·d] in the page's shape [d_model, H·d]: the first H_kv blocks are the
 * kv heads, which the page's grouped-query attention reads (state.kvHeads = H_kv, as attention-wasm's numKvHeads);
 * the blocks after them repeat those, unread while kv heads = H_kv.
 */
export function widenKvHeads(rows, numKvHeads, numHeads) {
  const width = rows[0].length / numKvHeads;
  return rows.map((row) =>
    Array.from({ length: numHeads * width }, (_, c) => row[(Math.floor(c / width) % numKvHeads) * width + (c % width)]),
  );
}

/**
 * The settings under which the page shows a model's layer as the model computes it (no positions added, no
 * temperature, scaling on, its own W_k, no designed heads, no mask clicked), its numbers marked as a file's.
 */
export const AS_THE_MODEL = Object.freeze({
  mask: null,
  positions: false,
  temperature: 1,
  scaling: true,
  shareQK: false,
  design: false,
  fromFile: true,
});

/**
 * Checks a mapping against the tensors' shapes. Messages name the tensor and both shapes.
 * @param {Record<string, Source>} slots
 * @param {(name: string) => number[] | undefined} shapeOf
 * @param {{ numHeads: number, numKvHeads?: number | null }} heads
 * @returns {string[]} what is wrong (empty when the mapping fits)
 */
export function checkMapping(slots, shapeOf, { numHeads, numKvHeads }) {
  const errors = [];
  const shapes = {};
  for (const [slot, source] of Object.entries(slots)) {
    const shape = shapeOf(source.name);
    if (!shape) {
      errors.push(`${SLOT_TITLES[slot]}: the file has no tensor “${source.name}”`);
      continue;
    }
    const dims = sourceShape(source, shape, { numHeads, numKvHeads });
    if (!dims) errors.push(`${SLOT_TITLES[slot]}: “${source.name}” [${shape.join(', ')}] does not split in 3 parts`);
    else shapes[slot] = dims;
  }
  if (!slots.x) errors.push(`${SLOT_TITLES.x}: no tensor chosen`);
  const want = (slot, expected, why) => {
    const got = shapes[slot];
    if (!got || expected.some((e) => !Number.isInteger(e))) return;
    if (got.length !== expected.length || got.some((v, k) => v !== expected[k])) {
      errors.push(
        `${SLOT_TITLES[slot]}: “${slots[slot].name}” is [${got.join(', ')}] after the page's reading, but ${why} needs [${expected.join(', ')}]`,
      );
    }
  };
  const x = shapes.x;
  if (x && x.length !== 2) errors.push(`${SLOT_TITLES.x}: “${slots.x.name}” is [${x.join(', ')}], not [n, d_model]`);
  for (const slot of ['wq', 'wk', 'wv', 'wo']) {
    if (shapes[slot] && shapes[slot].length !== 2) {
      errors.push(`${SLOT_TITLES[slot]}: “${slots[slot].name}” is [${shapes[slot].join(', ')}], not a matrix`);
      delete shapes[slot];
    }
  }
  const dModel = x?.[1] ?? shapes.wq?.[0];
  const kv = numKvHeads ?? numHeads;
  const splits = (slot, heads) => {
    const cols = shapes[slot]?.[1];
    if (cols === undefined || cols % heads === 0) return true;
    errors.push(`${SLOT_TITLES[slot]}: ${cols} columns do not split into ${heads} heads (“${slots[slot].name}”)`);
    return false;
  };
  // W_k's width gives d_k when W_q is not chosen (the page's seed then makes W_q).
  const width = shapes.wq?.[1] ?? (shapes.wk && splits('wk', kv) ? (shapes.wk[1] / kv) * numHeads : undefined);
  if (dModel && shapes.wq && splits('wq', numHeads)) want('wq', [dModel, width], 'X [n, d_model]');
  if (dModel && width) {
    want('wk', [dModel, (width / numHeads) * kv], `W_q [${dModel}, ${width}] with ${kv} key/value heads`);
    want('bq', [width], 'W_q');
    want('bk', [(width / numHeads) * kv], 'W_k');
  }
  const vWidth = shapes.wv && splits('wv', kv) ? shapes.wv[1] : undefined;
  if (dModel && vWidth) {
    want('wv', [dModel, vWidth], 'X [n, d_model]');
    want('wo', [(vWidth / kv) * numHeads, dModel], `${numHeads} heads of W_v's width and d_model`);
    want('bv', [vWidth], 'W_v');
  } else if (dModel && shapes.wo && shapes.wo[0] % numHeads)
    errors.push(`W_o: ${shapes.wo[0]} rows do not split into ${numHeads} heads (“${slots.wo.name}”)`);
  if (dModel) want('bo', [dModel], 'W_o');
  if (shapes.attentions && x) want('attentions', [numHeads, x[0], x[0]], `${numHeads} heads of n × n`);
  return errors;
}
