// Page tests (run by run.mjs): a strict page (text stays text, only its own requests, a missing .wasm), then
// layout and speed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ARTIFACTS, afterChange, chooseExample, hoverSteady, readMatrix, settle, withPage } from './helpers.mjs';
import { env } from './session.mjs';

describe('a strict page', () => {
  test('a token like <img src=x onerror=alert(1)> stays text', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.fill('#sentence', '<img src=x onerror=alert(1)> <b>bold</b>'));
      const labels = (await readMatrix(page, 'x')).rowLabels;
      assert.deepEqual(labels, ['<img', 'src=x', 'onerror=alert(1)>', '<b>bold</b>']);
      await hoverSteady(page, '[data-matrix="weights"] .c[data-i="2"][data-j="0"]');
      assert.match(await page.textContent('.tooltip'), /query “onerror=alert\(1\)>” → key “<img”/);
      await page.waitForTimeout(300);
      assert.equal(await page.locator('img, b, iframe, object, embed').count(), 0);
      assert.equal(await page.locator('script').count(), 1);
      assert.ok(!(await page.evaluate(() => document.body.innerHTML.includes('<img'))));
    });
  });

  test('a crafted permalink is read as data and its bad parts are named', async () => {
    const hash =
      '#s=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E%20%3Cscript%3Ealert(2)%3C%2Fscript%3E' +
      '&n=abc&x=%3Cscript%3Ealert(3)%3C%2Fscript%3E&%3Cimg%20src%3Dx%20onerror%3Dalert(4)%3E=1' +
      '&dist=%3Csvg%20onload%3Dalert(5)%3E&__proto__=x&t=javascript:alert(6)';
    await withPage(env, { hash }, async ({ page }) => {
      const warning = await page.textContent('#link-warning');
      assert.match(warning, /could not be read/);
      assert.match(warning, /n=abc/);
      assert.match(warning, /<img src=x onerror=alert\(4\)>/);
      assert.match(warning, /<svg onload=alert\(5\)>/);
      assert.deepEqual((await readMatrix(page, 'x')).rowLabels, [
        '<img',
        'src=x',
        'onerror=alert(1)>',
        '<script>alert(2)</script>',
      ]);
      await page.waitForTimeout(300);
      assert.equal(await page.locator('img, svg:not(.chart), iframe, object, embed').count(), 0);
      assert.equal(await page.locator('script').count(), 1);
    });
  });

  test("only the page's own files are requested, and the .wasm is one of them", async () => {
    await withPage(env, {}, async ({ page, problems }) => {
      await page.waitForTimeout(300);
      assert.ok(problems.requests.some((url) => /\.wasm$/.test(url)));
      assert.deepEqual(problems.foreignRequests, []);
    });
  });

  test('when the .wasm cannot be fetched, the page says so plainly, naming the URL', async () => {
    const options = {
      waitForRender: false,
      route: (page) => page.route('**/*.wasm', (route) => route.fulfill({ status: 404, body: 'not found' })),
      allowConsole: [/Failed to load resource: the server responded with a status of 404/],
    };
    await withPage(env, options, async ({ page }) => {
      await page.waitForSelector('#load-error:not([hidden])');
      const text = await page.textContent('#load-error');
      assert.match(text, /could not be loaded/);
      assert.match(text, /http:\/\/127\.0\.0\.1:\d+\/assets\/attention-(simd|scalar)-[\w-]+\.wasm/);
      assert.match(text, /404/);
      assert.equal(await page.textContent('#status'), 'WebAssembly module not loaded');
      assert.ok(!(await page.isVisible('#steps')));
    });
  });
});

describe('layout and speed', () => {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ]) {
    test(`${width}×${height}: no horizontal page scroll; full-page screenshot saved`, async () => {
      await withPage(env, { viewport: { width, height } }, async ({ page }) => {
        for (const example of ['sentence', 'causal', 'heads', 'worked']) {
          await chooseExample(page, example);
          const { scrollWidth, clientWidth } = await page.evaluate(() => ({
            scrollWidth: document.documentElement.scrollWidth,
            clientWidth: document.documentElement.clientWidth,
          }));
          assert.ok(scrollWidth <= clientWidth, `${example}: page scrolls sideways (${scrollWidth} > ${clientWidth})`);
        }
        await chooseExample(page, 'sentence');
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.waitForTimeout(400);
        await page.screenshot({ path: `${ARTIFACTS}/page-${width}.png`, fullPage: true });
        await chooseExample(page, 'heads');
        await page.waitForTimeout(300);
        await page.screenshot({ path: `${ARTIFACTS}/page-${width}-heads.png`, fullPage: true });
      });
    });
  }

  test('n = 64, d_model = d_k = d_v = 64: every input recomputes and redraws (timings printed as a diagnostic, not asserted)', async (t) => {
    await withPage(env, { hash: '#n=64&dm=64&dk=64&dv=64' }, async ({ page }) => {
      assert.equal((await readMatrix(page, 'weights')).shape, '[64, 64]');
      await page.evaluate(() => {
        window.__inputToPaint = [];
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries())
            if (entry.name === 'keydown') window.__inputToPaint.push(entry.duration);
        }).observe({ type: 'event', durationThreshold: 16 });
      });
      const updates = [];
      const computes = [];
      for (const target of ['step-x', 'step-softmax', 'step-output']) {
        await page.evaluate((id) => document.getElementById(id).scrollIntoView(), target);
        for (let r = 0; r < 4; r++) {
          await settle(page);
          await page.waitForTimeout(120);
          await page.focus('#temperature');
          await afterChange(page, () => page.keyboard.press(r % 2 ? 'ArrowLeft' : 'ArrowRight'));
          updates.push(Number(await page.evaluate(() => document.body.dataset.updateMs)));
          computes.push(Number(await page.evaluate(() => document.body.dataset.computeMs)));
        }
      }
      await page.waitForTimeout(200);
      const paints = await page.evaluate(() => window.__inputToPaint);
      const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
      t.diagnostic(
        `n=64: compute median ${median(computes).toFixed(2)} ms; input to redrawn (script) median ${median(updates).toFixed(1)} ms, max ${Math.max(...updates).toFixed(1)} ms; input to paint (Event Timing, 8 ms steps, only > 16 ms recorded) median ${median(paints)} ms over ${paints.length} events`,
      );
      // Tests never time things: the figures above are for reading; the bench measures responsiveness.
      assert.equal(updates.length, 12);
      assert.ok(
        updates.every((ms) => Number.isFinite(ms) && ms > 0),
        `every input redrew: ${updates.join(', ')}`,
      );
    });
  });
});
