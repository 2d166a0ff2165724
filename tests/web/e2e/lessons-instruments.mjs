// Page tests (run by run.mjs): the lessons on the shipped model's instruments, each opened by its permalink
// (?lesson=head-writes|logit-lens|patching), their figures' numbers checked against attention-wasm/model run here in
// Node (the lens's softmax in float64, written here), the sentence under each figure against the same numbers, the
// row of lessons switching without a reload; screenshots in tests/artifacts/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../src/js/model/index.node.js';
import { ARTIFACTS, withPage } from './helpers.mjs';
import { INDUCTION, SENTENCE, lessonSweeps } from './real-model/helpers.mjs';
import { env } from './session.mjs';

let model;
const builtin = async () => (model ??= await loadModel(INDUCTION));

/** Opens ?lesson=id and waits until its numbers are put in words (the first figure drawn). */
async function openLesson(page, id) {
  await page.goto(`${env.server.url}?lesson=${id}&nowarm`);
  await page.waitForFunction(
    () => document.getElementById('instrument-lesson-numbers')?.dataset.said === 'true',
    null,
    {
      timeout: 60000,
    },
  );
}

/** The data-value of the cells matching `css` in figure k's shadow root. */
const figureValues = (page, k, css) =>
  page.evaluate(
    ({ index, selector }) =>
      Array.from(
        document.getElementById(`instrument-lesson-figure-${index}`).shadowRoot.querySelectorAll(selector),
        (n) => Number(n.dataset.value),
      ),
    { index: k, selector: css },
  );

const closeAll = (got, want, tolerance, what) => {
  assert.equal(got.length, want.length, `${what}: count`);
  got.forEach((v, k) => assert.ok(Math.abs(v - want[k]) <= tolerance, `${what}[${k}]: shown ${v}, API ${want[k]}`));
};

const numbers = (page) => page.textContent('#instrument-lesson-numbers');
const shot = (page, name) => page.locator('#step-instrument-lessons').screenshot({ path: `${ARTIFACTS}/${name}.png` });

describe('lessons on the shipped model’s instruments', () => {
  test('?lesson=head-writes: each head’s attribution of “ball”, the parts summing to the logit, said in words', async () => {
    const m = await builtin();
    const r = await m.run(SENTENCE);
    const ball = r.next[0].id;
    assert.equal(r.next[0].token.trim(), 'ball');
    const a = await m.attribute(SENTENCE, { target: [ball] });
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      await openLesson(page, 'head-writes');
      assert.equal(await page.textContent('#instrument-lesson-title'), 'What a head writes: direct logit attribution');
      closeAll(await figureValues(page, 0, '.inv-grid td.inv-cell'), Array.from(a.heads.data), 1e-6, 'heads');
      const text = await numbers(page);
      const layer1 = Array.from(a.heads.data.subarray(4)).reduce((s, v) => s + v, 0);
      assert.match(
        text,
        new RegExp(`a logit of ${a.total.toFixed(2)}\\. The four heads of layer 1 write ${layer1.toFixed(2)} of it`),
      );
      assert.ok(layer1 > 0.5 * a.total, `layer 1 writes ${layer1} of ${a.total}`);
      assert.match(text, new RegExp(`gives ${a.total.toFixed(2)}, the logit itself`));
      await shot(page, 'lesson-head-writes');
    });
  });

  test('?lesson=logit-lens: every cell the top p of unembed(hiddenStates[l]); p(“ball”) residual by residual', async () => {
    const m = await builtin();
    const r = await m.run(SENTENCE, { hiddenStates: true });
    const n = r.ids.length;
    const V = m.spec.vocabSize;
    const ball = r.next[0].id;
    const tops = [];
    const line = [];
    for (let l = 0; l < r.hiddenStates.length; l++) {
      const u = await m.unembed(r.hiddenStates[l], { norm: l < r.hiddenStates.length - 1 });
      for (let i = 0; i < n; i++) {
        const row = Array.from(u.data.subarray(i * V, (i + 1) * V));
        const max = Math.max(...row);
        const sum = row.reduce((s, v) => s + Math.exp(v - max), 0);
        tops.push(1 / sum);
        if (i === n - 1) line.push(Math.exp(row[ball] - max) / sum);
      }
    }
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      await openLesson(page, 'logit-lens');
      closeAll(await figureValues(page, 0, 'td.inv-cell'), tops, 1e-6, 'lens');
      const text = await numbers(page);
      assert.ok(text.includes(`goes ${line.map((p) => p.toFixed(3)).join(' → ')}`), text);
      assert.ok(line[2] > 10 * line[1], `“ball” appears after layer 1: ${line}`);
      await shot(page, 'lesson-logit-lens');
    });
  });

  test('?lesson=patching: the sweeps of patchSweep, the previous-token head and the position that carries the answer', async () => {
    const m = await builtin();
    const { c, input, heads } = await lessonSweeps(m);
    const prev = await m.headScores('previousToken', { ids: c.ids });
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      await openLesson(page, 'patching');
      const grids = await page.evaluate(() =>
        Array.from(
          document.getElementById('instrument-lesson-figure-0').shadowRoot.querySelectorAll('.inv-grid'),
          (t) => Array.from(t.querySelectorAll('td.inv-cell'), (td) => Number(td.dataset.value)),
        ),
      );
      closeAll(grids[0], Array.from(input.scores.data), 1e-5, 'residual stream');
      closeAll(grids[1], Array.from(heads.scores.data), 1e-5, 'heads');
      const hs = Array.from(heads.scores.data);
      assert.equal(hs.indexOf(Math.max(...hs)), 2, 'L0H2, the previous-token head, restores most');
      const text = await numbers(page);
      assert.match(
        text,
        /entering layer 0, position 4 \(“red”\) restores 1\.00; entering layer 1, position 5 \(“ball”\) restores 0\.9\d/,
      );
      assert.ok(text.includes(`L0H2 ${hs[2].toFixed(2)}`), text);
      // The head scores below: L0H2's previous-token score is the API's.
      await page.evaluate(() => document.getElementById('instrument-lesson-figure-1').scrollIntoView());
      await page.waitForFunction(() => document.getElementById('instrument-lesson-figure-1').status === 'ready', null, {
        timeout: 60000,
      });
      const prevShown = await page.evaluate(() =>
        Number(
          document
            .getElementById('instrument-lesson-figure-1')
            .shadowRoot.querySelector('tr[data-layer="0"][data-head="2"] td').dataset.value,
        ),
      );
      assert.ok(Math.abs(prevShown - prev.data[2]) < 1e-6, `${prevShown} vs ${prev.data[2]}`);
      await page.evaluate(() => document.getElementById('step-instrument-lessons').scrollIntoView());
      await shot(page, 'lesson-patching');
      // The row of lessons switches without a reload, the address following.
      await page.click('.instrument-lessons-nav a[data-lesson="logit-lens"]');
      await page.waitForFunction(() => document.getElementById('instrument-lesson-numbers')?.dataset.said === 'true');
      assert.match(page.url(), /[?&]lesson=logit-lens/);
      assert.equal(
        await page.textContent('#instrument-lesson-title'),
        'The logit lens: what the model would say if it stopped here',
      );
    });
  });

  test('?lesson= naming no lesson says so, naming the three', async () => {
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      await page.goto(`${env.server.url}?lesson=lens&nowarm`);
      await page.waitForSelector('#instrument-lessons-error:not([hidden])');
      assert.equal(
        await page.textContent('#instrument-lessons-error'),
        "This link's lesson=lens is not a lesson on the trained model (head-writes, logit-lens, patching).",
      );
    });
  });

  test('the induction lesson of the real model links to the three lessons', async () => {
    await withPage(env, { waitForRender: false }, async ({ page }) => {
      await page.goto(`${env.server.url}?model=builtin&nowarm`);
      await page.waitForSelector('.instrument-lesson-links a', { timeout: 60000 });
      const links = await page.$$eval('.instrument-lesson-links a', (as) =>
        as.map((a) => [a.textContent, a.getAttribute('href')]),
      );
      assert.deepEqual(links, [
        ['What a head writes', '?lesson=head-writes'],
        ['The logit lens', '?lesson=logit-lens'],
        ['Patching', '?lesson=patching'],
      ]);
      await page.click('.instrument-lesson-links a[href="?lesson=patching"]');
      await page.waitForFunction(
        () => document.getElementById('instrument-lesson-numbers')?.dataset.said === 'true',
        null,
        {
          timeout: 60000,
        },
      );
      assert.match(page.url(), /\?lesson=patching(#|$)/);
    });
  });
});
