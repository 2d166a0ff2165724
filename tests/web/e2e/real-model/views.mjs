// Page test (run by run.mjs): the real model's one-layer views (web/src/real-model/tools/layer/layerViews.js) on the shipped induction
// model: the head view draws the chosen layer's weights as attention-wasm/model computes them in Node, follows the
// layer of the head opened in the model view, and the block around attention shows that layer's own numbers when
// opened; at 1280 and 390 px, light and dark (screenshots in tests/artifacts). Nothing is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { drawnCount, expectedOpacities, opacitiesOf, readLines } from '../headViewReader.mjs';
import { ARTIFACTS, ROOT, settle, withPage } from '../helpers.mjs';
import { env } from '../session.mjs';

const INDUCTION = `${ROOT}web/public/models/induction`;
const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';
const VIEWS = '.model-views';

async function openBuiltin(page) {
  await page.evaluate(() => document.getElementById('real-model-button').click());
  await page.waitForFunction(() => Number(document.body.dataset.modelRuns ?? 0) > 0, null, { timeout: 60000 });
  await page.waitForSelector(`${VIEWS} .head-view-lines line`);
}

describe('real model: the head view and the block around attention', () => {
  test('the head view is the chosen layer’s weights, follows an opened head, and the block shows its numbers', async () => {
    const model = await loadModel(INDUCTION);
    const plain = await model.run(SENTENCE, { capture: [{ layer: 1, head: 0 }] });
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      assert.equal(await page.inputValue('#model-views-layer'), '0', 'layer 0 at first');
      const first = plain.attentions[0];
      assert.equal((await readLines(page, VIEWS)).length, drawnCount(first.data));
      // a head of layer 1 opened in the model view: the head view shows layer 1
      await page.click('.head-button[data-layer="1"][data-head="1"]');
      await page.waitForFunction(() => document.body.dataset.modelViewsLayer === '1');
      assert.equal(await page.inputValue('#model-views-layer'), '1');
      await settle(page); // away from the screen, the head view draws in idle time (as a large grid)
      const second = plain.attentions[1];
      const n = plain.ids.length;
      await page.hover(`${VIEWS} .head-view-tokens.left li:nth-child(${n}) button`);
      const lines = await readLines(page, VIEWS);
      assert.deepEqual(
        opacitiesOf(lines),
        expectedOpacities(second.data, second.shape, { side: 'left', token: n - 1 }),
        'the last token’s lines in layer 1',
      );
      // the block: opened on demand, the layer's own numbers
      await page.click(`${VIEWS} .model-block > summary`);
      await page.waitForFunction(() => document.body.dataset.modelBlockLayer === '1');
      await page.click(`${VIEWS} .block-view-tensor[data-key="mlpOutput"] summary`);
      const cells = await page.$$eval(
        `${VIEWS} .block-view-tensor[data-key="mlpOutput"] tbody tr:nth-child(3) td`,
        (tds) => tds.slice(0, 8).map((td) => Number(td.textContent)),
      );
      const { data, shape } = plain.captures[0].mlpOutput;
      cells.forEach((shown, c) => {
        const expected = data[2 * shape[1] + c];
        assert.ok(Math.abs(shown - expected) <= 6e-4, `mlpOutput[2][${c}]: ${shown} against ${expected}`);
      });
      assert.equal(await page.locator(`${VIEWS} .block-view-bar`).count(), 4, 'embeddings, 2 layers, the final norm');
      await page.locator(VIEWS).screenshot({ path: `${ARTIFACTS}/real-model-views-1280-light.png` });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.locator(VIEWS).screenshot({ path: `${ARTIFACTS}/real-model-views-1280-dark.png` });
    });
  });

  test('the residual stream’s chart labels each bar as what it is: the last after the final norm, the layers’ own outputs', async () => {
    const model = await loadModel(INDUCTION);
    // model.run with logits: the last hidden state is after the final norm (ln_f); the capture's `hidden` is layer
    // 1's own output, before it.
    const run = await model.run(SENTENCE, { capture: [{ layer: 1, head: 0 }] });
    const mean = ({ data, shape: [n, d] }) => {
      let total = 0;
      for (let i = 0; i < n; i++) total += Math.hypot(...data.subarray(i * d, (i + 1) * d));
      return total / n;
    };
    const bars = (page) =>
      page.$$eval(`${VIEWS} .block-view-svg g[data-what]`, (groups) =>
        groups.map((g) => ({ what: g.dataset.what, norm: Number(g.dataset.norm), label: g.textContent })),
      );
    const check = (shown, expected) => {
      assert.deepEqual(
        shown.map((b) => b.what),
        expected.map(([what]) => what),
      );
      shown.forEach((b, k) =>
        assert.ok(Math.abs(b.norm - expected[k][1]) < 1e-3, `${b.what}: ${b.norm} against ${expected[k][1]}`),
      );
    };
    const [emb, out0, normed] = run.hiddenStates.map(mean);
    const final = "after the final norm: layer 1's output normed, as the LM head reads it";
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await page.click(`${VIEWS} .model-block > summary`);
      await page.waitForFunction(() => document.body.dataset.modelBlockLayer === '0');
      check(await bars(page), [
        ["the embeddings (layer 0's input)", emb],
        ["layer 0's output", out0],
        [final, normed],
      ]);
      await page.selectOption('#model-views-layer', { value: '1' });
      await page.waitForFunction(() => document.body.dataset.modelBlockLayer === '1');
      const last = await bars(page);
      check(last, [
        ["the embeddings (layer 0's input)", emb],
        ["layer 0's output", out0],
        ["layer 1's output", mean(run.captures[0].hidden)],
        [final, normed],
      ]);
      assert.ok(mean(run.captures[0].hidden) > 2 * normed, 'the final norm makes it smaller (32.9 against 13.0)');
      assert.ok(
        last.every((b) => b.label.startsWith(`${b.what}: `)),
        'each bar’s tooltip names it',
      );
      assert.match(await page.textContent(`${VIEWS} .block-view-note`), /“final” is after the final norm/u);
      await page.locator(`${VIEWS} .block-view-chart`).screenshot({ path: `${ARTIFACTS}/real-model-norms.png` });
    });
  });

  test('a head opened in the steps: its heatmaps are drawn by the CPU (not a composited layer each)', async () => {
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await page.click('.head-button[data-layer="1"][data-head="1"]');
      await page.waitForFunction(() => /L1H1 \(layer 1 head 1\) is in the steps/u.test(document.body.textContent));
      await settle(page); // every grid drawn, near the screen or not
      const walk = ['model', 'x', 'qkv', 'scores', 'scale', 'mask', 'softmax', 'output', 'heads'];
      const selector = walk.map((id) => `#step-${id} canvas`).join(', ');
      const canvases = await page.$$eval(`${selector}, ${VIEWS} canvas`, (list) =>
        list.map((canvas) => ({
          kind: canvas.className,
          where: canvas.closest('[id]')?.id,
          drawn: canvas.getClientRects().length > 0, // shown
          cpu: canvas.getClientRects().length > 0 && canvas.getContext('2d').getContextAttributes().willReadFrequently,
        })),
      );
      const drawn = canvases.filter((c) => c.drawn);
      assert.ok(
        drawn.some((c) => c.kind === 'cm-canvas'),
        'the walk shows large matrices as heatmaps',
      );
      assert.ok(
        drawn.some((c) => c.kind === 'heatmap-canvas'),
        'and attention weights as heatmaps',
      );
      assert.deepEqual(
        drawn.filter((c) => !c.cpu),
        [],
        'every canvas shown in the walk and the views has a CPU context',
      );
    });
  });

  test('390 px: the views fit the screen and the tokens take a tap; light and dark', async () => {
    await withPage(env, { viewport: { width: 390, height: 844 }, hasTouch: true }, async ({ page }) => {
      await openBuiltin(page);
      await page.tap(`${VIEWS} .head-view-tokens.right li:nth-child(2) button`);
      assert.equal(
        await page.getAttribute(`${VIEWS} .head-view-tokens.right li:nth-child(2) button`, 'aria-pressed'),
        'true',
      );
      assert.match(await page.textContent(`${VIEWS} .head-view-readout`), /is attended to most by/);
      await page.click(`${VIEWS} .model-block > summary`);
      await page.waitForFunction(() => document.body.dataset.modelBlockLayer === '0');
      await page.click(`${VIEWS} .block-view-tensor[data-key="x"] summary`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide at 390`);
      for (const scheme of ['light', 'dark']) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.locator(VIEWS).screenshot({ path: `${ARTIFACTS}/real-model-views-390-${scheme}.png` });
      }
    });
  });
});
