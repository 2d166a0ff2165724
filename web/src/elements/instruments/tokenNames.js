// The tokens an element's instrument names, without the vocabulary (attention-wasm/model does not hand it out):
// an id's text is what a run of those ids gives as its tokens (one cheap run of one layer, remembered per model), and
// a word typed is what model.tokenize makes of it (one token, the tokenizer's own special tokens left out; no run).
// No DOM: what is read is only compared and shown as text.
import { shorten } from '../attributes.js';
import { label } from '../modelFigure.js';

const known = new WeakMap(); // model → Map(id → text)
const specials = new WeakMap(); // model → { before: number, after: number }: the tokenizer's added tokens

const QUIET = { layers: 1, attentions: false, hiddenStates: false, logits: false };

/**
 * The names of `ids` on `model`, each as a label (spaces at its ends as “·”): runs the ids not named yet through one
 * layer, at most the model's positions at a time.
 * @param {{ call: (use: Function) => Promise<any> }} shared  sharedModel's (its calls queued)
 * @returns {Promise<(id: number) => string>}
 */
export async function tokenNames(shared, model, ids) {
  if (!known.has(model)) known.set(model, new Map());
  const names = known.get(model);
  const missing = [...new Set(ids)].filter((id) => !names.has(id) && id >= 0 && id < model.spec.vocabSize);
  const step = Math.max(1, Math.min(64, model.spec.maxPositions || 64));
  for (let k = 0; k < missing.length; k += step) {
    const chunk = missing.slice(k, k + step);
    const r = await shared.call((m) => m.run({ ids: chunk }, QUIET));
    chunk.forEach((id, i) => names.set(id, r.tokens?.[i] ?? `#${id}`));
  }
  return (id) => label(names.get(id) ?? `#${id}`);
}

/** How many tokens the tokenizer adds before and after any text (BERT's [CLS] and [SEP], LLaMA's <s>). */
function addedTokens(model) {
  if (!specials.has(model)) {
    const [one, three] = [model.tokenize('a').ids, model.tokenize('b . c').ids];
    let before = 0;
    while (before < one.length && one[before] === three[before]) before++;
    let after = 0;
    while (after < one.length - before && one.at(-1 - after) === three.at(-1 - after)) after++;
    specials.set(model, { before, after });
  }
  return specials.get(model);
}

/**
 * A token written in an attribute or a field (`name` says which, for the message): an id (digits), or text the
 * tokenizer reads as one token of the model's vocabulary (GPT-2's leading space written: " Mary"), read by
 * model.tokenize (no layer runs).
 * @returns {{ id: number } | { problem: string }}
 */
export function readTokenText(model, text, name) {
  const V = model.spec.vocabSize;
  const word = text.trim();
  if (/^\d{1,9}$/u.test(word)) {
    const id = Number(word);
    return id < V ? { id } : { problem: `${name}="${word}" is not a token id of this model (0 to ${V - 1})` };
  }
  if (!model.hasTokenizer)
    return {
      problem: `${name}="${shorten(text)}": this model has no tokenizer.json, so give a token id (0 to ${V - 1})`,
    };
  const { before, after } = addedTokens(model);
  const all = model.tokenize(text).ids;
  const ids = all.slice(before, all.length - after);
  if (ids.length === 1 && ids[0] < V) return { id: ids[0] };
  if (ids.length === 1)
    return {
      problem: `${name}="${shorten(text)}" is token ${ids[0]} of the tokenizer, outside this model's vocabulary (0 to ${V - 1})`,
    };
  return {
    problem: `${name}="${shorten(text)}" is ${ids.length} tokens for this model, not one: give a word it reads as one token (GPT-2's words start with a space: " Mary"), or a token id`,
  };
}
