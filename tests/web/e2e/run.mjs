// Page tests: the built demo page (web/dist, from scripts/build.sh) served under its strict CSP and driven in
// Debian's Chromium. Run: node tests/web/e2e/run.mjs
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createAttention } from '../../../src/js/index.js';
import { parseMatrix } from '../../../web/src/model/parse.js';
import {
  ARTIFACTS, afterChange, assertClean, assertShown, openPage, readMatrix, readNumbers, settle, startBrowser, typeInCell,
} from './helpers.mjs';

const PRECISION = 3;
let env;
let attn;

before(async () => {
  env = await startBrowser();
  attn = await createAttention();
});

after(async () => {
  await env?.close();
});

const toRows = (tensor) => tensor.toArray();

/** Computes, with the library in Node, what the page should show for the inputs it shows. */
async function libraryResult(page, options = {}) {
  const x = await readNumbers(page, 'x');
  const wq = await readNumbers(page, 'wq');
  const wk = await readNumbers(page, 'wk');
  const wv = await readNumbers(page, 'wv');
  return attn.selfAttention(x, { wq, wk, wv }, options);
}

async function expectMatchesLibrary(page, options, precision = PRECISION) {
  const result = await libraryResult(page, options);
  const steps = { q: 'q', k: 'k', v: 'v', rawScores: 'rawScores', scaledScores: 'scaledScores', scores: 'scores', weights: 'weights', output: 'output' };
  for (const [matrix, key] of Object.entries(steps)) {
    assertShown(await readNumbers(page, matrix), toRows(result[key]), precision, matrix);
  }
  return result;
}

describe('the default example', () => {
  test('shows the library\'s numbers for every step, with token labels', async () => {
    const session = await openPage(env);
    const { page } = session;
    const x = await readMatrix(page, 'x');
    assert.deepEqual(x.rowLabels, ['time', 'flies', 'like', 'an', 'arrow']);
    assert.equal(x.shape, '[5, 8]');
    assert.deepEqual((await readMatrix(page, 'weights')).colLabels, ['time', 'flies', 'like', 'an', 'arrow']);
    assert.equal((await readMatrix(page, 'q')).shape, '[5, 4]');
    await expectMatchesLibrary(page, {});
    assert.match(await page.textContent('#status'), /SIMD/);
    assert.match(await page.textContent('#status'), /last update \d/);
    assert.match(await page.textContent('#scale-text'), /√4 = 2/);
    await assertClean(session);
    await session.context.close();
  });

  test('the 2×2 worked example gives [[1.6604769, 2.6604769], [2.3395231, 3.3395231]]', async () => {
    const session = await openPage(env);
    const { page } = session;
    await afterChange(page, () => page.click('button[data-example="worked"]'));
    const output = await readMatrix(page, 'output');
    assert.deepEqual(output.cells, [['1.660477', '2.660477'], ['2.339523', '3.339523']]);
    assert.deepEqual((await readMatrix(page, 'rawScores')).cells, [['1.000000', '0.000000'], ['0.000000', '1.000000']]);
    assert.match(await page.textContent('#example-about'), /1\.6604769/);
    await assertClean(session);
    await session.context.close();
  });
});

describe('editing', () => {
  test('typing into a cell of X changes the output', async () => {
    const session = await openPage(env);
    const { page } = session;
    const before = await readMatrix(page, 'output');
    await afterChange(page, () => typeInCell(page, 'x', 0, 0, '2.5'));
    assert.equal((await readMatrix(page, 'x')).cells[0][0], '2.500');
    const afterEdit = await readMatrix(page, 'output');
    assert.notDeepEqual(afterEdit.cells, before.cells);
    await expectMatchesLibrary(page, {});
    await assertClean(session);
    await session.context.close();
  });

  test('the keyboard reaches a grid, moves in it and edits, with a visible focus', async () => {
    const session = await openPage(env);
    const { page } = session;
    await page.focus('#precision');
    const onGrid = () => page.evaluate(() => document.activeElement?.matches('[data-matrix="x"] .matrix-scroll'));
    for (let i = 0; i < 10 && !(await onGrid()); i++) await page.keyboard.press('Tab');
    assert.ok(await onGrid(), 'Tab reaches the X grid');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.equal(outline, 'solid');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await afterChange(page, async () => {
      await page.keyboard.press('Enter');
      await page.keyboard.type('7');
      await page.keyboard.press('Enter');
    });
    assert.equal((await readMatrix(page, 'x')).cells[1][1], '7.000');
    assert.ok(await onGrid(), 'focus returns to the grid');
    await assertClean(session);
    await session.context.close();
  });

  test('a pasted NumPy print-out becomes X and sets n and d_model', async () => {
    const session = await openPage(env);
    const { page } = session;
    await page.click('#paste-box summary');
    await page.selectOption('#paste-target', 'x');
    await page.fill('#paste-text', '[[ 1.0e+00  0.0e+00  5.0e-01]\n [ 0.0e+00  1.0e+00 -5.0e-01]\n [ 2.0e-01  3.0e-01  4.0e-01]]');
    await afterChange(page, () => page.click('#paste-apply'));
    const x = await readMatrix(page, 'x');
    assert.equal(x.shape, '[3, 3]');
    assert.deepEqual(x.cells, [['1.000', '0.000', '0.500'], ['0.000', '1.000', '-0.500'], ['0.200', '0.300', '0.400']]);
    assert.equal(await page.inputValue('#size-n'), '3');
    assert.equal(await page.inputValue('#size-dModel'), '3');
    assert.match(await page.textContent('#paste-done'), /3×3/);
    await expectMatchesLibrary(page, {});
    await assertClean(session);
    await session.context.close();
  });
});

describe('masks, scaling and heads', () => {
  test('causal: weights above the diagonal are 0 and rows sum to 1; a clicked cell blocks one more', async () => {
    const session = await openPage(env);
    const { page } = session;
    await afterChange(page, () => page.check('#causal'));
    let weights = await readNumbers(page, 'weights');
    weights.forEach((row, i) => {
      row.forEach((w, j) => {
        if (j > i) assert.equal(w, 0, `weight[${i}][${j}]`);
      });
      assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 0.003);
    });
    const mask = await readMatrix(page, 'mask');
    assert.equal(mask.cells[0][1], '-∞');
    assert.equal(mask.cells[1][0], '0');
    await expectMatchesLibrary(page, { causal: true });
    await afterChange(page, () => page.click('[data-matrix="mask"] .c[data-i="3"][data-j="1"]'));
    weights = await readNumbers(page, 'weights');
    assert.equal(weights[3][1], 0);
    assert.equal((await readMatrix(page, 'scores')).cells[3][1], '-∞');
    const blocked = [[true, true, true, true, true], [true, true, true, true, true], [true, true, true, true, true], [true, false, true, true, true], [true, true, true, true, true]];
    await expectMatchesLibrary(page, { causal: true, mask: blocked });
    await assertClean(session);
    await session.context.close();
  });

  test('scaling off and a temperature pass scale = 1/T, and the page says so', async () => {
    const session = await openPage(env);
    const { page } = session;
    await afterChange(page, () => page.uncheck('#scaling'));
    assert.equal(await page.textContent('#scale-title'), 'Scale: off');
    assert.deepEqual((await readMatrix(page, 'scaledScores')).cells, (await readMatrix(page, 'rawScores')).cells);
    await afterChange(page, () => page.fill('#temperature', '2'));
    assert.equal(await page.textContent('#scale-title'), 'Scale: ÷ T');
    await expectMatchesLibrary(page, { scale: 0.5 });
    await afterChange(page, () => page.check('#scaling'));
    await expectMatchesLibrary(page, { scale: 1 / (2 * 2) });
    await assertClean(session);
    await session.context.close();
  });

  test('four heads: a heatmap per head and their average; the chosen head is followed through the steps', async () => {
    const session = await openPage(env);
    const { page } = session;
    await afterChange(page, () => page.click('button[data-example="heads"]'));
    assert.equal(await page.locator('#mount-heads .head-figure canvas').count(), 5);
    await afterChange(page, () => page.selectOption('#head', '2'));
    assert.match((await readMatrix(page, 'q')).title, /head 3 of 4/);
    assert.equal(await page.getAttribute('#mount-heads figure:nth-child(3) button', 'aria-pressed'), 'true');
    const x = await readNumbers(page, 'x');
    const [wq, wk, wv] = [await readNumbers(page, 'wq'), await readNumbers(page, 'wk'), await readNumbers(page, 'wv')];
    const single = attn.selfAttention(x, { wq, wk, wv });
    assertShown(await readNumbers(page, 'weights'), toRows(single.weights), PRECISION, 'head 3 weights');
    assert.equal((await readMatrix(page, 'concat')).shape, '[5, 16]');
    await assertClean(session);
    await session.context.close();
  });

  test('hovering an output row highlights its weights and the values that made it', async () => {
    const session = await openPage(env);
    const { page } = session;
    await page.hover('[data-matrix="output"] .c[data-i="2"][data-j="1"]');
    assert.match(await page.textContent('#output-explain'), /output\(“like”\) = \d\.\d\d × v\(“/);
    assert.equal(await page.locator('[data-matrix="weights"] .gr.hl-row').count(), 1);
    assert.equal(await page.getAttribute('[data-matrix="weights"] .gr.hl-row .c', 'data-i'), '2');
    assert.equal(await page.locator('[data-matrix="vOut"] .rh[data-weight]').count(), 5);
    assert.ok(await page.isVisible('.tooltip'));
    assert.match(await page.textContent('.tooltip'), /output of “like”, dimension 1/);
    await page.hover('[data-matrix="weights"] .c[data-i="0"][data-j="4"]');
    assert.match(await page.textContent('.tooltip'), /query “time” → key “arrow”/);
    await assertClean(session);
    await session.context.close();
  });
});

describe('bad input never breaks the page', () => {
  test('a word in a cell: inline message, last good result kept, fixed by a number', async () => {
    const session = await openPage(env);
    const { page } = session;
    const before = await readMatrix(page, 'output');
    const renders = await page.evaluate(() => document.body.dataset.renders);
    await typeInCell(page, 'x', 1, 2, 'abc');
    const error = page.locator('[data-matrix="x"] .inline-error');
    assert.ok(await error.isVisible());
    assert.match(await error.textContent(), /X, row “flies”, column 2: “abc” is not a number/);
    assert.equal(await page.evaluate(() => document.body.dataset.renders), renders);
    assert.deepEqual((await readMatrix(page, 'output')).cells, before.cells);
    assert.equal((await readMatrix(page, 'x')).cells[1][2], 'abc');
    await afterChange(page, () => typeInCell(page, 'x', 1, 2, '1'));
    assert.ok(!(await error.isVisible()));
    assert.notDeepEqual((await readMatrix(page, 'output')).cells, before.cells);
    await expectMatchesLibrary(page, {});
    await assertClean(session);
    await session.context.close();
  });

  test('sizes over the limit, a ragged paste and an empty sentence get messages at their place', async () => {
    const session = await openPage(env);
    const { page } = session;
    await page.fill('#size-n', '99');
    assert.match(await page.textContent('#sizes-error'), /n must be a whole number from 1 to 64/);
    assert.equal(await page.getAttribute('#size-n', 'aria-invalid'), 'true');
    await page.fill('#size-numHeads', '4');
    await page.fill('#size-dK', '32');
    assert.match(await page.textContent('#sizes-error'), /heads × d_k is 128, over 64/);
    assert.equal((await readMatrix(page, 'x')).shape, '[5, 8]');
    await page.fill('#size-dK', '4');
    await afterChange(page, () => page.fill('#size-n', '4'));
    assert.ok(!(await page.isVisible('#sizes-error')));
    assert.equal((await readMatrix(page, 'x')).shape, '[4, 8]');

    await page.click('#paste-box summary');
    await page.fill('#paste-text', '[[1, 2, 3],\n [4, 5]]');
    await page.click('#paste-apply');
    assert.match(await page.textContent('#paste-error'), /row 2 has 2 values but row 1 has 3.*Nothing was changed/);
    await page.selectOption('#paste-target', 'wq');
    await page.fill('#paste-text', '1 2\n3 4');
    await page.click('#paste-apply');
    assert.match(await page.textContent('#paste-error'), /W_q needs d_model = 8 rows/);
    await page.selectOption('#paste-target', 'x');
    await afterChange(page, () => page.click('#paste-apply'));
    assert.ok(!(await page.isVisible('#paste-error')));
    assert.equal((await readMatrix(page, 'x')).shape, '[2, 2]');

    await page.fill('#sentence', '   ');
    assert.match(await page.textContent('#sentence-error'), /at least one word/);
    await afterChange(page, () => page.fill('#sentence', 'one two three'));
    assert.ok(!(await page.isVisible('#sentence-error')));
    assert.deepEqual((await readMatrix(page, 'x')).rowLabels, ['one', 'two', 'three']);
    await page.fill('#seed', '-5');
    assert.match(await page.textContent('#seed-error'), /whole number from 0/);
    await afterChange(page, () => page.fill('#seed', '5'));
    await expectMatchesLibrary(page, {});
    await assertClean(session);
    await session.context.close();
  });
});

describe('sharing', () => {
  test('a permalink restores the whole state', async () => {
    const first = await openPage(env);
    const { page } = first;
    await afterChange(page, () => page.fill('#sentence', 'the cat sat on the mat'));
    await afterChange(page, () => page.fill('#seed', '1234'));
    await afterChange(page, () => page.check('#dist[value="uniform"], input[name="dist"][value="uniform"]'));
    await afterChange(page, () => page.check('#causal'));
    await afterChange(page, () => page.fill('#temperature', '0.5'));
    await afterChange(page, () => page.selectOption('#precision', '4'));
    await afterChange(page, () => typeInCell(page, 'wv', 2, 1, '-0.125'));
    await afterChange(page, () => page.click('[data-matrix="mask"] .c[data-i="4"][data-j="0"]'));
    await page.click('#copy-link');
    await page.waitForFunction(() => location.hash.includes('mask='));
    const link = await page.evaluate(() => location.href);
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    const shown = {};
    for (const name of ['x', 'wv', 'weights', 'output', 'mask']) shown[name] = await readMatrix(page, name);
    await assertClean(first);
    await first.context.close();

    const second = await openPage(env, { hash: new URL(link).hash });
    const p2 = second.page;
    for (const name of Object.keys(shown)) assert.deepEqual(await readMatrix(p2, name), shown[name], name);
    assert.equal(await p2.inputValue('#sentence'), 'the cat sat on the mat');
    assert.equal(await p2.inputValue('#seed'), '1234');
    assert.ok(await p2.isChecked('input[name="dist"][value="uniform"]'));
    assert.ok(await p2.isChecked('#causal'));
    assert.equal(await p2.inputValue('#temperature'), '0.5');
    assert.equal(await p2.inputValue('#precision'), '4');
    assert.equal((await readMatrix(p2, 'wv')).cells[2][1], '-0.1250');
    assert.ok(!(await p2.isVisible('#link-warning')));
    await afterChange(p2, () => p2.evaluate(() => { location.hash = '#s=one+two+three&causal=0'; }));
    assert.deepEqual((await readMatrix(p2, 'x')).rowLabels, ['one', 'two', 'three']);
    assert.ok(!(await p2.isChecked('#causal')));
    await assertClean(second);
    await second.context.close();
  });

  test('copy as NumPy gives the exact float32 values', async () => {
    const session = await openPage(env);
    const { page } = session;
    await page.click('[data-matrix="weights"] button[aria-label="Copy attention weights as NumPy"]');
    await page.waitForFunction(() => document.querySelector('[data-matrix="weights"] .copy-status').textContent !== '');
    const text = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(text, /^np\.array\(\[\[/);
    const copied = parseMatrix(text);
    const result = await libraryResult(page, {});
    assert.deepEqual(copied.flat().map(Math.fround), Array.from(result.weights.data));
    await page.click('[data-matrix="x"] button[aria-label="Copy X as CSV"]');
    await page.waitForFunction(() => document.querySelector('[data-matrix="x"] .copy-status').textContent.includes('CSV'));
    assert.equal((await page.evaluate(() => navigator.clipboard.readText())).split('\n')[0], '0.87,-0.68,1.08,-0.89,-0.04,0.66,-1.22,0.12');
    await assertClean(session);
    await session.context.close();
  });

  test('the weights heatmap downloads as a PNG', async () => {
    const session = await openPage(env);
    const { page } = session;
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-png')]);
    assert.equal(download.suggestedFilename(), 'attention-weights.png');
    const path = `${ARTIFACTS}/attention-weights.png`;
    await download.saveAs(path);
    const bytes = readFileSync(path);
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(statSync(path).size > 2000);
    await assertClean(session);
    await session.context.close();
  });
});

describe('a strict page', () => {
  test('a token like <img src=x onerror=alert(1)> stays text', async () => {
    const session = await openPage(env);
    const { page } = session;
    await afterChange(page, () => page.fill('#sentence', '<img src=x onerror=alert(1)> <b>bold</b>'));
    const labels = (await readMatrix(page, 'x')).rowLabels;
    assert.deepEqual(labels, ['<img', 'src=x', 'onerror=alert(1)>', '<b>bold</b>']);
    await page.hover('[data-matrix="weights"] .c[data-i="2"][data-j="0"]');
    assert.match(await page.textContent('.tooltip'), /query “onerror=alert\(1\)>” → key “<img”/);
    await page.waitForTimeout(300);
    assert.equal(await page.locator('img, b, iframe, object, embed').count(), 0);
    assert.equal(await page.locator('script').count(), 1);
    assert.ok(!(await page.evaluate(() => document.body.innerHTML.includes('<img'))));
    await assertClean(session);
    await session.context.close();
  });

  test('a crafted permalink is read as data and its bad parts are named', async () => {
    const hash = '#s=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E%20%3Cscript%3Ealert(2)%3C%2Fscript%3E'
      + '&n=abc&x=%3Cscript%3Ealert(3)%3C%2Fscript%3E&%3Cimg%20src%3Dx%20onerror%3Dalert(4)%3E=1'
      + '&dist=%3Csvg%20onload%3Dalert(5)%3E&__proto__=x&t=javascript:alert(6)';
    const session = await openPage(env, { hash });
    const { page } = session;
    const warning = await page.textContent('#link-warning');
    assert.match(warning, /could not be read/);
    assert.match(warning, /n=abc/);
    assert.match(warning, /<img src=x onerror=alert\(4\)>/);
    assert.match(warning, /<svg onload=alert\(5\)>/);
    assert.deepEqual((await readMatrix(page, 'x')).rowLabels, ['<img', 'src=x', 'onerror=alert(1)>', '<script>alert(2)</script>']);
    await page.waitForTimeout(300);
    assert.equal(await page.locator('img, svg:not(.chart), iframe, object, embed').count(), 0);
    assert.equal(await page.locator('script').count(), 1);
    await assertClean(session);
    await session.context.close();
  });

  test('only the page\'s own files are requested, and the .wasm is one of them', async () => {
    const session = await openPage(env);
    const { page, problems } = session;
    await page.waitForTimeout(300);
    assert.ok(problems.requests.some((url) => /\.wasm$/.test(url)));
    assert.deepEqual(problems.foreignRequests, []);
    await assertClean(session);
    await session.context.close();
  });

  test('when the .wasm cannot be fetched, the page says so plainly, naming the URL', async () => {
    const session = await openPage(env, {
      waitForRender: false,
      route: (page) => page.route('**/*.wasm', (route) => route.fulfill({ status: 404, body: 'not found' })),
    });
    const { page } = session;
    await page.waitForSelector('#load-error:not([hidden])');
    const text = await page.textContent('#load-error');
    assert.match(text, /could not be loaded/);
    assert.match(text, /http:\/\/127\.0\.0\.1:\d+\/assets\/attention-(simd|scalar)-[\w-]+\.wasm/);
    assert.match(text, /404/);
    assert.equal(await page.textContent('#status'), 'WebAssembly module not loaded');
    assert.ok(!(await page.isVisible('#steps')));
    await assertClean(session, { allowConsole: [/Failed to load resource: the server responded with a status of 404/] });
    await session.context.close();
  });
});

describe('layout and speed', () => {
  for (const [width, height] of [[1280, 800], [390, 844]]) {
    test(`${width}×${height}: no horizontal page scroll; full-page screenshot saved`, async () => {
      const session = await openPage(env, { viewport: { width, height } });
      const { page } = session;
      for (const example of ['sentence', 'causal', 'heads', 'worked']) {
        await afterChange(page, () => page.click(`button[data-example="${example}"]`));
        const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
        assert.ok(scrollWidth <= clientWidth, `${example}: page scrolls sideways (${scrollWidth} > ${clientWidth})`);
      }
      await afterChange(page, () => page.click('button[data-example="sentence"]'));
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(400);
      await page.screenshot({ path: `${ARTIFACTS}/page-${width}.png`, fullPage: true });
      await afterChange(page, () => page.click('button[data-example="heads"]'));
      await page.waitForTimeout(300);
      await page.screenshot({ path: `${ARTIFACTS}/page-${width}-heads.png`, fullPage: true });
      await assertClean(session);
      await session.context.close();
    });
  }

  test('n = 64, d_model = d_k = d_v = 64: input to redraw stays under 50 ms', async (t) => {
    const session = await openPage(env, { hash: '#n=64&dm=64&dk=64&dv=64' });
    const { page } = session;
    assert.equal((await readMatrix(page, 'weights')).shape, '[64, 64]');
    await page.evaluate(() => {
      window.__inputToPaint = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) if (entry.name === 'keydown') window.__inputToPaint.push(entry.duration);
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
    t.diagnostic(`n=64: compute median ${median(computes).toFixed(2)} ms; input to redrawn (script) median ${median(updates).toFixed(1)} ms, max ${Math.max(...updates).toFixed(1)} ms; input to paint (Event Timing, 8 ms steps, only > 16 ms recorded) median ${median(paints)} ms over ${paints.length} events`);
    assert.ok(median(updates) < 50, `median update ${median(updates)} ms`);
    assert.ok(median(paints) < 150, `median input to paint ${median(paints)} ms`);
    await assertClean(session);
    await session.context.close();
  });
});
