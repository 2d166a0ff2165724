// Head detectors (TransformerLens's head_detector, "mul"): model.headScores' three [L, H] tensors as one table, one
// row per head, sortable by any column; the heads that score highest of each kind; marks for the model view. Pure.
import { headName } from '../counting.js';
import { createRng } from '../rng.js';

/** The kinds, in the table's order, with their columns' names. */
export const SCORE_KINDS = Object.freeze([
  { kind: 'previousToken', name: 'previous token' },
  { kind: 'duplicateToken', name: 'duplicate token' },
  { kind: 'induction', name: 'induction' },
]);

/**
 * One row per head: { layer, head, name, previousToken, duplicateToken, induction }.
 * @param {Record<string, { data: Float32Array, shape: number[] }>} scores  model.headScores' result per kind
 */
export function scoreRows(scores) {
  const [L, H] = scores[SCORE_KINDS[0].kind].shape;
  const rows = [];
  for (let layer = 0; layer < L; layer++)
    for (let head = 0; head < H; head++) {
      const row = { layer, head, name: headName(layer, head) };
      for (const { kind } of SCORE_KINDS) row[kind] = scores[kind].data[layer * H + head];
      rows.push(row);
    }
  return rows;
}

/**
 * The rows sorted by `key` ('name': layer then head; or a kind), `descending` or not; NaN last, ties by layer and head.
 */
export function sortRows(rows, key, descending) {
  const order = (a, b) => a.layer - b.layer || a.head - b.head;
  if (key === 'name') return rows.slice().sort((a, b) => (descending ? -order(a, b) : order(a, b)));
  return rows.slice().sort((a, b) => {
    const [x, y] = [a[key], b[key]];
    if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) - Number.isNaN(y) || order(a, b);
    return (descending ? y - x : x - y) || order(a, b);
  });
}

/** The `count` heads scoring highest of `kind` (NaN left out). */
export function topHeads(rows, kind, count = 3) {
  return sortRows(rows, kind, true)
    .filter((r) => !Number.isNaN(r[kind]))
    .slice(0, count);
}

/**
 * Marks for the model view: per head ('l.h'), its highest kind among those where it stands out: a score of at least
 * `floor` and at least `share` of that kind's highest score over every head (a sentence with few repeats gives the
 * induction heads 0.2, random repeated tokens 0.35, the previous-token head 0.66: each kind is read on its own scale).
 * @returns {Map<string, { kind: string, name: string, score: number }>}
 */
export function headMarks(rows, { floor = 0.15, share = 0.5 } = {}) {
  const bar = Object.fromEntries(
    SCORE_KINDS.map(({ kind }) => {
      const scores = rows.map((r) => r[kind]).filter((v) => !Number.isNaN(v));
      return [kind, Math.max(floor, share * Math.max(0, ...scores))];
    }),
  );
  const marks = new Map();
  for (const row of rows) {
    let best = null;
    for (const k of SCORE_KINDS)
      if (row[k.kind] >= bar[k.kind] && !(best && best.score >= row[k.kind])) best = { ...k, score: row[k.kind] };
    if (best) marks.set(`${row.layer}.${row.head}`, best);
  }
  return marks;
}

/** The table to copy: one row per head, a column per kind. */
export function scoresTable(rows) {
  return {
    title: 'head detector scores (TransformerLens head_detector, mul)',
    labelName: 'head',
    columns: SCORE_KINDS.map((k) => k.kind),
    rows: rows.map((r) => ({ label: r.name, values: SCORE_KINDS.map((k) => r[k.kind]) })),
  };
}

/** What the scores say: the top head of each kind. */
export function scoresSummary(rows) {
  return SCORE_KINDS.map(({ kind, name }) => {
    const [top] = topHeads(rows, kind, 1);
    return top ? `${name}: ${top.name} (${top[kind].toFixed(2)})` : `${name}: none`;
  }).join('; ');
}

/**
 * Sequences for the detectors (TransformerLens's induction test): `count` sequences of `half` distinct random ids,
 * each written twice, from ids `from` to vocabSize − 1 (past the special and punctuation tokens), seeded.
 * @returns {number[][]}
 */
export function repeatedSequences(vocabSize, { count = 4, half = 12, from = 10, seed = 36 } = {}) {
  const rng = createRng(seed);
  const low = Math.min(from, Math.max(0, vocabSize - half));
  const span = vocabSize - low;
  return Array.from({ length: count }, () => {
    const ids = [];
    while (ids.length < Math.min(half, span)) {
      const id = low + Math.floor(rng.uniform() * span);
      if (!ids.includes(id)) ids.push(id);
    }
    return [...ids, ...ids];
  });
}

/** The three detectors' [L, H] scores on `ids` (one sequence or several), as a record by kind. */
export async function allHeadScores(model, ids, options) {
  const scores = {};
  for (const { kind } of SCORE_KINDS) scores[kind] = await model.headScores(kind, { ids, ...options });
  return scores;
}
