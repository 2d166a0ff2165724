// Page tests (run by run.mjs, or alone: node --test tests/web/e2e/views.mjs): the head view and the block view on a
// tiny checkpoint of each family, run by attention-wasm/model in Chromium under the page's CSP (views-harness/).
// The lines drawn are the layer's weights, hover, keyboard and the head buttons pick them, the block's numbers are
// the capture's, and both read at 1280 and 390 px, light and dark (screenshots in tests/artifacts). Nothing is timed.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { launchChromium } from '../../chromium.mjs';
import { serveStatic } from '../../serve-static.mjs';
import { drawnCount, expectedOpacities, opacitiesOf, readLines } from './headViewReader.mjs';
import { ARTIFACTS, ROOT, pageCsp } from './helpers.mjs';

let server;
let browser;

before(async () => {
  const csp = pageCsp(readFileSync(`${ROOT}web/index.html`, 'utf8'));
  server = await serveStatic(ROOT, { headers: { 'Content-Security-Policy': csp } });
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

async function withHarness({ family = 'gpt2', layer = 1, width = 1280, colorScheme = 'light' }, use) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => ['error', 'warning'].includes(m.type()) && problems.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (error) => problems.push(`exception: ${error.message}`));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP: ${e.violatedDirective}`));
    });
    await page.goto(`${server.url}tests/web/e2e/views-harness/index.html?family=${family}&layer=${layer}`);
    await page.waitForFunction(() => document.body.dataset.ready === 'true');
    const data = await page.evaluate(() => window.harness);
    await use(page, data);
    assert.deepEqual(problems, [], 'the page logged no error, threw nothing and broke no CSP rule');
  } finally {
    await context.close();
  }
}

describe('head view', () => {
  for (const family of ['gpt2', 'llama', 'bert']) {
    test(`${family}: the lines are the layer's weights; hover, keys and head buttons choose them`, async () => {
      await withHarness({ family }, async (page, data) => {
        const [H, n] = data.shape;
        assert.equal(await page.locator('.head-view-head[aria-pressed="true"]').count(), H, 'every head at first');
        const all = drawnCount(data.weights);
        assert.equal((await readLines(page)).length, all, 'a line per weight over the threshold');
        // hover query 3: only its lines, their opacities its weights
        await page.hover('.head-view-tokens.left li:nth-child(4) button');
        let lines = await readLines(page);
        assert.ok(lines.every((l) => l.y1 === 3.5 * 26));
        assert.deepEqual(opacitiesOf(lines), expectedOpacities(data.weights, data.shape, { side: 'left', token: 3 }));
        // keyboard: each column is one Tab stop; down twice from key 0, Enter pins key 2, which stays when the
        // pointer leaves
        const focused = () =>
          page.evaluate(() => `${document.activeElement.dataset.side}${document.activeElement.dataset.token}`);
        await page.focus(`.head-view-head[data-head="${H - 1}"]`);
        await page.keyboard.press('Tab');
        assert.equal(await focused(), 'left0');
        await page.keyboard.press('Tab');
        assert.equal(await focused(), 'right0', 'the next Tab stop is the other column');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('Enter');
        await page.mouse.move(0, 0);
        lines = await readLines(page);
        assert.ok(lines.length > 0 && lines.every((l) => l.y2 === 2.5 * 26), 'the lines into key 2');
        assert.deepEqual(opacitiesOf(lines), expectedOpacities(data.weights, data.shape, { side: 'right', token: 2 }));
        assert.match(await page.textContent('.head-view-readout'), /‘sat’ is attended to most by ‘.+’ \d\.\d\d/);
        await page.keyboard.press('Escape');
        await page.locator('.head-view-heads').hover();
        assert.equal((await readLines(page)).length, all, 'Escape lets go');
        // the head buttons: none, then head 2 alone
        await page.click('.head-view-all');
        assert.equal((await readLines(page)).length, 0);
        assert.match(await page.textContent('.head-view-readout'), /No head is shown/);
        await page.click('.head-view-head[data-head="1"]');
        lines = await readLines(page);
        const colour = await page.$eval('.head-view-head[data-head="1"] .head-view-swatch', (s) => s.style.background);
        assert.ok(lines.length > 0 && new Set(lines.map((l) => l.stroke)).size === 1);
        const headOnly = drawnCount(data.weights.slice(n * n, 2 * n * n));
        assert.equal(lines.length, headOnly, `head 2's lines only (${colour})`);
      });
    });
  }
});

describe('block view', () => {
  for (const [family, steps] of [
    ['gpt2', ['input', 'x', 'output', 'residual', 'mlpInput', 'mlpHidden', 'mlpOutput', 'hidden']],
    ['bert', ['input', 'output', 'residual', 'mlpInput', 'mlpHidden', 'mlpOutput', 'hidden']],
  ]) {
    test(`${family}: the layer's steps in order with their sizes, numbers on demand, the residual norms`, async () => {
      await withHarness({ family, layer: 1 }, async (page, data) => {
        const keys = await page.$$eval('.block-view-tensor', (ds) => ds.map((d) => d.dataset.key));
        assert.deepEqual(keys, steps);
        for (const key of steps) {
          const { shape } = data.capture[key];
          const text = await page.textContent(`.block-view-tensor[data-key="${key}"] .block-view-shape`);
          assert.equal(text, `[${shape.join(' × ')}]`, key);
        }
        assert.equal(await page.locator('.block-view-numbers').count(), 0, 'no numbers until asked');
        for (const key of ['mlpHidden', 'hidden']) {
          await page.click(`.block-view-tensor[data-key="${key}"] summary`);
          await page.waitForSelector(`.block-view-tensor[data-key="${key}"] tbody`); // made on the toggle event
          const row = await page.$$eval(`.block-view-tensor[data-key="${key}"] tbody tr:nth-child(2) td`, (tds) =>
            tds.map((td) => td.textContent),
          );
          const { data: values, shape } = data.capture[key];
          const shown = Math.min(8, shape[1]);
          const expected = values
            .slice(shape[1], shape[1] + shown)
            .map((v) => v.toFixed(3).replace(/^-(0\.0+)$/, '$1'));
          assert.deepEqual(row.slice(0, shown), expected, `${key}: token 2's first columns`);
        }
        assert.equal(await page.locator('.block-view-bar').count(), data.layers + 1);
        assert.equal(await page.locator('.block-view-bar.current').count(), 2);
      });
    });
  }
});

describe('both views on a phone and a desktop, light and dark', () => {
  for (const width of [1280, 390]) {
    for (const colorScheme of ['light', 'dark']) {
      test(`${width} px, ${colorScheme}: nothing wider than the screen; screenshot`, async () => {
        await withHarness({ family: 'llama', width, colorScheme }, async (page) => {
          const tap = await page.$eval('.head-view-token', (b) => b.getBoundingClientRect().height);
          assert.ok(tap >= 24, 'tokens are tall enough to tap');
          await page.click('.head-view-tokens.left li:nth-child(5) button');
          await page.click('.block-view-tensor[data-key="x"] summary');
          await page.waitForSelector('.block-view-tensor[data-key="x"] tbody');
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
          assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
          const path = `${ARTIFACTS}/views-${width}-${colorScheme}.png`;
          await page.screenshot({ path, fullPage: true });
        });
      });
    }
  }
});
