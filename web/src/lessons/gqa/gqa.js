// Grouped-query attention: groups of query heads share one key head and one value head, through the public API.
import { attentionCall } from '../../shared/inputs.js';
import { headBlock } from '../../shared/matrices.js';

/** The numbers that divide `heads`, smallest first: the kv heads it allows. */
export const divisorsOf = (heads) => Array.from({ length: heads }, (_, i) => i + 1).filter((d) => heads % d === 0);

/** A KV cache per token and layer in known models (16-bit numbers), for the lesson's text. */
export const KNOWN_MODELS = [
  { name: 'LLaMA 2 70B', heads: 64, kvHeads: 8, layers: 80, dHead: 128 },
  { name: 'Mistral 7B', heads: 32, kvHeads: 8, layers: 32, dHead: 128 },
];

/** Bytes of a model's KV cache for one token over all its layers (K and V, 2 bytes a number), with `kv` kv heads. */
export const cacheBytesPerToken = (model, kv = model.kvHeads) => 2 * model.layers * kv * model.dHead * 2;

/**
 * Runs the state's layer with its `kvHeads` key and value heads, as every step of the page does (attentionCall):
 * W_q keeps its H head blocks, W_k and W_v their first H_kv blocks, and query head h uses kv head ⌊h / (H / H_kv)⌋.
 *
 * | result          | shape              |
 * |-----------------|--------------------|
 * | result.k        | [H_kv, n, d_k]     |
 * | result.v        | [H_kv, n, d_v]     |
 * | result.weights  | [H, n, n]          |
 * | group           | [H]                | group[h]: the kv head that query head h uses
 * @param {{ selfAttention: Function }} attn
 * @returns {{ error: string } | { kvHeads: number, group: number[], result: object, memory: object }}
 */
export function gqaStep(attn, state) {
  const { numHeads: H, dK, dV, n } = state;
  const G = state.kvHeads ?? H;
  if (!Number.isInteger(G) || G < 1 || G > H || H % G !== 0) {
    return {
      error: `kv heads = ${G} does not divide heads = ${H}: each group must have the same number of query heads. Use one of ${divisorsOf(H).join(', ')}, or change heads in the settings. Until then, every step computes ordinary multi-head attention (a K and V per head).`,
    };
  }
  const call = attentionCall(state);
  const result = attn.selfAttention(call.x, call.weights, call.options);
  const perToken = G * (dK + dV);
  const perTokenFull = H * (dK + dV);
  return {
    kvHeads: G,
    group: Array.from({ length: H }, (_, h) => headBlock(state, 'wk', h)),
    result,
    memory: { perToken, perTokenFull, total: n * perToken, totalFull: n * perTokenFull, saving: 1 - G / H },
  };
}

const kib = (bytes) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`);

/** The lesson's text: the groups, the KV memory for these sizes, and the models that use grouped-query attention. */
export function gqaText(state, step) {
  if (step.error) return '';
  const { numHeads: H, n, dK, dV } = state;
  const G = step.kvHeads;
  const { total, totalFull, saving } = step.memory;
  const groups =
    G === H
      ? `With kv heads = heads = ${H}, every query head has its own K and V: this is ordinary multi-head attention.`
      : G === 1
        ? `With one kv head, all ${H} query heads share one K and one V: multi-query attention (PaLM, Falcon 7B).`
        : `With ${G} kv heads for ${H} query heads, each group of ${H / G} query heads (the same K, V number below) shares one K and one V; each head keeps its own queries, so its own pattern.`;
  const memory =
    `The KV cache of these ${n} tokens holds ${n} × ${G} × (${dK} + ${dV}) = ${total.toLocaleString('en')} numbers ` +
    `(${(4 * total).toLocaleString('en')} bytes in float32) instead of ${n} × ${H} × (${dK} + ${dV}) = ${totalFull.toLocaleString('en')} ` +
    `(${(4 * totalFull).toLocaleString('en')} bytes) with a K and V per head: ${Math.round(saving * 100)}% less.`;
  const models = KNOWN_MODELS.map(
    (m) =>
      `${m.name} (${m.heads} query heads, ${m.kvHeads} kv heads, ${m.layers} layers: ${kib(cacheBytesPerToken(m))} of cache per token in 16-bit numbers instead of ${kib(cacheBytesPerToken(m, m.heads))})`,
  ).join(' and ');
  return `${groups} ${memory} Models that use grouped-query attention include ${models}.`;
}
