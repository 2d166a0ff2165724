// Page tests (run by run.mjs): the lessons on heads, each checked against the float64 reference of reference64.mjs.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterChange, assertShown, readInputs, readNumbers, showLesson, typeInCell, withPage } from './helpers.mjs';
import { attention64 } from './reference64.mjs';
import { PRECISION, env } from './session.mjs';

const argmax = (row) => row.reduce((best, v, j) => (v > row[best] ? j : best), 0);
const LABELS = 'the cat saw the dog chase the cat'.split(' ');

/** What each designed head should look at most, by query, on “the cat saw the dog chase the cat” (null: nothing). */
const EXPECTED = [
  [[0], [0], [1], [2], [3], [4], [5], [6]],
  LABELS.map(() => [0]),
  [[3, 6], [7], null, [0, 6], null, null, [0, 3], [1]],
  [
    [0, 1],
    [0, 1, 2],
    [1, 2, 3],
    [2, 3, 4],
    [3, 4, 5],
    [4, 5, 6],
    [5, 6, 7],
    [6, 7],
  ],
];

/** The lines the page shows under each designed head: its verdict and its largest weight per query. */
const readDesigned = (page) =>
  page.$$eval('#mount-designed .designed-card', (cards) =>
    cards.map((card) => ({
      verdict: card.querySelector('.designed-verdict').textContent,
      argmax: card.querySelector('.designed-argmax').textContent,
    })),
  );

describe('lesson: designed heads', () => {
  test('each head attends where its design says, by the float64 reference; the page shows the same argmax and weights', async () => {
    let link;
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="designed"]'));
      assert.equal(await page.getAttribute('button[data-example="designed"]', 'aria-pressed'), 'true');
      const inputs = await readInputs(page);
      const want = attention64(inputs);
      const shown = await readDesigned(page);
      assert.equal(shown.length, 4);
      want.weights.forEach((weights, h) => {
        weights.forEach((row, i) => {
          if (EXPECTED[h][i]) assert.ok(EXPECTED[h][i].includes(argmax(row)), `head ${h}, query ${i}: ${argmax(row)}`);
        });
        assert.match(shown[h].verdict, /^The pattern holds/);
        // “the → itself 0.99 · cat → the 0.99 · …”: each query's argmax and its weight, as the reference has them.
        const items = shown[h].argmax.replace('Largest weight per query: ', '').split(' · ');
        items.forEach((item, i) => {
          if (/no match/.test(item)) return assert.equal(EXPECTED[h][i], null);
          const [, target, weight] = /→ (\S+) ([\d.]+)$/.exec(item);
          const j = argmax(weights[i]);
          assert.equal(target, j === i ? 'itself' : LABELS[j], `head ${h}, query ${i}`);
          assert.ok(Math.abs(Number(weight) - weights[i][j]) <= 0.005 + 1e-9, `head ${h}, query ${i}: ${weight}`);
        });
      });

      // Break head 0: position 3 no longer has a key, so the query at position 4 (“dog”) finds no previous token.
      await afterChange(page, () => page.selectOption('#head', '0'));
      await afterChange(page, () => typeInCell(page, 'wk', 11, 3, '0'));
      const broken = attention64(await readInputs(page));
      const j = argmax(broken.weights[0][4]);
      assert.notEqual(j, 3);
      const [first] = await readDesigned(page);
      assert.match(first.verdict, new RegExp(`broken in 1 of 8 rows: “dog” looks most at “${LABELS[j]}”`));
      await page.click('#copy-link');
      link = new URL(page.url()).hash;
      assert.match(link, /&design=1/);
      assert.match(link, /&wk=/);
    });
    await withPage(env, { hash: link }, async ({ page }) => {
      const [first, second] = await readDesigned(page);
      assert.match(first.verdict, /broken in 1 of 8 rows/);
      assert.match(second.verdict, /^The pattern holds/);
    });
  });

  test('at 390 px by keyboard: the lesson loads its example with Enter; no sideways scroll', async () => {
    await withPage(env, { viewport: { width: 390, height: 844 } }, async ({ page }) => {
      assert.equal(await page.isVisible('#load-designed'), true);
      await page.focus('#load-designed');
      await afterChange(page, () => page.keyboard.press('Enter'));
      assert.equal(await page.isVisible('#load-designed'), false);
      assert.equal((await readDesigned(page)).length, 4);
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      assert.ok(scrollWidth <= clientWidth, `page scrolls sideways (${scrollWidth} > ${clientWidth})`);
    });
  });
});

const columns = (m, from, width) => m.map((row) => row.slice(from, from + width));

describe('lesson: grouped-query attention', () => {
  test('heads of a group share K and V, as the float64 reference gives them; the memory saved is counted', async () => {
    let link;
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="gqa"]'));
      assert.equal(await page.getAttribute('button[data-example="gqa"]', 'aria-pressed'), 'true');
      const inputs = await readInputs(page);
      await showLesson(page, 'step-gqa');
      // The steps show the grouped layer: W_k and W_v as the blocks of its 2 kv heads.
      assert.equal(inputs.numKvHeads, 2);
      const want = attention64(inputs);
      for (const g of [0, 1]) {
        assertShown(await readNumbers(page, `gqaK${g}`), want.keys[g], PRECISION, `K of kv head ${g}`);
        assertShown(await readNumbers(page, `gqaV${g}`), want.values[g], PRECISION, `V of kv head ${g}`);
      }
      const groups = await page.$$eval('#mount-gqa-heads figure', (figures) => figures.map((f) => f.dataset.group));
      assert.deepEqual(groups, ['0', '0', '1', '1']);
      const colours = await page.$$eval('#mount-gqa-heads figure', (figures) =>
        figures.map((f) => getComputedStyle(f).borderTopColor),
      );
      assert.equal(colours[0], colours[1]);
      assert.notEqual(colours[1], colours[2]);
      const text = await page.textContent('#gqa-text');
      assert.match(
        text,
        /5 × 2 × \(4 \+ 4\) = 80 numbers \(320 bytes in float32\) instead of 5 × 4 × \(4 \+ 4\) = 160/,
      );
      assert.match(text, /50% less/);
      assert.match(text, /LLaMA 2 70B \(64 query heads, 8 kv heads, 80 layers: 320 KiB/);

      // kv heads = 3 does not divide 4 heads: an inline message says what to use, and no panel is left blank.
      await afterChange(page, () => page.fill('#kv-heads', '3'));
      await showLesson(page, 'step-gqa');
      assert.match(
        await page.textContent('#kv-heads-error'),
        /kv heads = 3 does not divide heads = 4.*Use one of 1, 2, 4/,
      );
      assert.equal(await page.isVisible('#mount-gqa'), false);
      assert.equal(await page.getAttribute('#kv-heads', 'aria-invalid'), 'true');
      await afterChange(page, () => page.fill('#kv-heads', '1'));
      await showLesson(page, 'step-gqa');
      assert.equal(await page.isVisible('#kv-heads-error'), false);
      assert.match(await page.textContent('#gqa-text'), /multi-query attention/);
      const one = attention64({ ...inputs, wk: columns(inputs.wk, 0, 4), wv: columns(inputs.wv, 0, 4), numKvHeads: 1 });
      assertShown(await readNumbers(page, 'gqaK0'), one.keys[0], PRECISION, 'K of the one kv head');
      await page.click('#copy-link');
      link = new URL(page.url()).hash;
      assert.match(link, /&kvh=1/);
    });
    await withPage(env, { hash: link, viewport: { width: 390, height: 844 } }, async ({ page }) => {
      await showLesson(page, 'step-gqa');
      assert.equal(await page.inputValue('#kv-heads'), '1');
      assert.equal(await page.$$eval('#mount-gqa-heads figure', (f) => f.length), 4);
      await page.focus('#kv-heads');
      await afterChange(page, () => page.keyboard.press('ArrowUp'));
      assert.equal(await page.inputValue('#kv-heads'), '2');
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      assert.ok(scrollWidth <= clientWidth, `page scrolls sideways (${scrollWidth} > ${clientWidth})`);
    });
  });
});

describe('lesson: cross-attention', () => {
  test('Q from the first sentence, K and V from the second: L_q × L_k weights and the output match float64', async () => {
    let link;
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="cross"]'));
      assert.equal(await page.getAttribute('button[data-example="cross"]', 'aria-pressed'), 'true');
      const inputs = await readInputs(page);
      await showLesson(page, 'step-cross');
      const context = await readNumbers(page, 'crossSource');
      assert.equal(context.length, 7);
      const want = attention64({ ...inputs, context });
      const weights = await readNumbers(page, 'crossWeights');
      assert.equal(weights.length, 6);
      assert.equal(weights[0].length, 7);
      assertShown(weights, want.weights[0], PRECISION, 'cross-attention weights');
      assertShown(await readNumbers(page, 'crossK'), want.keys[0], PRECISION, 'K of the second sentence');
      assertShown(await readNumbers(page, 'crossOutput'), want.output, PRECISION, 'cross-attention output');
      assert.match(await page.textContent('#cross-text'), /the weights are 6 × 7, not square/);

      // A second sentence of zero tokens: an inline message, never a blank panel.
      await afterChange(page, () => page.fill('#source', '   '));
      await showLesson(page, 'step-cross');
      assert.match(
        await page.textContent('#source-error'),
        /The second sentence has no tokens.*type at least one word/,
      );
      assert.equal(await page.isVisible('#mount-cross'), false);
      await afterChange(page, () => page.fill('#source', 'un chat'));
      await showLesson(page, 'step-cross');
      assert.equal(await page.isVisible('#source-error'), false);
      assert.equal((await readNumbers(page, 'crossWeights'))[0].length, 2);
      await page.click('#copy-link');
      link = new URL(page.url()).hash;
      assert.match(link, /&src=un\+chat/);
    });
    await withPage(env, { hash: link, viewport: { width: 390, height: 844 } }, async ({ page }) => {
      await showLesson(page, 'step-cross');
      assert.equal(await page.inputValue('#source'), 'un chat');
      const inputs = await readInputs(page);
      await showLesson(page, 'step-cross');
      const want = attention64({ ...inputs, context: await readNumbers(page, 'crossSource') });
      assertShown(await readNumbers(page, 'crossWeights'), want.weights[0], PRECISION, 'weights from the link');
      await page.focus('#source');
      await afterChange(page, () => page.keyboard.type(' noir'));
      await showLesson(page, 'step-cross');
      assert.equal((await readNumbers(page, 'crossWeights'))[0].length, 3);
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      assert.ok(scrollWidth <= clientWidth, `page scrolls sideways (${scrollWidth} > ${clientWidth})`);
    });
  });
});
