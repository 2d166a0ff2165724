// Page tests (run by run.mjs): step 15, softcapping and sliding windows, opened by its permalink. The weights and
// scores shown are checked against the library in Node on the inputs the page shows; the sliders move them; the
// example's button opens it; screenshots at 1280 and 390 px in light and dark.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ARTIFACTS, afterChange, assertShown, chooseExample, readNumbers, showLesson, withPage } from './helpers.mjs';
import { EXAMPLES } from '../../../web/src/shared/examples.js';
import { encodeState } from '../../../web/src/shared/link.js';
import { PRECISION, env, libraryResult, toRows } from './session.mjs';
import { gemmaFixture } from '../../js/model/fixtures-gemma.js';
import { dropAsFiles, waitForRun } from './real-model/helpers.mjs';
import { loadModel } from '../../../src/js/model/index.node.js';

const gemma = () => EXAMPLES.find((e) => e.id === 'gemma').state();

/** What step 15 shows for w and c, computed by the library in Node on the page's inputs. */
async function checkShown(page, { w, c }) {
  const steps = { causal: true, returnSteps: true };
  const global = await libraryResult(page, steps);
  const sliding = await libraryResult(page, { ...steps, window: w });
  const capped = await libraryResult(page, { ...steps, softcap: c });
  assertShown(await readNumbers(page, 'swGlobal'), toRows(global.weights), PRECISION, 'global weights');
  assertShown(await readNumbers(page, 'swSliding'), toRows(sliding.weights), PRECISION, `sliding weights, w = ${w}`);
  assertShown(await readNumbers(page, 'capScaled'), toRows(global.scaledScores), PRECISION, 'scaled scores');
  assertShown(await readNumbers(page, 'capScores'), toRows(capped.scores), PRECISION, `capped scores, c = ${c}`);
  assertShown(await readNumbers(page, 'capAfter'), toRows(capped.weights), PRECISION, `capped weights, c = ${c}`);
  const shown = (await readNumbers(page, 'capScores')).flat().filter((v) => v !== -Infinity);
  assert.ok(
    shown.every((v) => Math.abs(v) <= c),
    `every capped score shown is within (−${c}, ${c}): ${shown}`,
  );
  return { global, sliding, capped };
}

const setSlider = (page, id, value) =>
  afterChange(page, () =>
    page.evaluate(
      ([sliderId, v]) => {
        const input = document.getElementById(sliderId);
        input.value = String(v);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      },
      [id, value],
    ),
  );

describe('lesson: softcapping and sliding windows', () => {
  test('its permalink opens w and c; the numbers shown are the library’s; the sliders move them', async () => {
    const link = `#${encodeState({ ...gemma(), slidingWindow: 2, softcap: 1.5 })}`;
    assert.match(link, /&win=2&cap=1\.5(&|$)/u);
    await withPage(env, { hash: link }, async ({ page }) => {
      await showLesson(page, 'step-softcap');
      assert.match(await page.textContent('#step-softcap .step-number'), /^15$/u);
      assert.equal(await page.inputValue('#sliding-window'), '2');
      assert.equal(await page.inputValue('#softcap'), '1.5');
      const { global, capped } = await checkShown(page, { w: 2, c: 1.5 });
      // “fox” (row 5) sees “a” and itself only: its first four keys had this much of its weight.
      const lost = toRows(global.weights)[5]
        .slice(0, 4)
        .reduce((a, b) => a + b, 0);
      const text = await page.textContent('#window-text');
      assert.match(text, /computes 11 scores where the global one computes 21/u);
      assert.ok(text.includes(`had ${lost.toFixed(3)} of its weight`), text);
      const top = toRows(capped.weights)[3][2];
      assert.ok((await page.textContent('#softcap-text')).includes(`capped, it gives ${top.toFixed(3)}`));
      assert.equal(await page.isHidden('#softcap-model'), true, 'no real model open: no note about one');

      await setSlider(page, 'sliding-window', 4);
      await setSlider(page, 'softcap', 0.5);
      await showLesson(page, 'step-softcap');
      await checkShown(page, { w: 4, c: 0.5 });
      await page.click('#copy-link');
      assert.match(new URL(page.url()).hash, /&win=4&cap=0\.5(&|$)/u);
    });
  });

  test('the example’s button opens it: causal, w = 3, c = 1', async () => {
    await withPage(env, {}, async ({ page }) => {
      await chooseExample(page, 'gemma');
      await showLesson(page, 'step-softcap');
      await checkShown(page, { w: 3, c: 1 });
      assert.match(
        await page.textContent('#softcap-text'),
        /The largest scaled score, 3\.902 \(“time” → “a”, query 3 and key 2\), becomes 0\.999/u,
      );
    });
  });

  test('with a tiny Gemma 2 checkpoint open in the Real model section, it names its sliding layer and its cap', async () => {
    const fixture = gemmaFixture({ version: 2, layers: 4, window: 3, softcap: 1.5 });
    await withPage(env, {}, async ({ page }) => {
      await page.evaluate(() => document.getElementById('real-model-button').click());
      await waitForRun(page); // the shipped GPT-2 first: it neither slides nor caps
      await showLesson(page, 'step-softcap');
      assert.match(
        await page.textContent('#softcap-model'),
        /^The open model, the page’s trained GPT-2 \(gpt2\): none of its \d+ layers slides: each sees every earlier token; its attention scores are not capped\.$/u,
      );
      await dropAsFiles(page, fixture.files);
      await page.waitForFunction(() => document.getElementById('softcap-model').textContent.includes('gemma2'));
      assert.equal(
        await page.textContent('#softcap-model'),
        'The open model, the model of your files (gemma2): layers 0, 2 slide (w = 3) and layers 1, 3 are global, of 4; its attention scores are capped at c = 1.5.',
      );
      // Its layers 0 (sliding) and 1 (global), head 0, on its sentence: model.run's attentions, here in Node.
      await page.waitForFunction(() => !document.querySelector('[data-matrix="modelSliding"]').closest('[hidden]'));
      await showLesson(page, 'step-softcap');
      const ids = await page.$$eval('.model-tokens li', (items) => items.map((li) => Number(li.dataset.id)));
      const model = await loadModel(fixture.files);
      const r = await model.run({ ids });
      const head0 = (tensor) => tensor.toArray()[0];
      const sliding = await readNumbers(page, 'modelSliding');
      assertShown(sliding, head0(r.attentions[0]), PRECISION, 'gemma2 layer 0 head 0 (sliding)');
      assertShown(await readNumbers(page, 'modelGlobal'), head0(r.attentions[1]), PRECISION, 'layer 1 head 0 (global)');
      assert.ok(ids.length > 3, `a sentence longer than the window: ${ids}`);
      assert.equal(sliding[ids.length - 1][0], 0, 'the last token does not see the first in the sliding layer');
      assert.ok(head0(r.attentions[1])[ids.length - 1][0] > 0, 'it does in the global layer');
      await page.mouse.move(0, 0);
      await page.locator('#step-softcap').screenshot({ path: `${ARTIFACTS}/lesson-softcap-gemma2.png` });
      model.dispose();
    });
  });

  for (const scheme of ['light', 'dark']) {
    for (const width of [1280, 390]) {
      test(`at ${width} px, ${scheme}: no sideways page scroll; screenshot`, async () => {
        await withPage(env, { viewport: { width, height: 900 } }, async ({ page }) => {
          await page.emulateMedia({ colorScheme: scheme });
          await chooseExample(page, 'gemma');
          await showLesson(page, 'step-softcap');
          await page.mouse.move(0, 0);
          const { scrollWidth, clientWidth } = await page.evaluate(() => ({
            scrollWidth: document.documentElement.scrollWidth,
            clientWidth: document.documentElement.clientWidth,
          }));
          assert.ok(scrollWidth <= clientWidth, `page scrolls sideways (${scrollWidth} > ${clientWidth})`);
          await page
            .locator('#step-softcap')
            .screenshot({ path: `${ARTIFACTS}/lesson-softcap-${width}-${scheme}.png` });
        });
      });
    }
  }
});
