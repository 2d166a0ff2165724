// Page test (run by run.mjs): for an instructor preparing a lecture on the shipped induction model. Generation runs
// with the heads switched off in the model view (model.generate's `ablate`), step by step as model.generate() gives
// them in Node with the same heads off; switching a head on again starts it over. Each part of the real-model
// section has a link that opens the page at it (`section=`), with the model, sentence and heads: a click copies it,
// and the page opened from it shows that part at the top with its heading focused; a part it lacks is said.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { ARTIFACTS, withPage } from '../helpers.mjs';
import { INDUCTION, INDUCTION_HEADS, SENTENCE, openBuiltin, runs, waitForRun } from './helpers.mjs';
import { env } from '../session.mjs';

/** model.generate()'s token ids in Node. */
async function generated(model, options) {
  const ids = [];
  for await (const step of model.generate(SENTENCE, { maxNewTokens: 8, ...options })) ids.push(step.id);
  return ids;
}

const shownIds = (page) => page.$$eval('.gen-tokens li', (items) => items.map((li) => Number(li.dataset.id)));

async function switchOff(page, heads) {
  for (const [layer, head] of heads) {
    const n = await runs(page);
    await page.click(`.ablate-button[data-layer="${layer}"][data-head="${head}"]`);
    await waitForRun(page, n);
  }
}

describe('real model: for an instructor', () => {
  test('Generate with the induction heads switched off: the tokens of model.generate with the same ablate', async () => {
    const model = await loadModel(INDUCTION);
    const off = await generated(model, { ablate: INDUCTION_HEADS });
    const on = await generated(model, {});
    assert.notDeepEqual(off, on, 'switching the induction heads off changes what the model generates');
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await switchOff(page, INDUCTION_HEADS);
      await page.click('#gen-run');
      await page.waitForFunction(() => Number(document.body.dataset.genSteps ?? 0) >= 8, null, { timeout: 60000 });
      assert.deepEqual(await shownIds(page), off);
      assert.match(await page.textContent('#gen-status'), /with L1H0, L1H1, L1H2, L1H3 switched off/u);
      await page.locator('#model-generate').screenshot({ path: `${ARTIFACTS}/real-model-generate-ablated.png` });
      // A head switched on again: the generation starts over, with every head on from then.
      await switchOff(page, [[1, 0]]);
      assert.match(await page.textContent('#gen-status'), /heads switched off changed/u);
      assert.equal((await shownIds(page)).length, 0);
      await switchOff(page, INDUCTION_HEADS.slice(1));
      await page.click('#gen-run');
      await page.waitForFunction(
        (n) =>
          document.querySelectorAll('.gen-tokens li').length >= n &&
          /every head on/u.test(document.getElementById('gen-status').textContent),
        8,
        { timeout: 60000 },
      );
      assert.deepEqual(await shownIds(page), on);
    });
  });

  test('a link to a part: copied from its heading, it opens the page there with the model, sentence and heads', async () => {
    let href;
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await switchOff(page, INDUCTION_HEADS);
      await page.waitForFunction(() => {
        const link = new URL(document.querySelector('[data-section="generate"]').href);
        return link.searchParams.get('section') === 'generate' && link.searchParams.get('ablate')?.length === 15;
      });
      await page.click('#model-generate-title .part-link');
      await page.waitForFunction(() =>
        /Link copied/u.test(document.querySelector('#model-generate-title .part-link-said').textContent),
      );
      href = await page.evaluate(() => navigator.clipboard.readText());
      const url = new URL(href);
      assert.equal(url.searchParams.get('section'), 'generate');
      assert.equal(url.searchParams.get('model'), 'builtin');
      assert.equal(url.searchParams.get('ablate'), '1.0,1.1,1.2,1.3');
    });
    const link = href.slice(env.server.url.length);
    await withPage(env, { hash: link, viewport: { width: 1024, height: 768 } }, async ({ page }) => {
      await waitForRun(page);
      await page.waitForFunction(() => document.activeElement?.id === 'model-generate-title');
      const top = await page.evaluate(
        () => document.getElementById('model-generate-title').getBoundingClientRect().top,
      );
      assert.ok(top > -2 && top < 100, `the part is at the top of the screen (${top} px)`);
      assert.equal(await page.getAttribute('.ablate-button[data-layer="1"][data-head="2"]', 'aria-pressed'), 'true');
      await page.screenshot({ path: `${ARTIFACTS}/real-model-link-to-generate.png` });
    });
    await withPage(env, { hash: '?model=builtin&section=nowhere' }, async ({ page }) => {
      await waitForRun(page);
      await page.waitForFunction(() => /section=nowhere/u.test(document.getElementById('model-link-note').textContent));
      assert.match(
        await page.textContent('#model-link-note'),
        /section=nowhere is not a part of the real-model section \(tokens, next, heads, investigate, generate, layer\)/u,
      );
    });
  });
});
