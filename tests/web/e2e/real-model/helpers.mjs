// Shared by the real-model page tests (shipped.mjs, files.mjs and the others here): the shipped model's lesson
// sentence, waiting for a run to be drawn, and the predictions table read and checked against attention-wasm/model's.
import assert from 'node:assert/strict';
import { ROOT, settle } from '../helpers.mjs';

export const INDUCTION = `${ROOT}web/public/models/induction`;
export const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';
export const INDUCTION_HEADS = [0, 1, 2, 3].map((h) => [1, h]);

/** Waits for the real model's next run to be drawn (body[data-model-runs] above `runs`). */
export async function waitForRun(page, runs = 0) {
  await page.waitForFunction((n) => Number(document.body.dataset.modelRuns ?? 0) > n, runs, { timeout: 60000 });
}

/** Waits until the walk's line (#model-walk) says `text`, and the steps are drawn. */
export async function walkShows(page, text) {
  await page.waitForFunction((t) => document.getElementById('model-walk').textContent.includes(t), text, {
    timeout: 60000,
  });
  await settle(page);
}

export const runs = (page) => page.evaluate(() => Number(document.body.dataset.modelRuns ?? 0));

/** The predictions table as { id, p, before?, change? } rows. */
export async function readPredictions(page) {
  return page.$$eval('.predictions-table tbody tr', (rows) =>
    rows.map((row) => {
      const cells = [...row.querySelectorAll('td')].map((td) => td.textContent);
      return { id: Number(row.dataset.id), token: cells[1], p: Number(cells[3]), before: cells[4] && Number(cells[4]) };
    }),
  );
}

export function assertPredictions(shown, expected, what) {
  assert.deepEqual(
    shown.map((r) => r.id),
    expected.map((r) => r.id),
    `${what}: the ids of the top tokens`,
  );
  shown.forEach((r, k) =>
    assert.ok(Math.abs(r.p - expected[k].p) <= 6e-4, `${what}: p of ${r.id}: ${r.p} against ${expected[k].p}`),
  );
}

export async function openBuiltin(page) {
  await page.evaluate(() => document.getElementById('real-model-button').click());
  await waitForRun(page);
}

/** The 10 most probable tokens of row `row` of logits [n, V] (a float64 softmax, ties by id): [{ id, p }]. */
export function topOfRow(logits, row) {
  const V = logits.shape[1];
  const values = Array.from(logits.data.subarray(row * V, (row + 1) * V));
  const max = Math.max(...values);
  const sum = values.reduce((s, x) => s + Math.exp(x - max), 0);
  return values
    .map((x, id) => ({ id, p: Math.exp(x - max) / sum }))
    .sort((a, b) => b.p - a.p || a.id - b.id)
    .slice(0, 10);
}

/** Picks a folder's files (name → bytes or text) in the section's "Pick its files" input. */
export async function dropAsFiles(page, files) {
  const list = Object.entries(files).map(([name, data]) => ({
    name,
    mimeType: 'application/octet-stream',
    buffer: Buffer.from(data),
  }));
  await page.setInputFiles('#model-files', list);
}

/**
 * The two sweeps of the lesson sentence patched into its corrupted copy (its first “red” made “green”), by the
 * model's patchSweep with the page's default metric (the clean run's top token − the corrupted run's), and the clean run.
 */
export async function lessonSweeps(m) {
  const corrupted = SENTENCE.replace('a red ball', 'a green ball');
  const [c, k] = [await m.run(SENTENCE), await m.run(corrupted)];
  const target = [c.next[0].id, k.next[0].id];
  const sweep = (step) => m.patchSweep({ clean: SENTENCE, corrupted, target, step });
  return { c, input: await sweep('input'), heads: await sweep('headOutput') };
}
