// What an element on a real model reads from its attributes: `model` (builtin, a folder URL or a Hub id), `layer`
// and `head` (from 0), `sentence` or `ids`, `ablate` ("1.0 1.2": layer.head, each from 0), `next` and `model-view`.
// Sizes are checked against the model once it is loaded (checkAgainst), which also tells attributes written for the
// older elements, counted from 1, apart (shared/counting.js). Pure: no DOM.
import { modelFolderUrl, parseModelSource } from '../../../src/js/model/index.js';
import { shorten } from './attributes.js';
import { countsText, headName, headNames, readCounts } from '../shared/counting.js';
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
  if (/^\s*\d{1,4}\s*$/u.test(text)) return Number(text);
  problems.push(`${name}="${shorten(text)}" should be a whole number from 0 (${name}s count from 0)`);
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
    if (match) pairs.push([Number(match[1]), Number(match[2])]);
    else problems.push(`ablate: "${shorten(word)}" should be layer.head, both from 0 (e.g. 1.0)`);
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

/** The attributes as they are written now: `layer="1" head="0" ablate="1.0 1.2"`. */
function attributesText({ layer, head, ablate }) {
  const parts = [];
  if (layer !== null) parts.push(`layer="${layer}"`);
  if (head !== null) parts.push(`head="${head}"`);
  if (ablate.length) parts.push(`ablate="${ablate.map(([l, h]) => `${l}.${h}`).join(' ')}"`);
  return parts.join(' ');
}

/**
 * The settings checked against the loaded model's sizes. Layers and heads count from 0; attributes that do not fit
 * the model so but fit counted from 1 (as the older elements counted) are read so, and the message says how they are
 * written now; a layer or head the model has neither way falls back to the first, an ablated head is dropped (each
 * named in `problems`).
 * @param {{ numLayers: number, numHeads: number }} spec  the model's sizes (model.spec)
 */
export function checkAgainst(settings, spec, problems) {
  const written = { layer: settings.layer, head: settings.head, ablate: settings.ablate };
  const read = readCounts(written, spec);
  if (read.fromOne) {
    const shown = headName(read.layer ?? 0, read.head ?? 0);
    const off = read.ablate.length ? ` with ${headNames(read.ablate)} switched off` : '';
    problems.push(
      `${attributesText(written)} count from 1, as older versions of the elements did: layers and heads count from 0, so this shows ${shown}${off}, written ${attributesText(read)}`,
    );
  }
  const instead = { layer: 'layer 0 is shown', head: 'head 0 is shown', ablate: 'that head stays on' };
  for (const { name, text } of read.outside)
    problems.push(
      `${name}="${text}" is not in this model (${countsText(spec)}: they count from 0), so ${instead[name]}`,
    );
  return { ...settings, layer: read.layer ?? 0, head: read.head ?? 0, ablate: read.ablate };
}
