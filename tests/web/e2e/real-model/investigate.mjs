// Page test (run by run.mjs): the real model's Investigate part on the shipped induction model: the logit lens, the
// attribution (the predicted token, then a pair typed) with a head opened in the steps, the head scores (sorted, and
// marked on the model view), the loss per token with a mean ablation, the patching sweeps (every cell, prompts of
// different lengths said, a sweep cancelled after its first layer), the copies (CSV, JSON, NumPy) and the .npz
// download, each checked against attention-wasm/model run here in Node; screenshots of every tab at 1280 and 390 px in
// tests/artifacts/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { readNpz } from '../../../../src/js/io/index.js';
import { ARTIFACTS, withPage } from '../helpers.mjs';
import { INDUCTION, SENTENCE, dropAsFiles, openBuiltin, runs, waitForRun, walkShows } from './helpers.mjs';
import { bertFixture, llamaFixture } from '../../../js/model/fixtures.js';
import { wordPieceTokenizer } from '../../../js/model/tokenizers.js';
import { env } from '../session.mjs';

const CORRUPTED = SENTENCE.replace('a red ball', 'a green ball');
const TABS = ['lens', 'attribution', 'patching', 'scores', 'loss'];

/** Shows tab `key` and waits until it is drawn (body[data-inv-drawn] counts each tab drawn). */
async function openTab(page, key, { force = false } = {}) {
  const before = await page.evaluate(() => document.body.dataset.invDrawn ?? '');
  await page.click(`#inv-tab-${key}`);
  if (key === 'patching') return;
  if (!force && before.startsWith(`${key}:`)) return;
  await page.waitForFunction(
    ([k, b]) => (document.body.dataset.invDrawn ?? '').startsWith(`${k}:`) && document.body.dataset.invDrawn !== b,
    [key, before],
    { timeout: 60000 },
  );
}

/** Waits for the tab shown to be drawn again (after an option changed). */
async function redrawn(page, key, change) {
  const before = await page.evaluate(() => document.body.dataset.invDrawn ?? '');
  await change();
  await page.waitForFunction(
    ([k, b]) => document.body.dataset.invDrawn !== b && document.body.dataset.invDrawn.startsWith(`${k}:`),
    [key, before],
    { timeout: 60000 },
  );
}

/** A grid's cells as numbers, row by row (data-value). */
const gridValues = (page, selector) =>
  page.$$eval(`${selector} tbody tr`, (rows) =>
    rows.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))),
  );

const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} against ${b}`);

/** Softmax of row i of logits [n, V] in float64: its top id and p. */
function top(logits, i) {
  const V = logits.shape[1];
  const row = Array.from(logits.data.subarray(i * V, (i + 1) * V));
  const max = Math.max(...row);
  const sum = row.reduce((s, x) => s + Math.exp(x - max), 0);
  const id = row.indexOf(max);
  return { id, p: 1 / sum };
}

async function shoot(page, name) {
  for (const key of TABS) {
    await page.click(`#inv-tab-${key}`);
    await page.waitForFunction(() => !document.getElementById('inv-status').textContent.startsWith('Computing'));
    await page.locator('.investigate').screenshot({ path: `${ARTIFACTS}/real-model-investigate-${key}-${name}.png` });
  }
}

describe('real model: Investigate (issue 36)', () => {
  test('1280 px: the lens, attribution, head scores, loss and patching show the API’s numbers; copies and .npz', async () => {
    const model = await loadModel(INDUCTION);
    const r = await model.run(SENTENCE, { loss: true });
    const n = r.ids.length;
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      // The logit lens: open first on the shipped model.
      await page.waitForFunction(() => (document.body.dataset.invDrawn ?? '').startsWith('lens:'), null, {
        timeout: 60000,
      });
      const lens = await page.$$eval('.inv-lens .inv-grid tbody tr', (rows) =>
        rows.map((tr) =>
          [...tr.querySelectorAll('td')].map((td) => ({
            p: Number(td.dataset.value),
            token: td.querySelector('.inv-cell-text').textContent,
          })),
        ),
      );
      assert.equal(lens.length, 3, 'embeddings, after L0, after L1 (final)');
      for (let l = 0; l <= 2; l++) {
        const logits = await model.unembed(r.hiddenStates[l], { norm: l < 2 });
        for (let i = 0; i < n; i++) {
          const t = top(logits, i);
          close(lens[l][i].p, t.p, 1e-5, `lens row ${l} position ${i}`);
          assert.equal(
            lens[l][i].token.replace(/^␣/u, ''),
            model.hasTokenizer ? r.next && (await tokenOf(model, t.id)) : '',
            `lens row ${l} position ${i}`,
          );
        }
      }
      assert.match(await page.textContent('.inv-lens-caption'), /p\(“ball”\) at position 15 “red”/u);
      // Attribution of the predicted token (ball, id 94), then ball − wolf.
      await openTab(page, 'attribution');
      const a = await model.attribute(SENTENCE, { target: [r.next[0].id] });
      const heads = await gridValues(page, '.inv-attribution .inv-grid');
      heads.flat().forEach((v, k) => close(v, a.heads.data[k], 1e-5, `attribution head ${k}`));
      const total = Number(await page.getAttribute('.inv-parts tr[data-part="total"]', 'data-value'));
      close(total, a.total, 1e-5, 'attribution total');
      assert.match(await page.textContent('.inv-attribution [role="status"]'), /Largest heads: L1H1/u);
      await redrawn(page, 'attribution', async () => {
        await page.fill('#inv-attr-a', 'ball');
        await page.fill('#inv-attr-b', 'wolf');
        await page.dispatchEvent('#inv-attr-b', 'change');
      });
      await page.waitForFunction(() =>
        /“ball” − “wolf”/u.test(document.querySelector('.inv-attribution [role="status"]').textContent),
      );
      const pair = await model.attribute(SENTENCE, { target: [94, 62] });
      (await gridValues(page, '.inv-attribution .inv-grid'))
        .flat()
        .forEach((v, k) => close(v, pair.heads.data[k], 1e-5, `pair head ${k}`));
      await page.click('.inv-attribution .inv-grid tbody tr:nth-child(2) td:nth-of-type(4) button');
      await walkShows(page, 'L1H3 (layer 1 head 3) is in the steps below');
      // Head scores on the sentence, sorted by induction, and their marks on the model view.
      await page.click('#inv-tab-scores');
      await openTab(page, 'scores', { force: false });
      const scores = {};
      for (const kind of ['previousToken', 'duplicateToken', 'induction'])
        scores[kind] = await model.headScores(kind, { ids: r.ids });
      const table = await page.$$eval('.inv-scores tbody tr', (rows) =>
        rows.map((tr) => ({
          layer: Number(tr.dataset.layer),
          head: Number(tr.dataset.head),
          values: [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)),
        })),
      );
      assert.equal(table.length, 8);
      for (const row of table)
        ['previousToken', 'duplicateToken', 'induction'].forEach((kind, k) =>
          close(row.values[k], scores[kind].data[row.layer * 4 + row.head], 1e-5, `${kind} L${row.layer}H${row.head}`),
        );
      await page.click('.inv-sort[data-key="previousToken"]');
      assert.equal(
        await page.textContent('.inv-scores tbody tr:first-child th'),
        'L0H2',
        'the previous-token head, as the card names it',
      );
      await page.click('.inv-sort[data-key="induction"]');
      const induction = await page.$$eval('.inv-scores tbody tr', (rows) =>
        rows.slice(0, 4).map((tr) => tr.querySelector('th').textContent),
      );
      assert.deepEqual(
        induction.sort(),
        ['L1H0', 'L1H1', 'L1H2', 'L1H3'],
        'the four induction heads of the card first',
      );
      // The model view marks the heads the card names: the previous-token head and the four induction heads.
      const marks = await page.$$eval('.model-head .head-mark', (badges) =>
        badges.map((b) => `${b.closest('figure').querySelector('.head-button').textContent} ${b.dataset.kind}`),
      );
      assert.deepEqual(marks, [
        'L0H2 previousToken',
        'L1H0 induction',
        'L1H1 induction',
        'L1H2 induction',
        'L1H3 induction',
      ]);
      await page.locator('.model-heads').screenshot({ path: `${ARTIFACTS}/real-model-investigate-marks-1280.png` });
      await redrawn(page, 'scores', () => page.selectOption('#inv-scores-ids', 'repeated'));
      const repeated = await page.$$eval('.inv-scores tbody tr', (rows) =>
        rows.slice(0, 4).map((tr) => tr.querySelector('th').textContent),
      );
      assert.deepEqual(
        repeated.sort(),
        ['L1H0', 'L1H1', 'L1H2', 'L1H3'],
        'random repeated tokens: the induction heads',
      );
      // Loss per token.
      await openTab(page, 'loss');
      const loss = await page.$$eval('.inv-loss-token[data-loss]', (items) =>
        items.map((li) => Number(li.dataset.loss)),
      );
      assert.equal(loss.length, n - 1);
      loss.forEach((v, i) => close(v, r.loss.perToken[i], 1e-5, `loss ${i}`));
      // Copies: the loss as CSV, the lens as NumPy.
      await page.click('#inv-panel-loss .copy-button:text-is("CSV")');
      const csv = await page.evaluate(() => navigator.clipboard.readText());
      assert.equal(csv.split('\n')[0], 'prediction,position,loss,p');
      close(Number(csv.split('\n')[1].split(',')[2]), r.loss.perToken[0], 1e-6, 'CSV loss 0');
      await page.click('#inv-panel-loss .copy-button:text-is("JSON")');
      const json = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
      close(json.at(-1).loss, r.loss.perToken[n - 2], 1e-6, 'JSON last loss');
      await page.click('#inv-panel-loss .copy-button:text-is("NumPy")');
      assert.match(
        await page.evaluate(() => navigator.clipboard.readText()),
        /^# next-token cross-entropy[^]*np\.array\(\[\[0, /u,
      );
      // The run as .npz.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#inv-npz')]);
      const npz = await readNpz(new Uint8Array(readFileSync(await download.path())));
      assert.deepEqual(Array.from(npz['ids'].data), r.ids);
      Array.from(npz['loss.perToken'].data).forEach((v, i) => close(v, r.loss.perToken[i], 1e-6, `npz loss ${i}`));
      // A mean ablation of L0H2 (the mode beside the model view's "off" buttons): the loss follows the API's.
      await page.selectOption('#model-ablate-mode', 'mean');
      await redrawn(page, 'loss', () => page.click('.ablate-button[data-layer="0"][data-head="2"]'));
      const meaned = await model.run(SENTENCE, { ablate: [{ layer: 0, head: 2, mode: 'mean' }], loss: true });
      const loss2 = await page.$$eval('.inv-loss-token[data-loss]', (items) =>
        items.map((li) => Number(li.dataset.loss)),
      );
      loss2.forEach((v, i) => close(v, meaned.loss.perToken[i], 1e-5, `mean-ablated loss ${i}`));
      await page.waitForFunction(() => /ablate=0\.2&ablatemode=mean/u.test(location.search)); // the link holds the mode
      await page.click('.ablate-button[data-layer="0"][data-head="2"]');
      // Patching: every cell of both sweeps, against model.patchSweep.
      await openTab(page, 'patching');
      assert.equal(await page.inputValue('#inv-corrupted'), CORRUPTED);
      const sweeps = await page.evaluate(() => Number(document.body.dataset.invSweeps ?? 0));
      await page.click('#inv-patch-run');
      await page.waitForFunction((s) => Number(document.body.dataset.invSweeps ?? 0) > s, sweeps, { timeout: 60000 });
      const corrupted = await model.run(CORRUPTED, { logits: 'last' });
      const target = [r.next[0].id, corrupted.next[0].id];
      for (const [step, selector] of [
        ['input', '#inv-panel-patching .inv-grid-wrap >> nth=0'],
        ['headOutput', '#inv-panel-patching .inv-grid-wrap >> nth=1'],
      ]) {
        const p = await model.patchSweep({ clean: SENTENCE, corrupted: CORRUPTED, target, step });
        const shown = await page
          .locator(selector)
          .evaluate((wrap) => [...wrap.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)));
        assert.equal(shown.length, p.scores.data.length, `${step}: every cell`);
        shown.forEach((v, k) => close(v, p.scores.data[k], 1e-4, `${step} cell ${k}`));
      }
      const heads2 = await page
        .locator('#inv-panel-patching .inv-grid-wrap >> nth=1')
        .evaluate((wrap) => [...wrap.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)));
      assert.equal(heads2.indexOf(Math.max(...heads2)), 2, 'L0H2, the previous-token head, restores the most');
      await page.locator('.investigate').screenshot({ path: `${ARTIFACTS}/real-model-investigate-patching-1280.png` });
      // Cancelled after the first layer's cells: the second layer's stay empty, and the page says so.
      await page.evaluate(
        () =>
          new Promise((resolve) => {
            delete document.body.dataset.invSweepCells;
            const observer = new MutationObserver(() => {
              if (!document.body.dataset.invSweepCells) return;
              observer.disconnect();
              document.getElementById('inv-patch-cancel').click();
              resolve();
            });
            observer.observe(document.body, { attributes: true, attributeFilter: ['data-inv-sweep-cells'] });
            document.getElementById('inv-patch-run').click();
          }),
      );
      await page.waitForFunction(
        () => document.getElementById('inv-patch-status').textContent.startsWith('Cancelled'),
        null,
        { timeout: 60000 },
      );
      const pending = await page
        .locator('#inv-panel-patching .inv-grid-wrap >> nth=0')
        .evaluate((wrap) =>
          [...wrap.querySelectorAll('tbody tr')].map((tr) => tr.querySelectorAll('td.pending').length),
        );
      assert.deepEqual(pending, [0, n], 'layer 0 of the residual sweep computed, layer 1 not');
      assert.equal(await page.isVisible('#inv-patch-cancel'), false);
      // Prompts of different lengths: said, nothing run.
      await page.fill('#inv-corrupted', `${CORRUPTED} ball`);
      await page.click('#inv-patch-run');
      await page.waitForSelector('#inv-patch-problem:not([hidden])');
      assert.match(await page.textContent('#inv-patch-problem'), /16 tokens and the corrupted one 17/u);
      await page.fill('#inv-corrupted', CORRUPTED);
      assert.equal(await page.isVisible('#inv-patch-problem'), false, 'the problem goes once the prompt is changed');
      const again = await page.evaluate(() => Number(document.body.dataset.invSweeps ?? 0));
      await page.click('#inv-patch-run');
      await page.waitForFunction((s) => Number(document.body.dataset.invSweeps ?? 0) > s, again, { timeout: 60000 });
      await shoot(page, '1280');
      // Another sentence, with the head scores' tab hidden: the model view's marks of the last sentence go.
      await page.click('#inv-tab-scores');
      await redrawn(page, 'scores', () => page.selectOption('#inv-scores-ids', 'sentence'));
      await page.click('#inv-tab-lens');
      assert.equal(await page.$$eval('.model-head .head-mark', (m) => m.length), 5);
      const before = await runs(page);
      await page.fill('#model-text', 'the dog saw a cat');
      await waitForRun(page, before);
      assert.equal(await page.$$eval('.model-head .head-mark', (m) => m.length), 0);
    });
  });

  test('390 px, light then dark: every tab fits the width', async () => {
    await withPage(env, { viewport: { width: 390, height: 844 }, hasTouch: true }, async ({ page }) => {
      await openBuiltin(page);
      await page.waitForFunction(() => (document.body.dataset.invDrawn ?? '').startsWith('lens:'), null, {
        timeout: 60000,
      });
      await page.click('#inv-tab-patching');
      await page.click('#inv-patch-run');
      await page.waitForFunction(() => Number(document.body.dataset.invSweeps ?? 0) > 0, null, { timeout: 60000 });
      await shoot(page, '390');
      await page.emulateMedia({ colorScheme: 'dark' });
      await shoot(page, '390-dark');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide at 390`);
    });
  });

  test('a dropped LLaMA checkpoint without tokenizer.json (ids typed): no tab until one is picked, each as the API; BERT says why attribution and loss are not its', async () => {
    const fixture = llamaFixture();
    const model = await loadModel(fixture.files);
    const ids = [5, 1, 7, 3, 9, 2];
    const r = await model.run({ ids }, { loss: true });
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await dropAsFiles(page, fixture.files);
      await page.waitForFunction(() => document.getElementById('model-about').textContent.startsWith('llama'));
      await page.fill('#model-text', ids.join(' '));
      await page.waitForFunction(
        (t) => [...document.querySelectorAll('.model-tokens li')].map((li) => li.dataset.id).join(' ') === t,
        ids.join(' '),
      ); // the ids typed are run (the folder's default ids are 6 too)
      assert.equal(await page.$$eval('.inv-panel:not([hidden])', (p) => p.length), 0, 'a loaded model opens no tab');
      await openTab(page, 'attribution');
      const a = await model.attribute({ ids }, { target: [r.next[0].id] });
      (await gridValues(page, '.inv-attribution .inv-grid'))
        .flat()
        .forEach((v, k) => close(v, a.heads.data[k], 1e-5, `llama attribution head ${k}`));
      await redrawn(page, 'attribution', async () => {
        await page.fill('#inv-attr-a', '7');
        await page.fill('#inv-attr-b', '3');
        await page.dispatchEvent('#inv-attr-b', 'change');
      });
      await page.waitForFunction(() =>
        /“7” − “3”/u.test(document.querySelector('.inv-attribution [role="status"]').textContent),
      );
      const pair = await model.attribute({ ids }, { target: [7, 3] });
      (await gridValues(page, '.inv-attribution .inv-grid'))
        .flat()
        .forEach((v, k) => close(v, pair.heads.data[k], 1e-5, `llama pair head ${k}`));
      await openTab(page, 'loss');
      const loss = await page.$$eval('.inv-loss-token[data-loss]', (items) =>
        items.map((li) => Number(li.dataset.loss)),
      );
      loss.forEach((v, i) => close(v, r.loss.perToken[i], 1e-5, `llama loss ${i}`));
      await page.click('#inv-tab-patching');
      assert.equal(await page.inputValue('#inv-clean'), ids.join(' '));
      await page.fill('#inv-corrupted', '5 1 4 3 9 2');
      const sweeps = await page.evaluate(() => Number(document.body.dataset.invSweeps ?? 0));
      await page.click('#inv-patch-run');
      await page.waitForFunction((s) => Number(document.body.dataset.invSweeps ?? 0) > s, sweeps, { timeout: 60000 });
      const corrupted = await model.run({ ids: [5, 1, 4, 3, 9, 2] }, { logits: 'last' });
      // b by default is the corrupted run's top token, unless it is the clean run's too: then m is logit a alone
      const same = corrupted.next[0].id === r.next[0].id;
      const target = same ? [r.next[0].id] : [r.next[0].id, corrupted.next[0].id];
      const p = await model.patchSweep({
        clean: { ids },
        corrupted: { ids: [5, 1, 4, 3, 9, 2] },
        target,
        step: 'headOutput',
      });
      const shown = await page
        .locator('#inv-panel-patching .inv-grid-wrap >> nth=1')
        .evaluate((wrap) => [...wrap.querySelectorAll('tbody td')].map((td) => Number(td.dataset.value)));
      shown.forEach((v, k) => close(v, p.scores.data[k], 1e-4, `llama headOutput cell ${k}`));

      const tokenizer = wordPieceTokenizer(['the', 'cat', 'sat', 'on', 'mat', '##s', 'dog', '.', 'a']);
      await dropAsFiles(page, { ...bertFixture({ vocab: 19 }).files, 'tokenizer.json': tokenizer });
      await page.waitForFunction(() => document.getElementById('model-about').textContent.startsWith('bert'));
      await page.click('#inv-tab-attribution');
      assert.match(await page.textContent('#inv-panel-attribution .inv-note'), /BERT’s masked-LM head is not linear/u);
      await openTab(page, 'scores');
      assert.equal(await page.$$eval('.inv-scores tbody tr', (rows) => rows.length), 2 * 2);
    });
  });
});

/** A token's text as the page shows it (the shipped vocabulary: whole words). */
async function tokenOf(model, id) {
  const r = await model.run({ ids: [id] }, { logits: false, attentions: false, hiddenStates: false });
  return r.tokens?.[0] ?? String(id);
}
