// Generation on a real model, without the page: its settings (read from the form and from a link, written to a
// link), the options for model.generate(), and one step's query row against the KV cache (which keys were cached
// and which one is new). Drawing is in generateView.js, the steps' iterator in generatePanel.js.
import { headName } from '../../../shared/counting.js';
import { GENERATE_DEFAULTS, MAX_NEW_TOKENS, generateSettings, readQuery, writeQuery } from '../../../app/link.js';

export { GENERATE_DEFAULTS, MAX_NEW_TOKENS };

/** How many alternatives a step lists (generate()'s `next`). */
export const ALTERNATIVES = 5;

/**
 * Settings from loose values (a form's strings, a link's parameters): each checked and kept in range, or its
 * default (app/link.js's rows of generation). topK 0 means no top-k.
 * @returns {{ maxNewTokens: number, temperature: number, topK: number, topP: number, seed: number }}
 */
export const readSettings = generateSettings;

/** The settings held in a query string (`gen` is their marker: a link without it has none), or null. */
export function readGenerateLink(search) {
  const { values, given } = readQuery(search);
  return given.has('gen') ? generateSettings(values) : null;
}

/** The query string with `settings` (or without any, for null), keeping the page's other parameters. */
export const writeGenerateLink = (search, settings) => writeQuery(search, 'generate', settings);

/** model.generate()'s options for the settings (topK 0: none), with `signal` and the heads switched off. */
export function generateOptions(settings, signal, ablate = []) {
  const { maxNewTokens, temperature, topK, topP, seed } = settings;
  const more = { ...(topK > 0 ? { topK } : {}), ...(ablate.length ? { ablate } : {}) };
  return { maxNewTokens, temperature, topP, seed, next: ALTERNATIVES, signal, ...more };
}

/** "greedy" or "sampled at temperature 0.8, top-k 10, top-p 0.9, seed 1": how the tokens are chosen. */
export function settingsText(settings) {
  if (settings.temperature === 0) return 'greedy: each step takes the most probable token';
  const parts = [`temperature ${settings.temperature}`];
  if (settings.topK > 0) parts.push(`top-k ${settings.topK}`);
  if (settings.topP < 1) parts.push(`top-p ${settings.topP}`);
  return `sampled at ${parts.join(', ')}, seed ${settings.seed}`;
}

/**
 * Step `step`'s query row for one layer and head, against the KV cache: the weights over every key so far, and
 * for each key whether it was computed at this step (`fresh`) or read from the cache. Step 0 is the prefill: the
 * prompt ran whole, every key was computed then (and cached); at step s ≥ 1 only the token chosen at step s − 1
 * runs, so its key is the one new key and the others are the cache's.
 * @param {{ step: number, attentions: { shape: number[], data: Float32Array }[] }} step
 * @returns {{ weights: number[], fresh: boolean[], query: number }}  query: the row's token index
 */
export function stepRow(step, layer, head) {
  const attention = step.attentions[layer];
  const n = attention.shape[2];
  const weights = Array.from(attention.data.subarray(head * n, (head + 1) * n));
  const fresh = weights.map((_, j) => step.step === 0 || j === n - 1);
  return { weights, fresh, query: n - 1 };
}

/** The sentences that say what a step computes and what it reuses. */
export function stepText(step, n, layer, head) {
  const where = headName(layer, head);
  if (step.step === 0) {
    return `Step 1 runs the prompt whole (the prefill): all ${n} tokens’ keys and values are computed and stored in the KV cache. The row is ${where}’s query of the last token over them; its choice is the first new token.`;
  }
  return `Step ${step.step + 1} runs one token through the model: only its query, key and value are computed. Its key and value join the cache; the ${n - 1} earlier keys and values are read from the cache, not computed again. The row is ${where}’s query of the new token over all ${n} keys.`;
}
