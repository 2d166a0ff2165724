// What an element's attributes mean: from attribute text to the page's state (web/src/shared/state.js), with every
// problem collected as a sentence naming what to fix. Pure: no DOM.
import { sizesOf } from '../shared/cellEdits.js';
import { parseNumber } from '../shared/parse.js';
import { MAX_SEED } from '../shared/rng.js';
import { checkSizes, defaultState, withSizes } from '../shared/state.js';
import { ELEMENT_LIMITS } from './elementLimits.js';
import { tokenize } from '../shared/tokens.js';

/** The attributes both elements read, in the order they are applied. */
export const SETTINGS = [
  'example',
  'state',
  'sentence',
  'seed',
  'd-model',
  'd-k',
  'd-v',
  'heads',
  'head',
  'causal',
  'temperature',
  'scale',
  'positions',
  'kv-heads',
  'source',
  'precision',
  'src',
  'readonly',
  'caption',
  'highlight',
  'export',
  'model',
  'layer',
  'ids',
  'ablate',
  'next',
  'view',
  'target',
  'against',
  'position',
  'corrupted',
];

/** Attributes that belong to one element only. */
export const OWN_ATTRIBUTES = {
  'attention-explorer': ['steps', 'hide'],
  'attention-heatmap': ['values', 'model-view'],
};

// HTML's own attributes, which any element may carry without a warning.
const GLOBAL = new Set([
  'id',
  'class',
  'style',
  'title',
  'lang',
  'dir',
  'hidden',
  'slot',
  'part',
  'role',
  'tabindex',
  'translate',
  'inert',
  'is',
  'nonce',
  'exportparts',
  'autofocus',
  'draggable',
  'spellcheck',
  'contenteditable',
  'accesskey',
  'popover',
]);

/** The attribute name as a property name: d-model → dModel. */
export const propertyName = (attribute) => attribute.replace(/-([a-z])/gu, (_, c) => c.toUpperCase());

function distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = row[j];
      row[j] = next;
    }
  }
  return row[b.length];
}

/** The valid name nearest to `name` (edit distance, ignoring "-" and "_"). */
export function nearest(name, names) {
  const bare = (text) => text.toLowerCase().replace(/[-_]/gu, '');
  return names.reduce((best, candidate) =>
    distance(bare(name), bare(candidate)) < distance(bare(name), bare(best)) ? candidate : best,
  );
}

/**
 * A warning for an attribute the element does not know, or null for a known or global one.
 * @returns {string | null}
 */
export function unknownAttributeWarning(tag, name) {
  const known = [...SETTINGS, ...OWN_ATTRIBUTES[tag]];
  if (known.includes(name) || GLOBAL.has(name) || /^(?:aria|data|on)-?/u.test(name)) return null;
  return `<${tag}>: unknown attribute "${name}"; did you mean "${nearest(name, known)}"? It is ignored.`;
}

/** A value cut to 40 characters, for messages. */
export const shorten = (text) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

function readBoolean(text, name, problems) {
  if (text === '' || /^(?:true|on|yes|1)$/iu.test(text)) return true;
  if (/^(?:false|off|no|0)$/iu.test(text)) return false;
  problems.push(`${name}="${shorten(text)}" should be true or false (or the attribute alone, for true)`);
  return undefined;
}

function readWhole(text, name, min, max, problems) {
  const value = /^\s*\d{1,10}\s*$/u.test(text) ? Number(text) : NaN;
  if (value >= min && value <= max) return value;
  problems.push(`${name}="${shorten(text)}" should be a whole number from ${min} to ${max}`);
  return undefined;
}

/**
 * A `head` attribute: a head counted from 0, as counting.js's readCounts reads one (a head that fits only counted from
 * 1, as the older elements counted, is read as such and said); else null, said.
 */
function readHead(text, numHeads, readCounts, problems) {
  const written = /^\s*\d{1,4}\s*$/u.test(text) ? Number(text) : null;
  const { head, fromOne } = written === null ? { head: null } : readCounts({ head: written }, { numHeads });
  if (head === null)
    problems.push(`head="${shorten(text)}" should be a head from 0 to ${numHeads - 1} (heads count from 0)`);
  else if (fromOne)
    problems.push(
      `head="${written}" counts from 1, as older versions of the elements did: heads count from 0, so this shows head ${head}, written head="${head}"`,
    );
  return head;
}

const SIZE_ATTRIBUTES = { 'd-model': 'dModel', 'd-k': 'dK', 'd-v': 'dV', heads: 'numHeads' };

/**
 * The state that the attributes describe. Never throws: each attribute that cannot be used is named in `problems`.
 * The modules that only some attributes need are given, loaded by the element for those attributes only.
 * @param {(name: string) => string | null} get  the element's getAttribute
 * @param {{ examples?: { id: string, state: () => object }[], decodeState?: Function | null,
 *   readCounts?: Function | null }} [loaded]  shared/examples.js's EXAMPLES (for `example`), shared/link.js's
 *   decodeState (for `state`), shared/counting.js's readCounts (for `head`)
 * @returns {{ state: object, problems: string[] }}
 */
export function stateFromAttributes(get, { examples = [], decodeState = null, readCounts = null } = {}) {
  const problems = [];
  let state = defaultState();
  const example = get('example');
  if (example !== null) {
    const found = examples.find((e) => e.id === example.trim());
    if (found) state = found.state();
    else
      problems.push(
        `example="${shorten(example)}" is not one of the page's examples: ${examples.map((e) => e.id).join(', ')}`,
      );
  }
  const hash = get('state');
  if (hash !== null) {
    const decoded = decodeState(hash.includes('#') ? hash.slice(hash.indexOf('#')) : hash);
    for (const warning of [...decoded.notes, ...decoded.warnings]) problems.push(`state: ${warning}`);
    // The page draws larger layers than an element does: such a link keeps the element's defaults.
    const tooLarge = Object.values(checkSizes(sizesOf(decoded.state), ELEMENT_LIMITS));
    if (tooLarge.length) problems.push(`state: ${tooLarge.join('; ')} in an element (open it on the page instead)`);
    else state = decoded.state;
  }
  const sentence = get('sentence');
  if (sentence !== null) {
    const tokens = tokenize(sentence);
    if (tokens.length === 0) problems.push('sentence is empty: give it at least one word');
    else if (tokens.length > ELEMENT_LIMITS.n)
      problems.push(`sentence has ${tokens.length} words, over the ${ELEMENT_LIMITS.n} tokens an element can show`);
    else state = withSizes({ ...state, sentence, x: null }, { ...sizesOf(state), n: tokens.length });
  }
  const seed = get('seed');
  if (seed !== null) {
    const value = readWhole(seed, 'seed', 0, MAX_SEED, problems);
    if (value !== undefined) state = { ...state, seed: value, x: null, wq: null, wk: null, wv: null, wo: null };
  }
  const sizes = sizesOf(state);
  let sized = false;
  for (const [name, field] of Object.entries(SIZE_ATTRIBUTES)) {
    const text = get(name);
    if (text === null) continue;
    const value = readWhole(text, name, 1, ELEMENT_LIMITS[field], problems);
    if (value !== undefined) [sizes[field], sized] = [value, true];
  }
  if (sized) {
    const errors = checkSizes(sizes, ELEMENT_LIMITS);
    if (Object.keys(errors).length) problems.push(...Object.values(errors));
    else state = withSizes(state, sizes);
  }
  return { state: readSettings(state, get, readCounts, problems), problems };
}

function readSettings(input, get, readCounts, problems) {
  const state = { ...input };
  const head = get('head');
  if (head !== null) state.head = readHead(head, state.numHeads, readCounts, problems) ?? state.head;
  for (const [name, field] of [
    ['causal', 'causal'],
    ['scale', 'scaling'],
    ['positions', 'positions'],
  ]) {
    const text = get(name);
    if (text === null) continue;
    const value = readBoolean(text, name, problems);
    if (value !== undefined) state[field] = value;
  }
  const temperature = get('temperature');
  if (temperature !== null) {
    const t = parseNumber(temperature);
    if (t === null || t < ELEMENT_LIMITS.temperatureMin || t > ELEMENT_LIMITS.temperatureMax)
      problems.push(
        `temperature="${shorten(temperature)}" should be a number from ${ELEMENT_LIMITS.temperatureMin} to ${ELEMENT_LIMITS.temperatureMax}`,
      );
    else state.temperature = t;
  }
  const kvHeads = get('kv-heads');
  if (kvHeads !== null) {
    const value = readWhole(kvHeads, 'kv-heads', 1, state.numHeads, problems);
    if (value !== undefined) state.kvHeads = value;
  }
  const source = get('source');
  if (source !== null) {
    if (source.length > ELEMENT_LIMITS.sentenceChars)
      problems.push(`source is longer than ${ELEMENT_LIMITS.sentenceChars} characters`);
    else state.source = source;
  }
  const precision = get('precision');
  if (precision !== null) {
    const value = readWhole(precision, 'precision', 0, ELEMENT_LIMITS.precision, problems);
    if (value !== undefined) state.precision = value;
  }
  return state;
}
