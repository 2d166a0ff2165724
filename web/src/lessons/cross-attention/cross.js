// Cross-attention: the sentence gives the queries (decoder side), a second sentence the keys and values (encoder
// side), through the public API's crossAttention.
import { attentionCall, labelsFor } from '../../shared/inputs.js';
import { addMatrices, embeddingRow, sinusoidalPositions } from '../../shared/positions.js';
import { allSeeded, sourcesText } from '../../shared/provenance.js';
import { LIMITS } from '../../shared/state.js';
import { tokenize } from '../../shared/tokens.js';

/** The encoder side's tokens: the second sentence's words, at most LIMITS.n of them. */
export function sourceTokens(state) {
  return tokenize(state.source).slice(0, LIMITS.n);
}

/**
 * The encoder side's input: each word of the second sentence looked up in the same embedding table as X, plus the
 * positional encodings when they are on.
 * @returns {number[][]}  [L_k, d_model]
 */
export function sourceInput(state) {
  const rows = sourceTokens(state).map((token) => embeddingRow(state.seed, state.dist, token, state.dModel));
  return state.positions && rows.length ? addMatrices(rows, sinusoidalPositions(rows.length, state.dModel)) : rows;
}

/**
 * Runs crossAttention(x, context, weights): Q from the sentence's X, K and V from the second sentence, with the
 * state's W_q, W_k, W_v, W_o and heads, no mask (cross-attention sees the whole source).
 *
 * | result          | shape            |
 * |-----------------|------------------|
 * | context         | [L_k, d_model]   | the encoder side's input
 * | result.k        | [H, L_k, d_k]    |
 * | result.weights  | [H, L_q, L_k]    | L_q = n, not square
 * | result.output   | [L_q, d_model]   |
 * @param {{ crossAttention: Function }} attn
 * @returns {{ error: string } | { queries: string[], keys: string[], context: number[][], result: object, cut: number }}
 */
export function crossStep(attn, state) {
  const words = tokenize(state.source).length;
  if (words === 0) {
    return {
      error:
        'The second sentence has no tokens, so there are no keys or values to attend to: type at least one word into it (for example “le temps vole”).',
    };
  }
  const context = sourceInput(state);
  const call = attentionCall({ ...state, causal: false, mask: null });
  const options = { returnSteps: true };
  if (call.options.scale !== undefined) options.scale = call.options.scale;
  const flat = { data: Float64Array.from(context.flat()), shape: [context.length, state.dModel] };
  const result = attn.crossAttention(call.x, flat, call.weights, options);
  return {
    queries: labelsFor(state),
    keys: sourceTokens(state),
    context,
    result,
    cut: Math.max(0, words - LIMITS.n),
  };
}

/** The lesson's text under the heatmap: the shapes, and where cross-attention is used. */
export function crossText(state, step) {
  if (step.error) return '';
  const Lq = state.n;
  const Lk = step.keys.length;
  const cut = step.cut
    ? ` Only the first ${LIMITS.n} words of the second sentence are used (${step.cut} left out).`
    : '';
  return (
    `The ${Lq} tokens of the first sentence ask (rows, Q = X·W_q); the ${Lk} tokens of the second answer (columns, ` +
    `K = X_src·W_k, V = X_src·W_v). So QKᵀ and the weights are ${Lq} × ${Lk}${Lq === Lk ? ' (square only because both sentences have the same length)' : ', not square'}, ` +
    `each row still sums to 1, and the output has one row per query: [${Lq}, ${state.dModel}].${cut} ` +
    "The encoder is skipped here: K and V are made from the second sentence's embeddings, where a translation model " +
    "makes them from its encoder's output. " +
    (allSeeded(state, ['x', 'wq', 'wk'])
      ? 'The weights here are random, so which word looks at which means nothing yet'
      : `Here ${sourcesText(state, ['x', 'wq', 'wk'])}, but the second sentence's rows are random from seed ${state.seed} (the page's table, not a model's), so which word looks at which means nothing`) +
    '; a trained translation model learns to look at the source words it is translating.'
  );
}
