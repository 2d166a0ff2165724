// What an element on a real model reads from its attributes: `model` (builtin, a folder URL or a Hub id), `layer`
// and `head` (from 1), `sentence` or `ids`, `ablate` ("2.1 2.3": layer.head, each from 1), `next` and `model-view`.
// Sizes are checked against the model once it is loaded (checkAgainst). Pure: no DOM.
import { modelFolderUrl, parseModelSource } from '../../../src/js/model/index.js';
import { shorten } from './attributes.js';
import { ELEMENT_LIMITS } from './elementLimits.js';

/** The `model` value that names the model shipped with the package (web/public/models/induction). */
export const BUILTIN = 'builtin';
/** What the built-in model is shown as. */
export const BUILTIN_NAME = 'the built-in induction model';
/** The sentence shown when there is neither `sentence` nor `ids`: a repeat, for the induction heads. */
export const DEFAULT_SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';

const flag = (text) => text !== null && !/^(?:false|off|no|0)$/iu.test(text.trim());

/**
 * Where `model="…"` points: { key, source, name }, or { problem }. `builtin` is resolved by the caller (its folder
 * is next to the elements' files); anything else is read by attention-wasm/model's parseModelSource: a folder URL
 * (http(s), or starting with ./, ../ or /) against `base`, an owner/name (or owner/name@revision) as a Hub id.
 */
export function modelSource(text, base) {
  const value = text.trim();
  if (value === BUILTIN) return { key: BUILTIN, source: null, name: BUILTIN_NAME };
  try {
    const source = parseModelSource(value, { base });
    return { key: typeof source === 'string' ? source : `hub:${modelFolderUrl(source)}`, source, name: value };
  } catch {
    return {
      problem: `model="${shorten(value)}" should be ${BUILTIN}, a folder URL (https://…/, ./folder/ or /folder/) or a Hub model id such as openai-community/gpt2`,
    };
  }
}

function readCount(text, name, problems) {
  if (text === null) return null;
  if (/^\s*\d{1,4}\s*$/u.test(text) && Number(text) >= 1) return Number(text) - 1;
  problems.push(`${name}="${shorten(text)}" should be a whole number from 1`);
  return null;
}

function readIds(text, problems) {
  const words = text.split(/[\s,]+/u).filter(Boolean);
  if (!words.length || !words.every((w) => /^\d{1,10}$/u.test(w))) {
    problems.push(`ids="${shorten(text)}" should be token ids (whole numbers) separated by spaces`);
    return null;
  }
  if (words.length > ELEMENT_LIMITS.n) {
    problems.push(`ids has ${words.length} tokens, over the ${ELEMENT_LIMITS.n} an element can show`);
    return null;
  }
  return words.map(Number);
}

function readAblate(text, problems) {
  const pairs = [];
  for (const word of text.split(/[\s,]+/u).filter(Boolean)) {
    const match = /^(\d{1,4})\.(\d{1,4})$/u.exec(word);
    if (match && Number(match[1]) >= 1 && Number(match[2]) >= 1)
      pairs.push([Number(match[1]) - 1, Number(match[2]) - 1]);
    else problems.push(`ablate: "${shorten(word)}" should be layer.head, both from 1 (e.g. 2.1)`);
  }
  return pairs;
}

/**
 * The settings of an element on a model, or settings null when `model` cannot be used. Never throws.
 * @param {(name: string) => string | null} get  the element's getAttribute
 * @param {string} base  the page's base URL
 * @returns {{ settings: object | null, problems: string[] }}
 */
export function modelSettings(get, base) {
  const problems = [];
  const where = modelSource(get('model') ?? '', base);
  if (where.problem) return { settings: null, problems: [where.problem] };
  const ids = get('ids') === null ? null : readIds(get('ids'), problems);
  let sentence = get('sentence');
  if (sentence !== null && !sentence.trim()) {
    problems.push('sentence is empty: give it at least one word');
    sentence = null;
  } else if (sentence !== null && sentence.length > ELEMENT_LIMITS.sentenceChars) {
    problems.push(`sentence is longer than ${ELEMENT_LIMITS.sentenceChars} characters`);
    sentence = null;
  }
  return {
    settings: {
      ...where,
      layer: readCount(get('layer'), 'layer', problems),
      head: readCount(get('head'), 'head', problems),
      ids,
      sentence: ids ? null : sentence,
      ablate: get('ablate') === null ? [] : readAblate(get('ablate'), problems),
      next: flag(get('next')),
      modelView: flag(get('model-view')),
    },
    problems,
  };
}

/**
 * The settings checked against the loaded model's sizes: a layer or head it does not have falls back to the first
 * (named in `problems`), an ablated head it does not have is dropped.
 * @param {{ numLayers: number, numHeads: number }} spec  the model's sizes (model.spec)
 */
export function checkAgainst(settings, spec, problems) {
  const { numLayers, numHeads } = spec;
  const within = (value, count, name) => {
    if (value === null) return 0;
    if (value < count) return value;
    problems.push(`${name}="${value + 1}" is not in this model, which has ${count} ${name}s: ${name} 1 is shown`);
    return 0;
  };
  const ablate = settings.ablate.filter(([layer, head]) => {
    const ok = layer < numLayers && head < numHeads;
    if (!ok)
      problems.push(
        `ablate: ${layer + 1}.${head + 1} is not a head of this model (${numLayers} layers of ${numHeads} heads)`,
      );
    return ok;
  });
  return {
    ...settings,
    layer: within(settings.layer, numLayers, 'layer'),
    head: within(settings.head, numHeads, 'head'),
    ablate,
  };
}
