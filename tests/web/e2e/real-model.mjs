// Page test (run by run.mjs): the "Real model" source. The shipped induction model and a tiny checkpoint of each
// family (dropped as files) run on the page; the tokens, ids, predictions, model view, ablation and a head's walk
// through the steps are checked against attention-wasm/model run here in Node on the same files, at 1280 and 390 px,
// light and dark. Screenshots go to tests/artifacts/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../src/js/model/index.node.js';
import { bertFixture, gpt2Fixture, llamaFixture } from '../../js/model/fixtures.js';
import { byteLevelTokenizer, wordPieceTokenizer } from '../../js/model/tokenizers.js';
import { ARTIFACTS, ROOT, assertShown, readNumbers, settle, withPage } from './helpers.mjs';
import { PRECISION, env } from './session.mjs';

const INDUCTION = `${ROOT}web/public/models/induction`;
const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';
const INDUCTION_HEADS = [0, 1, 2, 3].map((h) => [1, h]);

/** Waits for the real model's next run to be drawn (body[data-model-runs] above `runs`). */
async function waitForRun(page, runs = 0) {
  await page.waitForFunction((n) => Number(document.body.dataset.modelRuns ?? 0) > n, runs, { timeout: 60000 });
}

const runs = (page) => page.evaluate(() => Number(document.body.dataset.modelRuns ?? 0));

/** The predictions table as { id, p, before?, change? } rows. */
async function readPredictions(page) {
  return page.$$eval('.predictions-table tbody tr', (rows) =>
    rows.map((row) => {
      const cells = [...row.querySelectorAll('td')].map((td) => td.textContent);
      return { id: Number(row.dataset.id), token: cells[1], p: Number(cells[3]), before: cells[4] && Number(cells[4]) };
    }),
  );
}

function assertPredictions(shown, expected, what) {
  assert.deepEqual(
    shown.map((r) => r.id),
    expected.map((r) => r.id),
    `${what}: the ids of the top tokens`,
  );
  shown.forEach((r, k) =>
    assert.ok(Math.abs(r.p - expected[k].p) <= 6e-4, `${what}: p of ${r.id}: ${r.p} against ${expected[k].p}`),
  );
}

async function openBuiltin(page) {
  await page.evaluate(() => document.getElementById('real-model-button').click());
  await waitForRun(page);
}

describe('real model', () => {
  test('the shipped model: tokens, ids, top 10, ablation of the induction heads, a head walked with its own numbers, the link', async () => {
    const model = await loadModel(INDUCTION);
    const plain = await model.run(SENTENCE, { topK: 10 });
    const ablated = await model.run(SENTENCE, { topK: 10, ablate: INDUCTION_HEADS });
    let link;
    await withPage(env, {}, async ({ page, problems }) => {
      const before = problems.requests.length;
      assert.equal(
        problems.requests.filter((u) => /model-simd|realModelPanel|model\.safetensors/u.test(u)).length,
        0,
        'the first load carries no model code',
      );
      await openBuiltin(page);
      assert.ok(problems.requests.slice(before).some((u) => /models\/induction\/model\.safetensors$/u.test(u)));
      assert.equal(await page.inputValue('#model-text'), SENTENCE);
      const ids = await page.$$eval('.model-tokens li', (items) => items.map((li) => Number(li.dataset.id)));
      assert.deepEqual(ids, plain.ids);
      const words = await page.$$eval('.model-tokens .token-text', (nodes) => nodes.map((n) => n.textContent));
      assert.deepEqual(words, plain.tokens);
      assertPredictions(await readPredictions(page), plain.next, 'all heads on');
      assert.equal((await readPredictions(page))[0].token, 'ball');
      assert.equal(await page.locator('.model-head canvas').count(), 8);
      assert.ok(await page.isVisible('.model-lesson'));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-1280.png`, fullPage: false });

      for (const [l, h] of INDUCTION_HEADS) {
        const n = await runs(page);
        await page.click(`.ablate-button[data-layer="${l}"][data-head="${h}"]`);
        await waitForRun(page, n);
      }
      const shown = await readPredictions(page);
      assertPredictions(shown, ablated.next, 'induction heads off');
      const ball = plain.next[0].id;
      assert.notEqual(shown[0].id, ball, '“ball” is no longer first');
      assert.ok(
        shown.every(
          (r) =>
            Math.abs(r.before - plain.next.find((t) => t.id === r.id)?.p) < 6e-4 ||
            !plain.next.some((t) => t.id === r.id),
        ),
      );
      assert.match(
        await page.textContent('#model-ablated'),
        /layer 2 head 1, layer 2 head 2, layer 2 head 3, layer 2 head 4/u,
      );
      assert.match(await page.textContent('.model-predictions'), /Left the list after the ablation: “␣?ball”/u);

      // Layer 1 head 3, the previous-token head, in the steps: the model's own numbers.
      const [cap] = (await model.run(SENTENCE, { capture: [{ layer: 0, head: 2 }], ablate: INDUCTION_HEADS })).captures;
      await page.click('.head-button[data-layer="0"][data-head="2"]');
      await page.waitForFunction(() =>
        /Layer 1 head 3 is in the steps/u.test(document.getElementById('model-walk').textContent),
      );
      await settle(page);
      for (const [matrix, key] of [
        ['weights', 'weights'],
        ['q', 'q'],
        ['rawScores', 'rawScores'],
        ['output', 'headOutput'],
      ]) {
        assertShown(await readNumbers(page, matrix), cap[key].toArray(), PRECISION, `layer 1 head 3 ${matrix}`);
      }
      assert.equal(await page.inputValue('#head'), '2');
      assert.ok(await page.isChecked('#causal'));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-walk-1280.png`, fullPage: false });
      await page.waitForTimeout(300); // the hash is written 250 ms after a change
      link = await page.evaluate(() => location.href);
      const url = new URL(link);
      assert.equal(url.searchParams.get('model'), 'builtin');
      assert.equal(url.searchParams.get('text'), SENTENCE);
      assert.equal(url.searchParams.get('layer'), '0');
      assert.equal(url.searchParams.get('head'), '2');
      assert.equal(url.searchParams.get('ablate'), '1.0,1.1,1.2,1.3');
      assert.doesNotMatch(link, /x=|wq=/u, 'the link holds no weights');
    });
    // The link reopens the same view: the model, the sentence, the ablations, the head in the steps.
    await withPage(env, { hash: link.slice(env.server.url.length) }, async ({ page }) => {
      await waitForRun(page);
      await page.waitForFunction(() =>
        /Layer 1 head 3 is in the steps/u.test(document.getElementById('model-walk').textContent),
      );
      await settle(page);
      assertPredictions(await readPredictions(page), ablated.next, 'reopened link');
      assert.equal(await page.getAttribute('.ablate-button[data-layer="1"][data-head="0"]', 'aria-pressed'), 'true');
      assert.equal(await page.inputValue('#head'), '2');
    });
  });

  test('390 px, dark: the shipped model, a head read with the keyboard, a sentence typed', async () => {
    const model = await loadModel(INDUCTION);
    const typed = 'the old tree saw a red ball . the old tree saw a red';
    const expected = await model.run(typed, { topK: 10 });
    await withPage(env, { viewport: { width: 390, height: 844 }, hasTouch: true }, async ({ page }) => {
      await page.emulateMedia({ colorScheme: 'dark' });
      await openBuiltin(page);
      await page.locator('.model-head canvas').nth(4).focus();
      await page.keyboard.press('ArrowRight');
      const readout = await page.textContent('.model-view .cm-readout');
      assert.match(readout, /layer 2 head 1: “the” \(row 1\) → “cat” \(column 2\)/u);
      await page.screenshot({ path: `${ARTIFACTS}/real-model-390-dark.png`, fullPage: false });
      const n = await runs(page);
      await page.fill('#model-text', typed);
      await waitForRun(page, n);
      assertPredictions(await readPredictions(page), expected.next, 'typed sentence');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide at 390`);
      await page.locator('#step-model .model-view').screenshot({ path: `${ARTIFACTS}/real-model-view-390-dark.png` });
    });
  });

  const families = {
    gpt2: () => {
      const merges = ['Ġ t', 'Ġt h', 'Ġth e', 'c a', 'ca t'];
      return { fixture: gpt2Fixture({ vocab: 262 }), tokenizer: byteLevelTokenizer(merges), text: 'cat the cat' };
    },
    bert: () => ({
      fixture: bertFixture({ vocab: 19 }),
      tokenizer: wordPieceTokenizer(['the', 'cat', 'sat', 'on', 'mat', '##s', 'dog', '.', 'a']),
      text: 'the cats sat on the [MASK] .',
    }),
    llama: () => ({ fixture: llamaFixture(), tokenizer: null, text: '5 1 7 3 9 2' }),
  };
  for (const [family, make] of Object.entries(families)) {
    test(`a tiny ${family} checkpoint dropped as files: its predictions and a head in the steps`, async () => {
      const { fixture, tokenizer, text } = make();
      const files = { ...fixture.files, ...(tokenizer ? { 'tokenizer.json': tokenizer } : {}) };
      const model = await loadModel(files);
      await withPage(env, { viewport: { width: 1280, height: 900 } }, async ({ page }) => {
        await page.evaluate(() => document.getElementById('real-model-button').click());
        await waitForRun(page); // the shipped model first
        const n = await runs(page);
        await page.setInputFiles(
          '#model-files',
          Object.entries(files).map(([name, data]) => ({
            name,
            mimeType: 'application/octet-stream',
            buffer: Buffer.from(data),
          })),
        );
        await page.waitForFunction((f) => document.getElementById('model-about').textContent.startsWith(f), family);
        await page.fill('#model-text', text);
        const input = tokenizer ? text : { ids: text.split(' ').map(Number) };
        const r = await model.run(input, { topK: 10 });
        await page.waitForFunction(
          (ids) => [...document.querySelectorAll('.model-tokens li')].map((li) => li.dataset.id).join() === ids.join(),
          r.ids,
        );
        await waitForRun(page, n);
        assert.deepEqual(
          await page.$$eval('.model-tokens li', (items) => items.map((li) => Number(li.dataset.id))),
          r.ids,
        );
        if (family === 'llama') {
          assert.match(await page.textContent('#model-about'), /^llama · 2 layers × 4 heads \(2 key\/value heads\)/u);
          assertPredictions(await readPredictions(page), r.next, family);
        } else if (family === 'gpt2') {
          assertPredictions(await readPredictions(page), r.next, family);
          assert.deepEqual(await page.$$eval('.model-tokens .token-text', (s) => s.map((x) => x.textContent)), [
            'cat',
            '␣the',
            '␣',
            'cat',
          ]);
        } else {
          const mask = r.ids.indexOf(4);
          const V = model.spec.vocabSize;
          const row = Array.from(r.logits.data.subarray(mask * V, (mask + 1) * V));
          const max = Math.max(...row);
          const sum = row.reduce((s, x) => s + Math.exp(x - max), 0);
          const top = row
            .map((x, id) => ({ id, p: Math.exp(x - max) / sum }))
            .sort((a, b) => b.p - a.p || a.id - b.id)
            .slice(0, 10);
          assertPredictions(await readPredictions(page), top, 'bert [MASK]');
        }
        await page.click('.head-button[data-layer="1"][data-head="1"]');
        await page.waitForFunction(() =>
          /Layer 2 head 2 is in the steps/u.test(document.getElementById('model-walk').textContent),
        );
        await settle(page);
        const [cap] = (await model.run(input, { capture: [{ layer: 1, head: 1 }] })).captures;
        if (family === 'llama') {
          // RoPE: q and k before and after the rotation, the model's own.
          assertShown(await readNumbers(page, 'qRotated'), cap.qRotated.toArray(), PRECISION, 'llama q rotated');
          assertShown(await readNumbers(page, 'kRotated'), cap.kRotated.toArray(), PRECISION, 'llama k rotated');
          assertShown(await readNumbers(page, 'q'), cap.q.toArray(), PRECISION, 'llama q (step 2, before RoPE)');
        }
        assertShown(
          await readNumbers(page, 'weights'),
          cap.weights.toArray(),
          PRECISION,
          `${family} layer 2 head 2 weights`,
        );
        assert.equal(await page.isChecked('#causal'), family !== 'bert');
        await page.screenshot({ path: `${ARTIFACTS}/real-model-${family}.png`, fullPage: false });
      });
    });
  }

  test('files that are not a model: a plain error naming the supported families, and the page keeps working', async () => {
    const fixture = gpt2Fixture();
    const config = JSON.stringify({ ...JSON.parse(fixture.files['config.json']), model_type: 't5' });
    await withPage(env, {}, async ({ page }) => {
      await page.evaluate(() => document.getElementById('real-model-button').click());
      await waitForRun(page);
      await page.setInputFiles('#model-files', [
        { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(config) },
        {
          name: 'model.safetensors',
          mimeType: 'application/octet-stream',
          buffer: Buffer.from(fixture.files['model.safetensors']),
        },
      ]);
      await page.waitForFunction(() => document.getElementById('model-error').textContent.length > 0);
      const message = await page.textContent('#model-error');
      assert.match(message, /UNSUPPORTED_MODEL/u);
      assert.match(message, /GPT-2 \(gpt2\), BERT \(bert\) and the LLaMA family/u);
      assert.equal(await page.locator('.model-head canvas').count(), 8, 'the shipped model stays');
    });
  });

  test('a GPT-2-small-shaped layout (12 layers × 12 heads) at 32 tokens: the model view is drawn (time printed)', async () => {
    const fixture = gpt2Fixture({ layers: 12, heads: 12, d: 48, vocab: 64, positions: 64 });
    const ids = Array.from({ length: 32 }, (_, i) => (i * 7) % 64);
    await withPage(env, { viewport: { width: 1280, height: 900 } }, async ({ page }) => {
      await page.evaluate(() => document.getElementById('real-model-button').click());
      await waitForRun(page);
      await page.setInputFiles(
        '#model-files',
        Object.entries(fixture.files).map(([name, data]) => ({
          name,
          mimeType: 'application/octet-stream',
          buffer: Buffer.from(data),
        })),
      );
      await page.waitForFunction(() =>
        document.getElementById('model-about').textContent.startsWith('gpt2 · 12 layers'),
      );
      const times = [];
      for (let k = 0; k < 3; k++) {
        const n = await runs(page);
        await page.fill('#model-text', ids.slice(k).concat(ids.slice(0, k)).join(' '));
        await waitForRun(page, n);
        times.push(Number(await page.evaluate(() => document.body.dataset.modelViewMs)));
      }
      assert.equal(await page.locator('.model-head canvas').count(), 144);
      console.log(
        `model view, 12 × 12 heads at 32 tokens: drawn in ${times.map((t) => t.toFixed(1)).join(', ')} ms after the forward`,
      );
      await page.screenshot({ path: `${ARTIFACTS}/real-model-144-heads.png`, fullPage: false });
    });
  });
});
