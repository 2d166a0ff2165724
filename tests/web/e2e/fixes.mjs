// Page tests (run by run.mjs): what a student and an instructor hit, fixed: random weights said to be random,
// a PNG title that wraps, out-of-range links, a steady grid under the finger, texts that follow the settings.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ARTIFACTS, DIST, afterChange, readMatrix, readNumbers, withPage } from './helpers.mjs';
import { attn, env } from './session.mjs';

/** Width and height of a PNG, from its IHDR chunk. */
const pngSize = (bytes) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });

describe('fixes for students and instructors', () => {
  test('random weights are said to mean nothing yet, naming the largest weight shown', async () => {
    await withPage(env, {}, async ({ page }) => {
      const note = await page.textContent('#random-note');
      const weights = (await readNumbers(page, 'weights')).flat();
      assert.match(note, /random numbers from seed 42, not trained weights, so this pattern means nothing yet/);
      assert.ok(note.includes(`gives ${Math.max(...weights).toFixed(2)} of its attention`), note);
      await afterChange(page, () => page.click('button[data-example="heads"]'));
      assert.match(await page.textContent('#heads-text'), /random, so the heads differ only by chance/);
      assert.doesNotMatch(await page.textContent('#example-about'), /learns/);
      await afterChange(page, () => page.click('button[data-example="worked"]'));
      assert.equal(await page.isVisible('#random-note'), false, 'typed X, W_q and W_k: no note');
    });
  });

  test('the PNG title wraps instead of being cut', async () => {
    // As many tokens as the default sentence (the same grid), but a title far wider than the picture.
    const sentence =
      'supercalifragilistic expialidocious antidisestablishmentarianism floccinaucinihilipilification pneumonoultramicroscopic';
    await withPage(env, {}, async ({ page }) => {
      const save = async (name) => {
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-png')]);
        const path = `${ARTIFACTS}/${name}.png`;
        await download.saveAs(path);
        return pngSize(readFileSync(path));
      };
      const short = await save('weights-short-title');
      await afterChange(page, () => page.fill('#sentence', sentence));
      const long = await save('weights-long-title');
      assert.equal(long.width, short.width);
      const extra = long.height - short.height;
      assert.ok(
        extra >= 48 && extra % 24 === 0,
        `the long title takes at least two more 24 px lines: ${short.height} → ${long.height} px`,
      );
    });
  });

  test('a link with numbers beyond ±1e6 falls back to the seed, and the matrices are drawn', async () => {
    await withPage(env, { hash: '#v=1&s=a+b&n=2&dm=2&dk=2&dv=2&x=1e30,1;2,3' }, async ({ page }) => {
      assert.match(
        await page.textContent('#link-warning'),
        /x=1e30,1;2,3 is not a 2×2 matrix of numbers from -1000000 to 1000000/,
      );
      assert.equal(await page.isVisible('#compute-error'), false);
      const output = await readNumbers(page, 'output');
      assert.equal(output.length, 2);
      assert.ok(output.flat().every(Number.isFinite));
    });
  });

  test('on a phone, tapping an output row explains that row and the grid stays under the finger', async () => {
    await withPage(env, { viewport: { width: 390, height: 844 }, hasTouch: true }, async ({ page }) => {
      const rowTop = (i) =>
        page.evaluate(
          (k) =>
            document.querySelector(`[data-matrix="output"] .c[data-i="${k}"][data-j="0"]`).getBoundingClientRect().top,
          i,
        );
      await page.evaluate(() => document.getElementById('output-explain').scrollIntoView());
      const labels = (await readMatrix(page, 'output')).rowLabels;
      for (const i of [1, 4, 0]) {
        const before = await rowTop(i);
        await page.tap(`[data-matrix="output"] .c[data-i="${i}"][data-j="0"]`);
        assert.ok(Math.abs((await rowTop(i)) - before) < 1, `row ${i} moved from ${before} to ${await rowTop(i)}`);
        assert.ok((await page.textContent('#output-explain')).startsWith(`output(“${labels[i]}”)`));
      }
    });
  });

  test('texts follow the settings: scaling off, temperature, d_k, an edited example, words left out', async () => {
    await withPage(env, {}, async ({ page }) => {
      assert.equal(await page.getAttribute('button[data-example="sentence"]', 'aria-pressed'), 'true');
      await afterChange(page, () => page.uncheck('#scaling'));
      assert.doesNotMatch(await page.textContent('#why-text'), /after scaling/);
      assert.match(await page.textContent('#why-text'), /Scaling is off, so the scores keep this variance/);
      await afterChange(page, () => page.check('#scaling'));
      await afterChange(page, () => page.fill('#temperature', '0.2'));
      const scale = await page.textContent('#scale-text');
      assert.doesNotMatch(scale, /This keeps the scores near variance 1/);
      assert.match(scale, /not part of standard attention/);
      await afterChange(page, () => page.fill('#size-dK', '16'));
      await page.waitForFunction(() =>
        /^At d_k = 16:/.test(document.querySelector('#mount-charts .hint')?.textContent ?? ''),
      );
      assert.equal(await page.getAttribute('button[data-example="sentence"]', 'aria-pressed'), 'false');
      assert.match(await page.textContent('#example-about'), /^Your own example/);
      await afterChange(page, () => page.fill('#size-n', '3'));
      assert.match(await page.textContent('#sizes-note'), /only the first 3 are tokens: “an”, “arrow” are left out/);
      await afterChange(page, () => page.click('button[data-example="worked"]'));
      assert.equal(await page.getAttribute('button[data-example="worked"]', 'aria-pressed'), 'true');
      assert.match(await page.textContent('#example-about'), /2\.3395228/);
      assert.equal(await page.isVisible('#sizes-note'), false);
    });
  });

  test('the header and badge say what runs: SIMD128 kernels for attention and for the projections', async () => {
    await withPage(env, {}, async ({ page }) => {
      assert.match(
        await page.textContent('.lead'),
        /hand-written SIMD128 kernels for the\s+attention itself and for the projections/,
      );
      // The library names its kernels once attn.kernelBackend exists (e.g. 'wasm-simd128'); the page shows that name.
      const kernels = attn.kernelBackend ?? 'hand-fused SIMD128';
      assert.ok(
        (await page.textContent('#status')).includes(`attention kernels: ${kernels} · projections: SIMD128 GEMM`),
      );
    });
  });
});

describe('opened from disk', () => {
  test('index.html opened as a file:// address says it needs a web server and how to start one', async () => {
    const context = await env.browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(pathToFileURL(`${DIST}/index.html`).href);
      await page.waitForFunction(() => getComputedStyle(document.getElementById('disk-hint')).opacity === '1', null, {
        timeout: 10000,
      });
      const hint = await page.textContent('#disk-hint');
      assert.match(hint, /Opened from disk \(a file:\/\/ address\)/);
      assert.match(hint, /python3 -m http\.server 8000/);
      await page.screenshot({ path: `${ARTIFACTS}/opened-from-disk.png` });
    } finally {
      await context.close();
    }
  });
});

describe('printing', () => {
  test('prints the steps without the settings, buttons or copy menus, matrices unclipped', async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.emulateMedia({ media: 'print' });
      assert.equal(await page.isVisible('.controls'), false);
      assert.equal(await page.isVisible('[data-matrix="x"] .copy-group'), false);
      assert.equal(await page.isVisible('#download-png'), false);
      assert.equal(await page.isVisible('#step-softmax'), true);
      assert.equal(await page.isVisible('#random-note'), true);
      const overflow = await page.evaluate(
        () => getComputedStyle(document.querySelector('[data-matrix="x"] .matrix-scroll')).overflow,
      );
      assert.equal(overflow, 'visible');
      await page.screenshot({
        path: `${ARTIFACTS}/print.png`,
        fullPage: true,
        clip: { x: 0, y: 0, width: 1280, height: 1500 },
      });
      await page.emulateMedia({ media: 'screen' });
      assert.equal(await page.isVisible('.controls'), true);
    });
  });
});
