// The "Real model" source's state, without the page: where the model comes from, its link parameters, tokens shown
// readably, the top tokens of a logits row and how an ablation moved them. Drawing is in the views beside it, loading
// in panel.js.
import { countsText, headName, headNames, readCounts } from '../shared/counting.js';
import { generateSettings, investigateValues, readQuery, writeQuery } from '../app/link.js';
import { SUPPORTED_FAMILIES } from '../../../src/js/model/index.js';
import { whereItRuns } from './loadOnWorkers.js';

/** The model shipped with the page (web/public/models/induction): a 2-layer GPT-2 trained here. */
export const BUILTIN = Object.freeze({
  id: 'builtin',
  base: './models/induction/',
  files: ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'],
});

/** The lesson's sentence: a repeat the induction heads continue ("ball", p ≈ 0.12; the model card's example). */
export const INDUCTION_SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';

/**
 * The lesson's first sentences, following the run (`top`: the top next word and its p, with every head on): on the
 * lesson's sentence, the word the model predicts and its p as this run has them; on another, that sentence's top word,
 * and what the lesson's sentence shows.
 * @param {string} text  the sentence run
 * @param {{ word: string, p: number } | null} top
 */
export function lessonLead(text, top) {
  const trained = 'This model was trained here on sequences with repeats.';

  const repeat = 'after “the cat saw a red” comes “ball” the first time';
  const p = (x) => (x >= 0.01 ? x.toFixed(2) : x.toPrecision(1));
  if (isLesson(text)) {
    if (!top) return `${trained} The sentence repeats its start: ${repeat}, so the model predicts “ball” again.`;
    const again = top.word === 'ball' ? '“ball” again' : `“${top.word}” (not “ball”)`;
    return `${trained} The sentence repeats its start: ${repeat}, so the model predicts ${again} (the top word, p ≈ ${p(top.p)}).`;
  }
  const yours = top ? ` For this sentence its top next word is “${top.word}” (p ≈ ${p(top.p)}).` : '';
  return `${trained}${yours} The lesson’s sentence, “${INDUCTION_SENTENCE}”, repeats its start: ${repeat}, and there the model predicts “ball” again.`;
}

/** Whether `text` is the lesson's sentence. */
export const isLesson = (text) => text.trim() === INDUCTION_SENTENCE;

/** lessonLead for run `r` (its last row's top token, named by `vocab`: id → token). */
export function lessonOf(text, r, vocab) {
  const rows = r.logits?.shape[0] ?? 0;
  const [best] = rows ? topTokens(r.logits.data, r.logits.shape[1], rows - 1, 1) : [];
  return lessonLead(text, best ? { word: readableToken(vocab[best.id] ?? String(best.id)), p: best.p } : null);
}

/** How many next tokens are listed. */
export const TOP_K = 10;

/** The families attention-wasm/model runs, for messages: "GPT-2 (gpt2), BERT (bert), … and Qwen3 (qwen3)". */
export const FAMILIES_TEXT = SUPPORTED_FAMILIES.map(({ label, modelTypes }) => `${label} (${modelTypes.join(', ')})`)
  .join(', ')
  .replace(/, (?=[^,]*$)/u, ' and ');

/**
 * The real-model part of a link, from the page's query string (app/link.js's table): `model` (builtin, files, an
 * http(s) URL or a Hub id owner/name), `text`, `layer`, `head` (counted from 0), `ablate` ([layer, head] pairs), the
 * walk's edits, the part to open at (`section`), generation's settings when the link has them (`gen`), the
 * Investigate part's instrument and inputs when it has them (`investigate`: app/link.js's invTab, invTarget, …), and a
 * warning for each part it cannot read.
 * Layers and heads are as written: the panel checks them against the model (shared/counting.js's readCounts).
 * @returns {{ model: string, text: string | null, layer: number | null, head: number | null, ablate: number[][],
 *   edits: object[], section: string | null, warnings: string[], generate?: object, investigate?: object } | null}
 */
export function readModelLink(search) {
  const { values, warnings, given } = readQuery(search);
  if (!values.model) return null;
  return {
    model: values.model,
    text: values.text ?? null,
    layer: values.layer ?? null,
    head: values.head ?? null,
    ablate: values.ablate ?? [],
    ablateMode: values.ablateMode ?? 'zero', // how they are switched off (zero, mean, resample), and from what prompt
    ablateReference: values.ablateReference ?? '',
    edits: values.edits ?? [], // numbers edited in the walk (tools/walk/walkEdits.js)
    section: values.section ?? null, // a part to open at (app/link.js's SECTIONS)
    warnings,
    ...(given.has('gen') ? { generate: generateSettings(values) } : {}),
    ...(investigateValues(values) ? { investigate: investigateValues(values) } : {}),
  };
}

/** The query string for `link` (as readModelLink reads it), keeping the page's other parameters (e.g. nowarm). */
export const writeModelLink = (search, link) => writeQuery(search, 'model', link);

/** The query string with the Investigate part's instrument and inputs (invTab, invTarget, …; null: none). */
export const writeInvestigateLink = (search, values) => writeQuery(search, 'investigate', values);

/**
 * One token as the page shows it: the text it stands for, a leading space drawn as "␣", a new line as "↵", and a
 * word's continuation (WordPiece's ##) led by "+"; `raw` is the vocabulary's own spelling (Ġ, ▁, ##).
 */
export function readableToken(raw, decoded = null) {
  const spelling = String(raw ?? '');
  const continued = spelling.startsWith('##') && spelling.length > 2;
  let text = decoded ?? spelling.replace(/^##/, '').replace(/^[Ġ▁]/u, ' ');
  text = text.replace(/^ /, '␣').replace(/\n/g, '↵').replace(/\t/g, '⇥');
  if (/^\s*$/u.test(text)) text = text.replace(/ /g, '␣') || '∅';
  return continued ? `+${text}` : text;
}

/**
 * A tokenizer.json's vocabulary as id → token (WordPiece and BPE write { token: id }, Unigram [[piece, score]]),
 * with its added tokens ([MASK], <|endoftext|>). Ids it does not name stay undefined.
 */
export function vocabulary(json) {
  const names = [];
  const vocab = json?.model?.vocab;
  if (Array.isArray(vocab)) vocab.forEach((entry, id) => (names[id] = String(Array.isArray(entry) ? entry[0] : entry)));
  else if (vocab && typeof vocab === 'object') {
    for (const [token, id] of Object.entries(vocab)) if (Number.isInteger(id) && id >= 0) names[id] = token;
  }
  for (const added of json?.added_tokens ?? [])
    if (Number.isInteger(added?.id)) names[added.id] = String(added.content);
  return names;
}

/** The id of a masked-LM's mask token in a vocabulary (id → token): BERT's [MASK], RoBERTa's <mask>; or -1. */
export const maskId = (names) => {
  const bert = names.indexOf('[MASK]');
  return bert >= 0 ? bert : names.indexOf('<mask>');
};

const softmaxes = new WeakMap(); // logits array → Map(row → { max, sum }): each row's softmax normalizer, once

/** The max and the sum of exp(x − max) of one row of logits (a float64 softmax's normalizer), made once per row. */
function normalizer(logits, V, row) {
  if (!softmaxes.has(logits)) softmaxes.set(logits, new Map());
  const rows = softmaxes.get(logits);
  if (!rows.has(row)) {
    const values = logits.subarray(row * V, (row + 1) * V);
    let max = -Infinity;
    for (const x of values) max = Math.max(max, x);
    let sum = 0;
    for (const x of values) sum += Math.exp(x - max);
    rows.set(row, { max, sum });
  }
  return rows.get(row);
}

/**
 * The k most probable tokens of one row of logits (float64 softmax over the row, ties by id): [{ id, p, logit }].
 * One pass keeps the best k (a vocabulary of 50 257 is not sorted).
 * @param {Float32Array} logits  [n, V], row `row`
 */
export function topTokens(logits, V, row, k = TOP_K) {
  const values = logits.subarray(row * V, (row + 1) * V);
  const { max, sum } = normalizer(logits, V, row);
  const best = []; // ids, most probable first
  for (let id = 0; id < values.length; id++) {
    const x = values[id];
    if (best.length === k && !(x > values[best[k - 1]])) continue; // ties keep the smaller id
    let at = best.length === k ? k - 1 : best.length;
    while (at > 0 && x > values[best[at - 1]]) at--;
    best.splice(at, 0, id);
    if (best.length > k) best.pop();
  }
  return best.map((id) => ({ id, p: Math.exp(values[id] - max) / sum, logit: values[id] }));
}

/** The probability of token `id` in one row of logits. */
export function probabilityOf(logits, V, row, id) {
  const { max, sum } = normalizer(logits, V, row);
  return Math.exp(logits[row * V + id] - max) / sum;
}

/**
 * The predictions with ablations beside those without: each of `now`'s tokens with its p without the ablations
 * (`before(id)`) and the change; then the tokens that were in `base`'s list and left it, each with its p now
 * (`after(id)`, as `now` for a listed one: its p in the run with the ablations).
 */
export function predictionChanges(now, base, before, after = () => undefined) {
  const rows = now.map((t) => ({ ...t, before: before(t.id), delta: t.p - before(t.id) }));
  const listed = new Set(now.map((t) => t.id));
  const gone = base.filter((t) => !listed.has(t.id)).map((t) => ({ ...t, now: after(t.id) }));
  return { rows, gone };
}

/** "+0.031" / "−0.120": a change in probability, signed. */
export function signedChange(delta) {
  const text = Math.abs(delta).toFixed(3);
  if (text === '0.000') return '±0.000';
  return `${delta > 0 ? '+' : '−'}${text}`;
}

/** Heads named for ablation: "L1H0, L1H2" (counted from 0). */
export const headsText = headNames;

/**
 * A link's layer, head and heads switched off against the model's counts (shared/counting.js's readCounts), and
 * what the page says of them (empty when they fit as written): read counted from 1 when they fit only so (a link
 * written from the labels of an older page), or left out when they fit neither way.
 * @returns {{ layer: number | null, head: number | null, ablate: number[][], message: string }}
 */
export function linkCounts(link, spec) {
  const written = { layer: link?.layer ?? null, head: link?.head ?? null, ablate: link?.ablate ?? [] };
  const read = readCounts(written, spec);
  let message = '';
  if (read.fromOne) {
    const head = read.layer !== null && read.head !== null;
    const opens = head ? `opens ${headName(read.layer, read.head)} (layer ${read.layer} head ${read.head})` : '';
    const off = read.ablate.length ? `switches off ${headNames(read.ablate)}` : '';
    const query = [
      ...(read.layer !== null ? [`layer=${read.layer}`] : []),
      ...(read.head !== null ? [`head=${read.head}`] : []),
      ...(read.ablate.length ? [`ablate=${read.ablate.map(([l, h]) => `${l}.${h}`).join(',')}`] : []),
    ];
    message = `This link counts layers and heads from 1 (an older version of the page): it now ${[opens, off].filter(Boolean).join(' and ')}, written ?${query.join('&')}.`;
  } else if (read.outside.length) {
    const named = read.outside.map(({ name, text }) => `${name}=${text}`).join(', ');
    message = `This link names ${named}, which this model does not have (${countsText(spec)}: they count from 0), so ${read.outside.length > 1 ? 'they are' : 'it is'} left out.`;
  }
  return { layer: read.layer, head: read.head, ablate: read.ablate, message };
}

/** Toggles [layer, head] in a list of ablated heads, kept sorted. */
export function toggleHead(ablate, layer, head) {
  const has = ablate.some(([l, h]) => l === layer && h === head);
  const next = has ? ablate.filter(([l, h]) => l !== layer || h !== head) : [...ablate, [layer, head]];
  return next.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** The sentence a model starts on: the lesson's for the shipped one, ids without a tokenizer, a [MASK] for BERT. */
export function defaultText(model, source) {
  if (source === BUILTIN.id) return INDUCTION_SENTENCE;
  // No tokenizer.json: token ids (and BERT's [MASK], which the page then reads as the id typed beside the field).
  if (!model.hasTokenizer) return model.spec.choices.maskedLm ? '1 2 3 [MASK] 5 6' : '1 2 3 4 5 6';
  if (model.spec.choices.maskedLm) return 'the cat sat on the [MASK] .';
  return 'The cat sat on the mat because it was';
}

/** "gpt2 · 2 layers × 4 heads · d_model 64 · vocabulary 320 · runs on 1 worker · `what`". */
export function describeModel(model, what) {
  const s = model.spec;
  const kv = s.numKvHeads < s.numHeads ? ` (${s.numKvHeads} key/value heads)` : '';
  return `${model.family} · ${s.numLayers} layers × ${s.numHeads} heads${kv} · d_model ${s.dModel} · vocabulary ${s.vocabSize} · ${whereItRuns(model)} · ${what}`;
}

/**
 * What the page says when a model cannot be opened: the error, and what to do about it. `folder` is the URL read;
 * `where.page` the page's origin (a folder there is on the page's own server, which its CSP always allows) and
 * `where.blocked` whether the page's Content-Security-Policy refused a request of the load (unknown when unset).
 */
export function loadMessage(error, folder = null, where = {}) {
  const code = error?.code ? `${error.code}: ` : '';
  const origin = URL.canParse(folder ?? '') ? new URL(folder).origin : null;
  const own = origin !== null && origin === where.page;
  const instead = ' Or download the files and drop them here instead.';
  const fetchHint = own
    ? ` This folder is on the page's own server: check that it holds the model's files and that the server answers Range requests (HTTP 206).${instead}`
    : where.blocked === false
      ? ` Check the connection: the server must be reachable, let this page read it (CORS: Access-Control-Allow-Origin, and Range in Access-Control-Allow-Headers) and answer Range requests.${instead}`
      : ` This page reads only the addresses its host allows in its Content-Security-Policy (connect-src)${origin ? `: to read this model there, its host adds ${origin} (for the Hub, also the host its files redirect to), and that server must send CORS headers` : ''}.${instead}`;
  const hints = {
    UNSUPPORTED_MODEL: ` The page runs ${FAMILIES_TEXT}.`,
    MISSING_FILE:
      ' Drop the whole folder: config.json, model.safetensors (or its index and shards) and tokenizer.json.',
    FETCH_FAILED: fetchHint,
  };
  const said = String(error?.message ?? error);
  const stop = hints[error?.code] && !/[.!?]$/u.test(said) ? '.' : '';
  return `This model could not be opened, and the page is as it was. ${code}${said}${stop}${hints[error?.code] ?? ''}`;
}

/** Bytes as "1.2 MB". */
export function bytesText(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(0)} kB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
