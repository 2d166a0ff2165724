// The page's URL in one table, LINK (as TensorFlow Playground's PROPS): the hash's rows (shared/link.js's HASH_LINK:
// the example shown, which the elements ship too) and the query's rows below (the real model, its generation, the
// embed mode), each with its type (how it is read, written and why a text cannot be read), the field it fills and when
// it is written. A new setting in a link is one row; encodeState / decodeState (the hash) and readQuery / writeQuery
// (the query) read and write every row the same way (readRows). Pure: no DOM.
import { HASH_LINK, LINK_VERSION, readRows, text, whole } from '../shared/link.js';

import { parseNumber } from '../shared/parse.js';
import { MAX_SEED } from '../shared/rng.js';
import { INSTRUMENT_LESSON_IDS } from '../lessons/instruments/lessonIds.js';
import { TAB_KEYS } from '../real-model/tools/investigate/tabs.js';

/** The longest sentence the page sends to a real model, in characters. */
export const MAX_TEXT = 2000;

/** The most new tokens the page asks for in one generation. */
export const MAX_NEW_TOKENS = 64;

/** Generation's settings by default: greedy (temperature 0), no top-k, top-p 1, seed 0, 8 new tokens. */
export const GENERATE_DEFAULTS = Object.freeze({ maxNewTokens: 8, temperature: 0, topK: 0, topP: 1, seed: 0 });

/** A number from `min` (above it, with `above`) to `max`, as parseNumber reads it; `integer`: a whole one. */
const number = (min, max, what, { above = false, integer = false } = {}) => ({
  read: (value) => {
    const n = parseNumber(value);
    if (n === null || (integer && !Number.isInteger(n))) return undefined;
    return (above ? n > min : n >= min) && n <= max ? n : undefined;
  },
  why: () => `is not ${what} from ${min} to ${max}`,
  write: String,
});

/** Text of at most `max` characters; a longer one is read cut to `max`, and the warning says so. */
const cut = (max) => ({
  read: (value) => value.slice(0, max),
  why: () => `is longer than ${max} characters: its first ${max} are read`,
  write: String,
  partial: (value, read) => read.length < value.length,
});

/** Present or not: `?embed`, `?nowarm` (whatever follows "=" is ignored). */
export const present = { read: () => true, why: () => '', write: () => '' };

/** Heads as layer.head pairs, comma-separated ("1.0,1.2"), counted as written; a pair that is not one is left out. */
export const pairs = {
  read: (value) => {
    const out = [];
    for (const pair of value.split(',')) {
      const m = /^(\d{1,4})\.(\d{1,4})$/u.exec(pair.trim());
      if (m) out.push([Number(m[1]), Number(m[2])]);
    }
    return out;
  },
  why: () => 'holds parts that are not layer.head pairs such as 1.0,1.2: they are left out',
  write: (list) => list.map(([l, h]) => `${l}.${h}`).join(','),
  partial: (value, read) => read.length < value.split(',').length,
};

/** The walk's grids a reader may edit, by the engine's step names (the same as the page's matrix names). */
export const EDITABLE_STEPS = Object.freeze(['x', 'wq', 'wk', 'wv', 'wo']);

/** The most edits a link holds. */
export const MAX_EDITS = 64;

/** The shortest decimal that reads back as float32 `value` (0.1, not 0.10000000149011612). */
function shortFloat32(value) {
  for (let digits = 1; digits < 9; digits++) {
    const shown = String(Number(value.toPrecision(digits)));
    if (Math.fround(Number(shown)) === value) return shown;
  }
  return String(value);
}

const EDIT = new RegExp(`^(\\d{1,4})\\.(${EDITABLE_STEPS.join('|')})\\.(\\d{1,6})\\.(\\d{1,6})_(\\S{1,32})$`, 'u');

/**
 * The real model's edits ({ layer, step, row, col, value }) as "0.x.3.5_0.25*1.wq.2.10_-1": layer.step.row.col_value,
 * joined by "*", none of which a query string escapes. Reading keeps the parts it can read (the model checks their
 * ranges when it runs); `why` is said when one was left out.
 */
export const edits = {
  read: (value) => {
    const out = [];
    for (const part of value.split('*')) {
      const m = EDIT.exec(part);
      const v = m && parseNumber(m[5]);
      if (v === null || out.length >= MAX_EDITS) continue;
      out.push({ layer: Number(m[1]), step: m[2], row: Number(m[3]), col: Number(m[4]), value: Math.fround(v) });
    }
    return out;
  },
  why: () =>
    `holds parts that are not layer.step.row.col_value (step one of ${EDITABLE_STEPS.join(', ')}), or more than ${MAX_EDITS}: they are left out`,
  write: (list) => list.map((e) => `${e.layer}.${e.step}.${e.row}.${e.col}_${shortFloat32(e.value)}`).join('*'),
  partial: (value, read) => read.length < value.split('*').length,
};

/**
 * The parts of the real-model section a link can open at (`section=`, real-model/panel.js): their headings' ids are
 * model-<name>-title.
 */
export const SECTIONS = Object.freeze(['tokens', 'next', 'heads', 'investigate', 'generate', 'layer']);

/** The longest token a link names for an instrument (as an element's `target`), in characters. */
export const MAX_TOKEN_TEXT = 100;

/** How the real model's heads are switched off (model.run's ablation modes). */
export const ABLATION_MODES = Object.freeze(['zero', 'mean', 'resample']);

/** One of `names`. */
const oneOf = (names, what) => ({
  read: (value) => (names.includes(value) ? value : undefined),
  why: () => `is not ${what} (${names.join(', ')})`,
  write: String,
});

const given = (field) => (values) => values[field] !== null && values[field] !== undefined;
const some = (field) => (values) => values[field]?.length > 0;
const moded = (values) => some('ablate')(values) && values.ablateMode !== undefined && values.ablateMode !== 'zero';
const headGiven = (values) => Number.isInteger(values.layer) && Number.isInteger(values.head);

/**
 * The query's keys, in the order they are read and written: rows as the hash's (shared/link.js), with `group`, the
 * keys one part of the page writes together (writeQuery), and `when` by default: written when given.
 */
const QUERY = [
  // The real model (real-model/): its source, sentence, head (counted from 0, as the API), heads switched off and edits.
  { key: 'model', group: 'model', field: 'model', type: text(2000) },
  { key: 'text', group: 'model', field: 'text', type: cut(MAX_TEXT) },
  { key: 'layer', group: 'model', field: 'layer', type: whole(0, 9999, 'a layer'), when: headGiven },
  { key: 'head', group: 'model', field: 'head', type: whole(0, 9999, 'a head'), when: headGiven },
  { key: 'ablate', group: 'model', field: 'ablate', type: pairs, when: some('ablate') },
  // How they are switched off, when not zeroed, and the prompt whose run gives the values (mean: optional).
  {
    key: 'ablatemode',
    group: 'model',
    field: 'ablateMode',
    type: oneOf(ABLATION_MODES, 'an ablation mode'),
    when: moded,
  },
  {
    key: 'ablateref',
    group: 'model',
    field: 'ablateReference',
    type: cut(MAX_TEXT),
    when: (v) => moded(v) && given('ablateReference')(v),
  },
  { key: 'edits', group: 'model', field: 'edits', type: edits, when: some('edits') },
  // The part of the section the link opens at (its heading brought up and focused); the page writes it in the links
  // its parts give, not in the address as the reader goes.
  { key: 'section', group: 'model', field: 'section', type: oneOf(SECTIONS, 'a part of the real-model section') },
  // The Investigate part: the instrument shown (when chosen: the shipped model opens on the lens) and its inputs, as
  // the elements' attributes name them: the token followed or attributed (a), the one subtracted (b), the position
  // followed (lens) or measured (patching), the prompts patched (the clean one when it is not the sentence). Written
  // as the reader goes (real-model/panelLink.js); the investigate part checks them against the model (a token it does
  // not hold, a position past the last token: said there).
  ...[
    ['inv', 'invTab', oneOf(TAB_KEYS, 'an instrument of Investigate')],
    ['invtarget', 'invTarget', text(MAX_TOKEN_TEXT)],
    ['invagainst', 'invAgainst', text(MAX_TOKEN_TEXT)],
    ['invpos', 'invPosition', whole(0, 99999, 'a token position')],
    ['invclean', 'invClean', cut(MAX_TEXT)],
    ['invcorrupted', 'invCorrupted', cut(MAX_TEXT)],
  ].map(([key, field, type]) => ({ key, group: 'investigate', field, type })),
  // Generation's settings (`gen` is their marker: a link without it has none); never its tokens.
  ...[
    ['gen', 'maxNewTokens', number(1, MAX_NEW_TOKENS, 'a number of new tokens', { integer: true })],
    ['gentemp', 'temperature', number(0, 10, 'a temperature')],
    ['gentopk', 'topK', number(0, 1e6, 'a top-k', { integer: true })],
    ['gentopp', 'topP', number(0, 1, 'a top-p', { above: true })],
    ['genseed', 'seed', number(0, MAX_SEED, 'a seed', { integer: true })],
  ].map(([key, field, type]) => ({
    key,

    group: 'generate',
    field,
    type,
    default: GENERATE_DEFAULTS[field],
  })),
  // A lesson on the shipped model's instruments (lessons/instruments/): ?lesson=patching opens it.
  {
    key: 'lesson',
    group: 'lesson',
    field: 'lesson',
    type: oneOf(INSTRUMENT_LESSON_IDS, 'a lesson on the trained model'),
  },
  // The embed mode (app/embed.js): ?embed&steps=scores+softmax, the page with those steps only.
  { key: 'embed', group: 'embed', field: 'embed', type: present },
  { key: 'steps', group: 'embed', field: 'steps', type: text(500) },
  // The page tests' page without its rehearsals (app/warmUp.js).
  { key: 'nowarm', group: 'warm', field: 'nowarm', type: present },
];

/** Every key of the page's URL: the hash's, then the query's. */
export const LINK = Object.freeze([...HASH_LINK, ...QUERY]);

/**
 * The query string's values (by field; only the keys it has and could read), a warning for each key it cannot read,
 * and the keys it has (`given`). Keys of no row are left alone: the query is shared with whatever else serves the page.
 * @param {string} search  location.search, with or without "?"
 * @returns {{ values: Record<string, unknown>, warnings: string[], given: Set<string> }}
 */
export function readQuery(search) {
  const values = {};
  const warnings = [];
  const params = new URLSearchParams(search);
  const ctx = { version: LINK_VERSION, warn: (w) => warnings.push(w), note: (n) => warnings.push(n) };
  readRows(QUERY, params, values, ctx);
  const given = new Set(QUERY.filter((e) => params.has(e.key)).map((e) => e.key));
  return { values, warnings, given };
}

/**
 * The query string with `group`'s keys written from `values` (or removed, for null), keeping every other parameter.
 * @param {string} search
 * @param {'model' | 'investigate' | 'generate' | 'lesson' | 'embed' | 'warm'} group
 * @param {Record<string, unknown> | null} values
 */
export function writeQuery(search, group, values) {
  const params = new URLSearchParams(search);
  const entries = QUERY.filter((e) => e.group === group);
  for (const e of entries) params.delete(e.key);
  if (values)
    for (const e of entries) if ((e.when ?? given(e.field))(values)) params.set(e.key, e.type.write(values[e.field]));
  const written = params.toString();
  return written ? `?${written}` : '';
}

/**
 * The Investigate part's values in `values` (readQuery's; by field: invTab, invTarget, …), those it holds, or null
 * when it holds none.
 */
export function investigateValues(values) {
  const rows = QUERY.filter((e) => e.group === 'investigate' && values[e.field] !== undefined);
  return rows.length ? Object.fromEntries(rows.map((e) => [e.field, values[e.field]])) : null;
}

/**
 * Generation's settings from loose values (a form's strings, a link's values), each read by its row's type, or its
 * default. topK 0 means no top-k.
 * @returns {{ maxNewTokens: number, temperature: number, topK: number, topP: number, seed: number }}
 */
export function generateSettings(values) {
  const settings = {};
  for (const e of QUERY.filter((entry) => entry.group === 'generate')) {
    const raw = values?.[e.field];
    const read = raw === null || raw === undefined ? undefined : e.type.read(String(raw));
    settings[e.field] = read ?? e.default;
  }
  return settings;
}
