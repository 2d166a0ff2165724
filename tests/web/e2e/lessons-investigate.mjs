// Page tests (run by run.mjs): each figure of the lessons on the shipped model's instruments leads into the Real model
// section's own Investigate part ("Open in Investigate"): the right tab, the lesson's inputs in its fields and its
// numbers drawn (checked against attention-wasm/model in Node); the address it opens is a permalink (a fresh page on it
// shows the same); a link's value that cannot be read, or a token the model does not hold, is said, never drawn as
// markup. Screenshots in tests/artifacts/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../src/js/model/index.node.js';
import { ARTIFACTS, withPage } from './helpers.mjs';
import { INDUCTION, SENTENCE, lessonSweeps } from './real-model/helpers.mjs';
import { env } from './session.mjs';

const CORRUPTED = SENTENCE.replace('a red ball', 'a green ball');
let model;
const builtin = async () => (model ??= await loadModel(INDUCTION));

/**
 * The probability of the predicted token at the last position, residual by residual (the lens's line): a float64
 * softmax of unembed(hiddenStates[l]), written here.
 */
async function predictedLine(m, text) {
  const r = await m.run(text, { hiddenStates: true });
  const [n, V, id] = [r.ids.length, m.spec.vocabSize, r.next[0].id];
  const line = [];
  for (const [l, hidden] of r.hiddenStates.entries()) {
    const logits = await m.unembed(hidden, { norm: l < r.hiddenStates.length - 1 });
    const row = Array.from(logits.data.subarray((n - 1) * V, n * V));
    const max = Math.max(...row);
    line.push(Math.exp(row[id] - max) / row.reduce((s, v) => s + Math.exp(v - max), 0));
  }
  return line;
}

/** Waits until Investigate shows tab `key` drawn: its numbers computed (the patching tab: both sweeps done). */
async function investigateDrawn(page, key) {
  await page.waitForSelector(`#inv-tab-${key}[aria-selected="true"]`, { timeout: 60000 });
  await page.waitForFunction(
    (k) =>
      k === 'patching'
        ? Number(document.body.dataset.invSweeps ?? 0) >= 1
        : (document.body.dataset.invDrawn ?? '').startsWith(`${k}:`),
    key,
    { timeout: 60000 },
  );
}

/** Cells of the grids matching `css` (data-value), grid by grid. */
const grids = (page, css) =>
  page.$$eval(css, (tables) =>
    tables.map((t) => Array.from(t.querySelectorAll('td.inv-cell'), (td) => Number(td.dataset.value))),
  );

const closeAll = (got, want, tolerance, what) => {
  assert.equal(got.length, want.length, `${what}: count`);
  got.forEach((v, k) => assert.ok(Math.abs(v - want[k]) <= tolerance, `${what}[${k}]: shown ${v}, API ${want[k]}`));
};

/** What Investigate shows of a tab, to compare a permalink's page with the page the lesson opened. */
async function shown(page, key) {
  return page.evaluate((k) => {
    const panel = document.getElementById(`inv-panel-${k}`);
    return {
      fields: Array.from(panel.querySelectorAll('input'), (i) => [i.id, i.value]),
      cells: Array.from(panel.querySelectorAll('td.inv-cell'), (td) => td.dataset.value),
      selected: document.querySelector('.inv-tab[aria-selected="true"]').dataset.tab,
    };
  }, key);
}

/**
 * Opens lesson `id`, clicks the Open in Investigate link under figure `figure`, waits for tab `key` drawn, runs
 * `check`, then opens the address it reached in a fresh page and expects the same.
 */
async function openFromLesson(id, figure, key, check) {
  let address;
  let first;
  await withPage(env, { waitForRender: false }, async ({ page }) => {
    await page.goto(`${env.server.url}?lesson=${id}&nowarm`);
    const link = page.locator(`#instrument-lesson-investigate-${figure}`);
    await link.waitFor({ timeout: 60000 });
    assert.equal(await link.textContent(), 'Open in Investigate');
    address = new URL(await link.evaluate((a) => a.href));
    await link.click();
    await investigateDrawn(page, key);
    assert.equal(address.searchParams.get('lesson'), null, 'the lesson left');
    assert.equal(address.searchParams.get('model'), 'builtin');
    assert.equal(address.searchParams.get('section'), 'investigate');
    assert.equal(address.searchParams.get('inv'), key);
    assert.equal(address.searchParams.get('text'), SENTENCE);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'model-investigate-title');
    await check(page);
    // The address as the page writes it keeps the tab (and drops the part opened at, as for the other parts).
    await page.waitForFunction((k) => new URLSearchParams(location.search).get('inv') === k, key);
    first = await shown(page, key);
    await page.locator('.investigate').screenshot({ path: `${ARTIFACTS}/lesson-investigate-${id}-${key}.png` });
  });
  await withPage(env, { waitForRender: false }, async ({ page }) => {
    await page.goto(address.href);
    await investigateDrawn(page, key);
    assert.deepEqual(await shown(page, key), first, 'the permalink shows the same');
    await page.waitForFunction(() => /[?&]inv=/u.test(location.search)); // the address written again keeps it
    assert.equal(new URL(page.url()).searchParams.get('inv'), key);
  });
}

describe('lessons on the trained model: Open in Investigate', () => {
  test('head-writes → the Attribution tab with “ball”, the API’s attribution; its permalink the same', async () => {
    const m = await builtin();
    const ball = (await m.run(SENTENCE)).next[0].id;
    const a = await m.attribute(SENTENCE, { target: [ball] });
    await openFromLesson('head-writes', 0, 'attribution', async (page) => {
      assert.equal(await page.inputValue('#inv-attr-a'), 'ball');
      assert.equal(await page.inputValue('#inv-attr-b'), '');
      closeAll((await grids(page, '.inv-attribution .inv-grid')).flat(), Array.from(a.heads.data), 1e-5, 'heads');
      assert.match(await page.textContent('.inv-attribution [role="status"]'), /“ball”/u);
    });
  });

  test('logit-lens → the Logit lens following “ball” at the last position; its permalink the same', async () => {
    const line = await predictedLine(await builtin(), SENTENCE);
    await openFromLesson('logit-lens', 0, 'lens', async (page) => {
      assert.equal((await page.inputValue('.inv-lens input[type="text"]')).trim(), 'ball');
      const caption = await page.textContent('.inv-lens-caption');
      assert.match(caption, /p\(“ball”\) at position 15 “red”/u);
      assert.ok(caption.endsWith(`: ${line.map((p) => p.toFixed(3)).join(' → ')}`), caption);
    });
    // Another token and position in the link are followed; a cell clicked is written in the address.
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      await page.goto(`${env.server.url}?model=builtin&section=investigate&inv=lens&invtarget=tree&invpos=8&nowarm`);
      await investigateDrawn(page, 'lens');
      assert.match(await page.textContent('.inv-lens-caption'), /p\(“tree”\) at position 8 “old”/u);
      assert.equal(await page.inputValue('#inv-lens-token'), 'tree');
      await page.click('.inv-lens .inv-grid tbody tr:last-child td[data-col="3"] button');
      await page.waitForFunction(() => new URLSearchParams(location.search).get('invpos') === '3');
      const target = new URL(page.url()).searchParams.get('invtarget');
      assert.equal(target, await page.inputValue('#inv-lens-token'), 'the token followed, as its field reads');
      assert.match(await page.textContent('.inv-lens-caption'), new RegExp(`at position 3 “a”`, 'u'));
    });
  });

  test('patching → the Patching tab with both prompts, the sweeps of patchSweep; the head scores → Head scores', async () => {
    const m = await builtin();
    const { c, input, heads } = await lessonSweeps(m);
    await openFromLesson('patching', 0, 'patching', async (page) => {
      assert.equal(await page.inputValue('#inv-clean'), SENTENCE);
      assert.equal(await page.inputValue('#inv-corrupted'), CORRUPTED);
      assert.equal(await page.inputValue('#inv-patch-position'), '');
      const [resid, head] = await grids(page, '.inv-patching .inv-grid');
      closeAll(resid, Array.from(input.scores.data), 1e-5, 'residual stream');
      closeAll(head, Array.from(heads.scores.data), 1e-5, 'heads');
      assert.match(await page.textContent('#inv-patch-status'), /at the last token/u);
    });
    const prev = await m.headScores('previousToken', { ids: c.ids });
    await openFromLesson('patching', 1, 'scores', async (page) => {
      const shownPrev = Number(
        await page.getAttribute('.inv-scores tr[data-layer="0"][data-head="2"] td', 'data-value'),
      );
      assert.ok(Math.abs(shownPrev - prev.data[2]) < 1e-5, `${shownPrev} vs ${prev.data[2]}`);
    });
  });

  test('a link’s metric position and pair: the sweeps measure there; a position past the prompts is said', async () => {
    const m = await builtin();
    const c = await m.run(SENTENCE);
    const [cat, saw] = [c.ids[1], c.ids[2]]; // any pair: the sweeps' metric at position 8 (“old”)
    const sweep = await m.patchSweep({
      clean: SENTENCE,
      corrupted: CORRUPTED,
      target: [cat, saw],
      step: 'input',
      position: 8,
    });
    const base = `${env.server.url}?model=builtin&section=investigate&inv=patching&invcorrupted=${encodeURIComponent(CORRUPTED)}&nowarm`;
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      await page.goto(`${base}&invtarget=cat&invagainst=saw&invpos=8`);
      await investigateDrawn(page, 'patching');
      assert.equal(await page.inputValue('#inv-patch-position'), '8');
      const [resid] = await grids(page, '.inv-patching .inv-grid');
      closeAll(resid, Array.from(sweep.scores.data), 1e-5, 'residual stream at position 8');
      assert.match(await page.textContent('#inv-patch-status'), /at position 8 \(“old”\)/u);
      await page.waitForFunction(() => new URLSearchParams(location.search).get('invpos') === '8');
    });
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      await page.goto(`${base}&invpos=40`);
      await page.waitForSelector('#inv-patch-problem:not([hidden])', { timeout: 60000 });
      assert.equal(
        await page.textContent('#inv-patch-problem'),
        'Position “40” is not a position of the prompts: they count from 0 to 15.',
      );
    });
  });

  test('a link’s value that cannot be read is said politely, and a token typed is never markup', async () => {
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      const evil = '<img src=x id=evil>';
      await page.goto(
        `${env.server.url}?model=builtin&section=investigate&inv=attribution&invtarget=${encodeURIComponent(evil)}&invpos=x&nowarm`,
      );
      await investigateDrawn(page, 'attribution').catch(() => {});
      await page.waitForSelector('#model-link-note:not([hidden])', { timeout: 60000 });
      assert.match(await page.textContent('#model-link-note'), /invpos=x is not a token position from 0 to 99999/u);
      await page.waitForFunction(() =>
        /is not one token/u.test(document.querySelector('.inv-attribution [role="status"]').textContent),
      );
      assert.equal(
        await page.textContent('.inv-attribution [role="status"]'),
        `Token a: “${evil}” is not one token of this vocabulary: type a word it holds as one token, or a token id.`,
      );
      assert.equal(await page.inputValue('#inv-attr-a'), evil);
      assert.doesNotMatch(await page.textContent('#inv-status'), /computed in/u, 'nothing was computed for it');
      assert.equal(await page.$('#evil'), null, 'no element made of the text');
      await page.locator('#model-link-note').screenshot({ path: `${ARTIFACTS}/lesson-investigate-bad-note.png` });
      await page.locator('.investigate').screenshot({ path: `${ARTIFACTS}/lesson-investigate-bad-token.png` });
    });
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      await page.goto(`${env.server.url}?model=builtin&section=investigate&inv=lenz&nowarm`);
      await page.waitForSelector('#model-link-note:not([hidden])', { timeout: 60000 });
      assert.match(
        await page.textContent('#model-link-note'),
        /inv=lenz is not an instrument of Investigate \(lens, attribution, patching, scores, loss\)/u,
      );
      await page.waitForSelector('#inv-tab-lens[aria-selected="true"]'); // the shipped model's first tab
    });
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      await page.goto(`${env.server.url}?model=builtin&section=investigate&inv=lens&invtarget=ball&invpos=99&nowarm`);
      await investigateDrawn(page, 'lens');
      await page.waitForSelector('#inv-panel-lens .inv-note:not([hidden])');
      assert.equal(
        await page.textContent('#inv-panel-lens .inv-note'),
        "This link's invpos=99 is past the last token (positions 0 to 15): the last is shown.",
      );
    });
  });
});
