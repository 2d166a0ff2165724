// Page test (run by run.mjs): the "Real model" source on the shipped induction model: tokens, ids, predictions, the
// model view, the ablation of the induction heads, a head's walk through the steps and the link, checked against
// attention-wasm/model run here in Node on the same files; at 390 px dark; by its folder URL; a Hub id when the Hub
// cannot be reached; the download's progress and Cancel. Dropped files: files.mjs. Screenshots: tests/artifacts/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { ARTIFACTS, ROOT, assertShown, chooseExample, openPage, readNumbers, settle, withPage } from '../helpers.mjs';
import {
  INDUCTION,
  INDUCTION_HEADS,
  SENTENCE,
  assertPredictions,
  openBuiltin,
  readPredictions,
  runs,
  waitForRun,
} from './helpers.mjs';
import { PRECISION, env } from '../session.mjs';

describe('real model: the shipped model', () => {
  test('the shipped model: tokens, ids, top 10, ablation of the induction heads, a head walked with its own numbers, the link', async () => {
    const model = await loadModel(INDUCTION);
    const plain = await model.run(SENTENCE, { topK: 10 });
    const ablated = await model.run(SENTENCE, { topK: 10, ablate: INDUCTION_HEADS });
    let link;
    await withPage(env, {}, async ({ page, problems }) => {
      const before = problems.requests.length;
      assert.equal(
        problems.requests.filter((u) => /model-simd|\/panel-[^/]*\.js$|model\.safetensors/u.test(u)).length,
        0,
        'the first load carries no model code',
      );
      await openBuiltin(page);
      assert.ok(problems.requests.slice(before).some((u) => /models\/induction\/model\.safetensors$/u.test(u)));
      // real-model/panel.js's chunk, named after it: the name the first load was checked against
      assert.ok(
        problems.requests.slice(before).some((u) => /\/panel-[^/]*\.js$/u.test(u)),
        'the model code loads',
      );
      assert.equal(await page.inputValue('#model-text'), SENTENCE);
      const ids = await page.$$eval('.model-tokens li', (items) => items.map((li) => Number(li.dataset.id)));
      assert.deepEqual(ids, plain.ids);
      const words = await page.$$eval('.model-tokens .token-text', (nodes) => nodes.map((n) => n.textContent));
      assert.deepEqual(words, plain.tokens);
      assertPredictions(await readPredictions(page), plain.next, 'all heads on');
      assert.equal((await readPredictions(page))[0].token, 'ball');
      assert.equal(await page.locator('.model-head canvas').count(), 8);
      assert.ok(await page.isVisible('.model-lesson'));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-1280.png`, fullPage: false });

      for (const [l, h] of INDUCTION_HEADS) {
        const n = await runs(page);
        await page.click(`.ablate-button[data-layer="${l}"][data-head="${h}"]`);
        await waitForRun(page, n);
      }
      const shown = await readPredictions(page);
      assertPredictions(shown, ablated.next, 'induction heads off');
      const ball = plain.next[0].id;
      assert.notEqual(shown[0].id, ball, '“ball” is no longer first');
      assert.ok(
        shown.every(
          (r) =>
            Math.abs(r.before - plain.next.find((t) => t.id === r.id)?.p) < 6e-4 ||
            !plain.next.some((t) => t.id === r.id),
        ),
      );
      assert.match(await page.textContent('#model-ablated'), /L1H0, L1H1, L1H2, L1H3/u);
      assert.match(await page.textContent('#model-ablated'), /Their maps are faded: their weights are still computed/u);
      const left = /Left the list after the ablation: “␣?ball” \(was (0\.\d{3}), now (0\.\d{3})\)/u.exec(
        await page.textContent('.model-predictions'),
      );
      assert.ok(left, 'a token that left the list says its p before and now');
      assert.equal(left[1], plain.next[0].p.toFixed(3));
      assert.ok(Number(left[2]) < shown[shown.length - 1].p + 5e-4, 'now below the last one listed');

      await page.locator('#step-model').screenshot({ path: `${ARTIFACTS}/real-model-ablated-1280.png` });
      // README_SHOTS=1 rewrites the README's picture: from the tokens to the model view, the induction heads off.
      if (process.env.README_SHOTS) {
        const top = await page.locator('.model-tokens-title').boundingBox();
        const bottom = await page.locator('.model-view').boundingBox();
        await page.setViewportSize({ width: 1280, height: Math.ceil(bottom.y + bottom.height - top.y + 40) });
        await page.locator('.model-tokens-title').scrollIntoViewIfNeeded();
        await page.evaluate(() => document.querySelector('.model-tokens-title').scrollIntoView({ block: 'start' }));
        const box = await page.locator('#step-model').boundingBox();
        const first = await page.locator('.model-tokens-title').boundingBox();
        const last = await page.locator('.model-view').boundingBox();
        await page.screenshot({
          path: `${ROOT}docs/real-model.png`,
          clip: { x: box.x, y: first.y - 12, width: box.width, height: last.y + last.height - first.y + 24 },
        });
        await page.setViewportSize({ width: 1280, height: 800 });
      }
      // Layer 0 head 2, the previous-token head, in the steps: the model's own numbers.
      const [cap] = (await model.run(SENTENCE, { capture: [{ layer: 0, head: 2 }], ablate: INDUCTION_HEADS })).captures;
      await page.click('.head-button[data-layer="0"][data-head="2"]');
      await page.waitForFunction(() =>
        /L0H2 \(layer 0 head 2\) is in the steps/u.test(document.getElementById('model-walk').textContent),
      );
      await settle(page);
      // The status line keeps what the run said: the layer run again for the steps is no "layer 1 of 2" left behind.
      assert.match(await page.textContent('#model-status'), /^Ran 16 tokens in \d+ ms/u);
      for (const [matrix, key] of [
        ['weights', 'weights'],
        ['q', 'q'],
        ['rawScores', 'rawScores'],
        ['output', 'headOutput'],
      ]) {
        assertShown(await readNumbers(page, matrix), cap[key].toArray(), PRECISION, `layer 0 head 2 ${matrix}`);
      }
      assert.equal(await page.inputValue('#head'), '2');
      // Step 1 says what X is here: the layer's normed input, computed by the shipped model (not "embeddings").
      assert.match(
        await page.textContent('#x-source'),
        /^Here X is computed by the shipped induction model, run up to this layer: this layer's input after its first norm \(LayerNorm ln_1\)/u,
      );
      assert.doesNotMatch(await page.textContent('#step-x'), /your model's file|hidden states entering/u);
      assert.equal(await page.textContent('[data-matrix="x"] .matrix-note'), "the layer's normed input · rows: tokens");
      assert.ok(await page.isChecked('#causal'));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-walk-1280.png`, fullPage: false });
      await page.evaluate(() => document.getElementById('step-softmax').scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-walk-steps-1280.png`, fullPage: false });
      await page.waitForTimeout(300); // the hash is written 250 ms after a change
      link = await page.evaluate(() => location.href);
      const url = new URL(link);
      assert.equal(url.searchParams.get('model'), 'builtin');
      assert.equal(url.searchParams.get('text'), SENTENCE);
      assert.equal(url.searchParams.get('layer'), '0');
      assert.equal(url.searchParams.get('head'), '2');
      assert.equal(url.searchParams.get('ablate'), '1.0,1.1,1.2,1.3');
      assert.doesNotMatch(link, /x=|wq=/u, 'the link holds no weights');
    });
    // The link reopens the same view: the model, the sentence, the ablations, the head in the steps.
    await withPage(env, { hash: link.slice(env.server.url.length) }, async ({ page }) => {
      await waitForRun(page);
      await page.waitForFunction(() =>
        /L0H2 \(layer 0 head 2\) is in the steps/u.test(document.getElementById('model-walk').textContent),
      );
      await settle(page);
      assertPredictions(await readPredictions(page), ablated.next, 'reopened link');
      assert.equal(await page.getAttribute('.ablate-button[data-layer="1"][data-head="0"]', 'aria-pressed'), 'true');
      assert.equal(await page.inputValue('#head'), '2');
    });
  });

  test('390 px, dark: the shipped model, a head read with the keyboard, a sentence typed', async () => {
    const model = await loadModel(INDUCTION);
    const typed = 'the old tree saw a red ball . the old tree saw a red';
    const expected = await model.run(typed, { topK: 10 });
    await withPage(env, { viewport: { width: 390, height: 844 }, hasTouch: true }, async ({ page }) => {
      await page.emulateMedia({ colorScheme: 'dark' });
      await openBuiltin(page);
      await page.locator('.model-head canvas').nth(4).focus();
      await page.keyboard.press('ArrowRight');
      const readout = await page.textContent('.model-view .cm-readout');
      assert.match(readout, /L1H0: “the” \(row 1\) → “cat” \(column 2\)/u);
      assert.match(readout, /masked: a token does not look ahead/u, 'a masked cell reads masked, not weight 0.000');
      await page.screenshot({ path: `${ARTIFACTS}/real-model-390-dark.png`, fullPage: false });
      await page.evaluate(() => document.getElementById('step-model').scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-390-dark-top.png`, fullPage: false });
      const n = await runs(page);
      await page.fill('#model-text', typed);
      await waitForRun(page, n);
      assertPredictions(await readPredictions(page), expected.next, 'typed sentence');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide at 390`);
      await page.locator('#step-model .model-view').screenshot({ path: `${ARTIFACTS}/real-model-view-390-dark.png` });
    });
  });

  test('a folder URL (the shipped model by its address, Range requests): predictions, a head in the steps, the link', async () => {
    const model = await loadModel(INDUCTION);
    const plain = await model.run(SENTENCE, { topK: 10 });
    const [cap] = (await model.run(SENTENCE, { capture: [{ layer: 1, head: 0 }] })).captures;
    const folder = `${env.server.url}models/induction/`;
    let link;
    await withPage(env, {}, async ({ page, problems }) => {
      await openBuiltin(page);
      await page.fill('#model-url', folder);
      const loaded = await runs(page);
      await page.click('#model-url-open');
      await page.waitForFunction((f) => document.getElementById('model-about').textContent.endsWith(f), folder);
      await waitForRun(page, loaded); // the load's own run (its model's line is written before it)
      const n = await runs(page);
      await page.fill('#model-text', SENTENCE);
      await waitForRun(page, n);
      assertPredictions(await readPredictions(page), plain.next, 'by URL');
      // The ranges read are kept in Cache Storage: opening the address again fetches no weights.
      await page.waitForFunction(() =>
        /MB of models read by address/u.test(document.getElementById('model-cache').textContent),
      );
      const fetched = () => problems.requests.filter((u) => u.endsWith('/models/induction/model.safetensors')).length;
      const before = fetched();
      const again = await runs(page);
      await page.click('#model-url-open');
      await waitForRun(page, again);
      assert.equal(fetched(), before, 'the second load reads the weights from the cache');
      await page.click('.head-button[data-layer="1"][data-head="0"]');
      await page.waitForFunction(() =>
        /L1H0 \(layer 1 head 0\) is in the steps/u.test(document.getElementById('model-walk').textContent),
      );
      await settle(page);
      assertShown(await readNumbers(page, 'weights'), cap.weights.toArray(), PRECISION, 'by URL: layer 1 head 0');
      await page.waitForTimeout(300);
      link = await page.evaluate(() => location.href);
      assert.equal(new URL(link).searchParams.get('model'), folder);
      await page.click('#model-cache-clear');
      await page.waitForFunction(() => /Nothing is kept/u.test(document.getElementById('model-cache').textContent));
    });
    await withPage(env, { hash: link.slice(env.server.url.length) }, async ({ page }) => {
      await page.waitForFunction(() =>
        /L1H0 \(layer 1 head 0\) is in the steps/u.test(document.getElementById('model-walk').textContent),
      );
      assert.equal(await page.inputValue('#model-url'), folder);
      assert.match(await page.textContent('#model-status'), /^Ran 16 tokens in \d+ ms/u, 'the status after a link');
      assertPredictions(await readPredictions(page), plain.next, 'by URL, reopened');
    });
  });

  test('a Hub id when the Hub cannot be reached: a plain FETCH_FAILED that says to check the connection; nothing breaks', async () => {
    const session = await openPage(env, {});
    try {
      const { page } = session;
      await openBuiltin(page);
      await page.fill('#model-url', 'openai-community/gpt2');
      await page.press('#model-url', 'Enter');
      await page.waitForFunction(() => document.getElementById('model-error').textContent.length > 0);
      const message = await page.textContent('#model-error');
      assert.match(message, /FETCH_FAILED/u);
      assert.match(message, /Check the connection/u);
      assert.doesNotMatch(message, /Content-Security-Policy|connect-src/u, 'the page’s CSP allows the Hub');
      assert.match(message, /download the files and drop them here/u);
      assert.equal(await page.locator('.model-head canvas').count(), 8, 'the shipped model stays');
      assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
      assert.deepEqual(session.problems.pageErrors, []);
    } finally {
      await session.context.close();
    }
  });

  test('the download shows its progress and Cancel stops it: the page is as it was', async () => {
    let release;
    const held = new Promise((resolve) => (release = resolve));
    const route = (page) =>
      page.route('**/models/induction/model.safetensors', async (r) => {
        await held;
        await r.continue().catch(() => {});
      });
    await withPage(env, { route }, async ({ page }) => {
      await page.evaluate(() => document.getElementById('real-model-button').click());
      await page.waitForSelector('#model-cancel', { state: 'visible' });
      assert.ok(await page.isVisible('#model-progress'));
      assert.match(await page.textContent('#model-status'), /Downloading/u);
      await page.click('#model-cancel');
      release();
      assert.match(await page.textContent('#model-status'), /Cancelled/u);
      assert.equal(await page.isVisible('#model-progress'), false);
      await page.waitForTimeout(500);
      assert.equal(await page.locator('.model-head canvas').count(), 0, 'no model was shown');
      // The shipped model still loads after a Cancel.
      await page.click('#model-builtin');
      await waitForRun(page);
      assert.equal(await page.locator('.model-head canvas').count(), 8);
    });
  });

  test('a head walked, then another example chosen: the link reopens that example, with the head chosen in the model view', async () => {
    let link;
    let sentence;
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await page.click('.head-button[data-layer="1"][data-head="3"]');
      await page.waitForFunction(() =>
        /L1H3 \(layer 1 head 3\) is in the steps/u.test(document.getElementById('model-walk').textContent),
      );
      await chooseExample(page, 'causal');
      sentence = await page.inputValue('#sentence');
      await page.waitForTimeout(300);
      link = await page.evaluate(() => location.href);
      assert.equal(new URL(link).searchParams.get('head'), '3');
    });
    await withPage(env, { hash: link.slice(env.server.url.length) }, async ({ page }) => {
      await page.waitForFunction(() =>
        /was chosen when this link was made/u.test(document.getElementById('model-walk').textContent),
      );
      assert.equal(await page.inputValue('#sentence'), sentence, 'the example stays in the steps');
      assert.equal(await page.getAttribute('.head-button[data-layer="1"][data-head="3"]', 'aria-pressed'), 'true');
    });
  });
});
