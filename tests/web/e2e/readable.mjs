// Page tests (run by run.mjs): what a student reading by keyboard, phone or screen reader meets in the steps
// (issue 27): a large heatmap's block of numbers opens and closes without an error, every heatmap has token labels
// and a keyboard readout, the examples bring their lesson into view.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ARTIFACTS,
  afterChange,
  assertShown,
  readInputs,
  readNumbers,
  scrollSteady,
  settle,
  showLesson,
  withPage,
} from './helpers.mjs';
import { attention64 } from './reference64.mjs';
import { PRECISION, env } from './session.mjs';

const WORDS = Array.from({ length: 64 }, (_, i) => `w${i}`).join('+');

/** Two animation frames: what a ResizeObserver needs to report a box that changed. */
const frames = (page) =>
  page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

describe('readable heatmaps', () => {
  test("closing a large heatmap's block of numbers (Escape, or Hide the numbers) throws nothing", async () => {
    await withPage(env, { hash: `#s=${WORDS}&n=64&dm=64&dk=8&dv=8&h=12` }, async ({ page, problems }) => {
      const canvas = '[data-matrix="weights"] .cm-canvas';
      const zoomCells = '[data-matrix="weights-zoom"] .c';
      await scrollSteady(page, canvas);
      await page.focus(canvas);
      await page.keyboard.press('Enter');
      await page.waitForSelector(zoomCells);
      await page.keyboard.press('Escape');
      await page.waitForSelector(zoomCells, { state: 'detached' });
      await frames(page);
      assert.deepEqual(problems.pageErrors, [], 'Escape');
      await page.click(canvas, { position: { x: 5, y: 5 } });
      await page.waitForSelector(zoomCells);
      await page.click('[data-matrix="weights"] .cm-close');
      await page.waitForSelector(zoomCells, { state: 'detached' });
      await frames(page);
      assert.deepEqual(problems.pageErrors, [], 'Hide the numbers');
      // The readout still reads the heatmap after the block closed, and a new block opens.
      await page.focus(canvas);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.waitForSelector(zoomCells);
      await settle(page);
      assert.equal(await page.locator(zoomCells).count(), 16 * 16);
    });
  });
});

/**
 * Waits until the step's top stays at the top of the screen (below its scroll margin); returns how far it is from
 * there, what holds the focus and whether the settings are open.
 */
async function landed(page, id) {
  const where = () =>
    page.evaluate((sectionId) => {
      const section = document.getElementById(sectionId);
      const margin = parseFloat(getComputedStyle(section).scrollMarginTop);
      return {
        top: Math.round(section.getBoundingClientRect().top - margin) + 0, // not -0
        focused: document.activeElement.id,
        settings: document.getElementById('settings-toggle').getAttribute('aria-expanded'),
      };
    }, id);
  for (let tries = 0; tries < 50 && Math.abs((await where()).top) > 1; tries++) await frames(page);
  await frames(page);
  return where();
}

describe('examples take you to their lesson', () => {
  test('on a phone, "KV cache" folds the settings and brings step 11 to the top, its heading focused', async () => {
    await withPage(env, { viewport: { width: 390, height: 844 } }, async ({ page }) => {
      assert.equal(await page.getAttribute('#settings-toggle', 'aria-expanded'), 'true');
      await afterChange(page, () => page.click('button[data-example="kv"]'));
      assert.deepEqual(await landed(page, 'step-kv'), { top: 0, focused: 'h-kv', settings: 'false' });
      await page.screenshot({ path: `${ARTIFACTS}/example-lesson-kv-390.png` });
    });
  });

  test('at 1280 px each lesson example brings its step into view; the others stay; "Go to step" comes back', async () => {
    await withPage(env, { viewport: { width: 1280, height: 800 } }, async ({ page }) => {
      for (const [example, id] of [
        ['gqa', 'step-gqa'],
        ['gemma', 'step-softcap'],
        ['order', 'step-order'],
        ['heads', 'step-heads'],
      ]) {
        await page.evaluate(() => window.scrollTo(0, 0));
        await afterChange(page, () => page.click(`button[data-example="${example}"]`));
        const at = await landed(page, id);
        assert.equal(at.top, 0, example);
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      await afterChange(page, () => page.click('button[data-example="sentence"]'));
      await frames(page);
      assert.equal(await page.evaluate(() => window.scrollY), 0, 'an example without a lesson stays');
      assert.equal(await page.isVisible('#example-lesson'), false);
      await afterChange(page, () => page.click('button[data-example="kv"]'));
      await landed(page, 'step-kv');
      await page.evaluate(() => window.scrollTo(0, 0));
      assert.equal(await page.textContent('#example-lesson'), 'Go to step 11 ↓');
      await page.click('#example-lesson');
      assert.equal((await landed(page, 'step-kv')).top, 0);
    });
  });
});

/**
 * The small heatmaps in `selector`: whether each is a labelled tab stop, and whether it draws token labels (its
 * top-left corner is the labels' empty margin, not a cell, and the strip left of the cells holds dark text).
 */
const smallHeatmaps = (page, selector) =>
  page.$$eval(selector, (canvases) =>
    canvases.map((canvas) => {
      const copy = document.createElement('canvas');
      copy.width = canvas.width;
      copy.height = canvas.height;
      const ctx = copy.getContext('2d', { willReadFrequently: true });
      ctx.drawImage(canvas, 0, 0);
      const strip = ctx.getImageData(0, 0, Math.floor(canvas.width * 0.15), canvas.height).data;
      let ink = 0;
      for (let k = 0; k < strip.length; k += 4) {
        const [r, g, b, a] = strip.slice(k, k + 4);
        if (a > 200 && r < 90 && Math.abs(r - g) < 12 && Math.abs(g - b) < 12) ink++;
      }
      return {
        tabIndex: canvas.tabIndex,
        label: canvas.getAttribute('aria-label') ?? '',
        cornerEmpty: ctx.getImageData(2, 2, 1, 1).data[3] === 0,
        ink,
      };
    }),
  );

/** The readout's lines for the focused heatmap after `keys`. */
async function readWithKeys(page, canvas, readout, keys) {
  await scrollSteady(page, canvas);
  await page.focus(canvas);
  for (const key of keys) await page.keyboard.press(key);
  return page.$$eval(`${readout} span`, (spans) => spans.map((span) => span.textContent));
}

describe('every heatmap has token labels and a keyboard readout', () => {
  test("step 8's heads and their average: labels, a tab stop each, a readout naming the head and the weight", async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="heads"]'));
      const inputs = await readInputs(page);
      const maps = await smallHeatmaps(page, '#mount-heads .heatmap-canvas');
      assert.equal(maps.length, 5);
      for (const [k, map] of maps.entries()) {
        assert.equal(map.tabIndex, 0, `heatmap ${k + 1} is a tab stop`);
        assert.match(map.label, /(Head \d|Average of the heads).*5 by 5.*Arrow keys/u);
        assert.ok(map.cornerEmpty && map.ink > 20, `heatmap ${k + 1} draws token labels: ${JSON.stringify(map)}`);
      }
      const want = attention64({ ...inputs, numHeads: 4 });
      const lines = await readWithKeys(
        page,
        '#mount-heads figure:nth-child(2) .heatmap-canvas',
        '#step-heads .cm-readout',
        ['ArrowDown', 'ArrowRight', 'ArrowRight'],
      );
      assert.equal(lines[0], 'head 1: query “flies” → key “like”');
      assert.equal(lines[1], `weight ${want.weights[1][1][2].toFixed(PRECISION)}`);
    });
  });

  test('on a dark screen a readout is light text on a dark panel', async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.emulateMedia({ colorScheme: 'dark' });
      await afterChange(page, () => page.click('button[data-example="heads"]'));
      await readWithKeys(page, '#mount-heads figure:nth-child(1) .heatmap-canvas', '#step-heads .cm-readout', ['End']);
      const contrast = await page.$eval('#step-heads .cm-readout', (node) => {
        const luminance = (css) => {
          const [r, g, b] = css
            .match(/\d+(\.\d+)?/g)
            .slice(0, 3)
            .map((v) => Number(v) / 255)
            .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const style = getComputedStyle(node);
        const [a, b] = [luminance(style.color), luminance(style.backgroundColor)].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05);
      });
      assert.ok(contrast >= 4.5, `the readout's contrast is ${contrast.toFixed(2)}`);
    });
  });

  test("step 13's query heads: labels, a tab stop each, and the grouped weights as numbers", async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="gqa"]'));
      const inputs = await readInputs(page);
      await afterChange(page, () => page.selectOption('#head', '2'));
      await showLesson(page, 'step-gqa');
      const columns = (m, width) => m.map((row) => row.slice(0, width));
      const want = attention64({ ...inputs, wk: columns(inputs.wk, 8), wv: columns(inputs.wv, 8), numKvHeads: 2 });
      const maps = await smallHeatmaps(page, '#mount-gqa-heads canvas');
      assert.equal(maps.length, 4);
      for (const [k, map] of maps.entries()) {
        assert.equal(map.tabIndex, 0, `query head ${k} is a tab stop`);
        assert.ok(map.cornerEmpty && map.ink > 20, `query head ${k} draws token labels: ${JSON.stringify(map)}`);
      }
      // The head shown in the steps (3, of kv group 2) as numbers: grouped-query attention's, not multi-head's.
      assertShown(await readNumbers(page, 'gqaWeights'), want.weights[2], PRECISION, 'grouped weights of head 2');
      const lines = await readWithKeys(page, '#mount-gqa-heads figure:nth-child(4) canvas', '#mount-gqa .cm-readout', [
        'End',
        'ArrowDown',
      ]);
      assert.equal(lines[0], 'head 3 · K, V 1: query “flies” → key “arrow”');
      assert.equal(lines[1], `weight ${want.weights[3][1][4].toFixed(PRECISION)}`);
      await page.locator('#step-gqa').screenshot({ path: `${ARTIFACTS}/gqa-readable-1280.png` });
    });
  });

  test('the designed heads and cross-attention heatmaps read by keyboard too', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="designed"]'));
      let lines = await readWithKeys(
        page,
        '#mount-designed .designed-card:first-child canvas',
        '#mount-designed .designed-card:first-child .cm-readout',
        ['ArrowDown'],
      );
      assert.match(lines[0], /^query “cat” → key “the”/);
      await afterChange(page, () => page.click('button[data-example="cross"]'));
      await showLesson(page, 'step-cross');
      lines = await readWithKeys(page, '#mount-cross canvas', '#mount-cross .cm-readout', ['ArrowRight']);
      assert.match(lines[0], /^query “the” → key “chat”/);
    });
  });
});
