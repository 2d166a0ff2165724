// The page's URL in one table, LINK: every key of its hash (the example shown: state.js's State) and of its query
// string (the real model, its generation, the embed mode), each with its type (linkTypes.js: how it is read, written
// and why a text cannot be read), the field it fills and when it is written. As TensorFlow Playground's PROPS: a new
// setting in a link is one row here, and encodeState / decodeState (the hash) and readQuery / writeQuery (the query)
// read and write every row the same way. Pure: no DOM.
import { resizeMask } from './matrices.js';
import { MAX_SEED } from './rng.js';
import { DEFAULT_SOURCE, LIMITS, ROPE, checkSizes, defaultState } from './state.js';
import { tokenize } from './tokens.js';
import { edits, flag, mask, matrix, number, oneOf, pairs, present, text, whole } from './linkTypes.js';

/** The hash's version: 3 counts the head from 0; 2 and 1 (older pages) counted it from 1, and 1 drew X by row. */
export const LINK_VERSION = 3;

/** The longest sentence the page sends to a real model, in characters. */
export const MAX_TEXT = 2000;

/** The most new tokens the page asks for in one generation. */
export const MAX_NEW_TOKENS = 64;

/** Generation's settings by default: greedy (temperature 0), no top-k, top-p 1, seed 0, 8 new tokens. */
export const GENERATE_DEFAULTS = Object.freeze({ maxNewTokens: 8, temperature: 0, topK: 0, topP: 1, seed: 0 });

const older = (ctx) => ctx.version < 3;
const MATRICES = ['x', 'wq', 'wk', 'wv', 'wo'];
const given = (field) => (values) => values[field] !== null && values[field] !== undefined;
const some = (field) => (values) => values[field]?.length > 0;
const headGiven = (values) => Number.isInteger(values.layer) && Number.isInteger(values.head);

/**
 * Every key of the page's URL, in the order it is read and written. `part`: hash or query; `group`: the query keys
 * one part of the page writes together (writeQuery); `field`: the value's name in the state (hash) or the query's
 * values; `when`: written only then (default: always in the hash, when given in the query); `skip`: neither read nor
 * written; `set`: what reading does besides filling the field; `after`: run once the key is read (or absent);
 * `read` / `why`: the key's own, instead of its type's.
 */
export const LINK = [
  {
    key: 'v',
    part: 'hash',
    type: oneOf(['1', '2', '3'], 'is a version this page does not know; reading the rest anyway'),
    get: () => LINK_VERSION,
    set: (state, version, ctx) => {
      ctx.version = Number(version);
      // Version 1 drew X by row number; its links keep doing so, so they open with the numbers they were made with.
      if (version === '1') state.embed = 'row';
    },
  },
  {
    key: 's',
    part: 'hash',
    field: 'sentence',
    type: text(LIMITS.sentenceChars),
    set: (state) => (state.n = Math.min(Math.max(tokenize(state.sentence).length, 1), LIMITS.n)),
  },
  { key: 'n', part: 'hash', field: 'n', type: whole(1, LIMITS.n) },
  { key: 'dm', part: 'hash', field: 'dModel', type: whole(1, LIMITS.dModel) },
  { key: 'dk', part: 'hash', field: 'dK', type: whole(1, LIMITS.dK) },
  { key: 'dv', part: 'hash', field: 'dV', type: whole(1, LIMITS.dV) },
  {
    key: 'h',
    part: 'hash',
    field: 'numHeads',
    type: whole(1, LIMITS.numHeads),
    after: (state, warn) => {
      const errors = Object.values(checkSizes(state));
      if (!errors.length) return;
      warn(`${errors.join('; ')}, so the default sizes are used`);
      Object.assign(state, { dK: 4, dV: 4, numHeads: 1 });
    },
  },
  { key: 'seed', part: 'hash', field: 'seed', type: whole(0, MAX_SEED) },
  { key: 'dist', part: 'hash', field: 'dist', type: oneOf(['normal', 'uniform'], 'is neither normal nor uniform') },
  { key: 'p', part: 'hash', field: 'precision', type: whole(0, LIMITS.precision, 'a number of decimals') },
  { key: 'causal', part: 'hash', field: 'causal', type: flag },
  { key: 'scale', part: 'hash', field: 'scaling', type: flag },
  {
    key: 't',
    part: 'hash',
    field: 'temperature',
    type: number(LIMITS.temperatureMin, LIMITS.temperatureMax, 'a temperature'),
  },
  { key: 'tie', part: 'hash', field: 'shareQK', type: flag },
  { key: 'pos', part: 'hash', field: 'positions', type: flag },
  {
    key: 'shuf',
    part: 'hash',
    field: 'shuffle',
    type: whole(1, 1_000_000, 'a shuffle number'),
    when: (s) => s.shuffle !== 1,
  },
  { key: 'design', part: 'hash', field: 'design', type: flag, when: (s) => s.design },
  {
    key: 'kvh',
    part: 'hash',
    field: 'kvHeads',
    // Read as any head count: one that does not divide the heads gets the lesson's own message.
    type: whole(1, LIMITS.numHeads, 'a number of kv heads'),
    when: (s) => s.kvHeads !== null,
  },
  {
    key: 'src',
    part: 'hash',
    field: 'source',
    type: text(LIMITS.sentenceChars),
    when: (s) => s.source !== DEFAULT_SOURCE,
  },
  {
    key: 'rth',
    part: 'hash',
    field: 'ropeTheta',
    type: oneOf(ROPE.thetas, `is not one of the lesson's theta values (${ROPE.thetas.join(', ')})`),
    when: (s) => s.ropeTheta !== ROPE.defaults.ropeTheta,
  },
  {
    key: 'rsty',
    part: 'hash',
    field: 'ropeStyle',
    type: oneOf(ROPE.styles, 'is neither half nor interleaved'),
    when: (s) => s.ropeStyle !== ROPE.defaults.ropeStyle,
  },
  {
    key: 'rsh',
    part: 'hash',
    field: 'ropeShift',
    type: whole(0, ROPE.maxShift, 'a shift'),
    when: (s) => s.ropeShift !== ROPE.defaults.ropeShift,
  },
  {
    key: 'head',
    part: 'hash',
    field: 'head',
    type: whole(0, (s) => s.numHeads - 1, 'a head (counted from 0)'),
    when: (s) => s.numHeads > 1,
    // Versions 1 and 2 counted the head from 1: such a link opens the head it meant, and says how it is written now.
    read: (value, state, ctx) => {
      if (!older(ctx)) return undefined;
      const head = whole(1, state.numHeads).read(value, state);
      if (head === undefined) return undefined;
      ctx.note(
        `This link counts heads from 1 (an older version of the page): it opens head ${head - 1}, now written head=${head - 1}.`,
      );
      return head - 1;
    },
    why: (state, ctx) =>
      older(ctx)
        ? `is not a head from 1 to ${state.numHeads} (this older link counts heads from 1)`
        : `is not a head from 0 to ${state.numHeads - 1} (heads count from 0)`,
  },
  ...MATRICES.map((name) => ({
    key: name,
    part: 'hash',
    field: name,
    type: matrix(name),
    // Numbers read from a local file never go into a link: it opens the random example of the same sizes.
    when: (s) => s[name] !== null && !s.fromFile,
    skip: (s) => name === 'wk' && s.shareQK,
  })),
  {
    key: 'mask',
    part: 'hash',
    field: 'mask',
    type: mask,
    when: (s) => s.mask !== null,
    set: (state) => (state.mask = resizeMask(state.mask, state.n)),
  },

  // The real model (real-model/): its source, sentence, head (counted from 0, as the API), heads switched off and edits.
  { key: 'model', part: 'query', group: 'model', field: 'model', type: text(2000) },
  { key: 'text', part: 'query', group: 'model', field: 'text', type: text(MAX_TEXT, { cut: true }) },
  { key: 'layer', part: 'query', group: 'model', field: 'layer', type: whole(0, 9999, 'a layer'), when: headGiven },
  { key: 'head', part: 'query', group: 'model', field: 'head', type: whole(0, 9999, 'a head'), when: headGiven },
  { key: 'ablate', part: 'query', group: 'model', field: 'ablate', type: pairs, when: some('ablate') },
  { key: 'edits', part: 'query', group: 'model', field: 'edits', type: edits, when: some('edits') },
  // Generation's settings (`gen` is their marker: a link without it has none); never its tokens.
  ...[
    ['gen', 'maxNewTokens', number(1, MAX_NEW_TOKENS, 'a number of new tokens', { integer: true })],
    ['gentemp', 'temperature', number(0, 10, 'a temperature')],
    ['gentopk', 'topK', number(0, 1e6, 'a top-k', { integer: true })],
    ['gentopp', 'topP', number(0, 1, 'a top-p', { above: true })],
    ['genseed', 'seed', number(0, MAX_SEED, 'a seed', { integer: true })],
  ].map(([key, field, type]) => ({
    key,
    part: 'query',
    group: 'generate',
    field,
    type,
    default: GENERATE_DEFAULTS[field],
  })),
  // The embed mode (app/embed.js): ?embed&steps=scores+softmax, the page with those steps only.
  { key: 'embed', part: 'query', group: 'embed', field: 'embed', type: present },
  { key: 'steps', part: 'query', group: 'embed', field: 'steps', type: text(500) },
  // The page tests' page without its rehearsals (app/warmUp.js).
  { key: 'nowarm', part: 'query', group: 'warm', field: 'nowarm', type: present },
];

const HASH = LINK.filter((entry) => entry.part === 'hash');
const QUERY = LINK.filter((entry) => entry.part === 'query');

const shorten = (value) => (value.length > 40 ? `${value.slice(0, 40)}…` : value);

/** Reads `entries` from `params` into `target`; each key that cannot be read is named in a warning. */
function readEntries(entries, params, target, ctx) {
  for (const entry of entries) {
    const value = params.get(entry.key);
    if (value !== null && !entry.skip?.(target)) {
      const read = entry.read?.(value, target, ctx) ?? entry.type.read(value, target, ctx);
      const whyOf = () => (entry.why ?? entry.type.why)(target, ctx);
      if (read === undefined) ctx.warn(`${entry.key}=${shorten(value)} ${whyOf()}`);
      else {
        if (entry.field) target[entry.field] = read;
        if (entry.type.partial?.(value, read)) ctx.warn(`${entry.key}=${shorten(value)} ${whyOf()}`);
        entry.set?.(target, value, ctx);
      }
    }
    entry.after?.(target, ctx.warn);
  }
}

const encode = (value) => encodeURIComponent(value).replace(/%20/gu, '+').replace(/%2C/gu, ',').replace(/%3B/gu, ';');

/**
 * The state as a URL hash (without "#"). Generated matrices are not written, only the seed; typed or pasted numbers
 * are written exactly (linkTypes.js's matrix), so the link reproduces them.
 * @param {import('./state-types').State} state
 * @returns {string}
 */
export function encodeState(state) {
  return HASH.filter((e) => !e.skip?.(state) && (e.when?.(state) ?? true))
    .map((e) => `${e.key}=${encode(String(e.get ? e.get(state) : e.type.write(state[e.field], state)))}`)
    .join('&');
}

/**
 * Reads a URL hash written by encodeState (or by an older page). Never throws: each part that cannot be read
 * (unknown, out of range, of the wrong shape) is left at its default and named in `warnings`; `notes` say what was
 * read from an older version's form (a head counted from 1) and how it is written now.
 * @param {string} hash  with or without the leading "#"
 * @returns {{ state: import('./state-types').State, warnings: string[], notes: string[] }}
 */
export function decodeState(hash) {
  const state = defaultState();
  const warnings = [];
  const notes = [];
  let value = typeof hash === 'string' ? hash : '';
  if (value.startsWith('#')) value = value.slice(1);
  if (value === '') return { state, warnings, notes };
  if (value.length > LIMITS.hashChars) {
    const why = `the link is longer than ${LIMITS.hashChars.toLocaleString('en')} characters, so the default example is shown`;
    return { state, warnings: [why], notes };
  }
  const params = new URLSearchParams(value);
  for (const key of new Set(params.keys())) {
    if (!HASH.some((e) => e.key === key)) warnings.push(`“${shorten(key)}” is not a setting of this page`);
  }
  const ctx = { version: LINK_VERSION, warn: (w) => warnings.push(w), note: (n) => notes.push(n) };
  readEntries(HASH, params, state, ctx);
  return { state, warnings, notes };
}

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
  readEntries(QUERY, params, values, ctx);
  const given = new Set(QUERY.filter((e) => params.has(e.key)).map((e) => e.key));
  return { values, warnings, given };
}

/**
 * The query string with `group`'s keys written from `values` (or removed, for null), keeping every other parameter.
 * @param {string} search
 * @param {'model' | 'generate' | 'embed' | 'warm'} group
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
