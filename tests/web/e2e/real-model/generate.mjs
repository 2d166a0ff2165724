// Page test (run by run.mjs): generation on the real model (the shipped induction model): Step and Run, each step's
// token, p and alternatives, and its query row against the KV cache for the chosen layer and head, checked against
// model.generate() run here in Node with the same settings; a seeded sampled generation and its link; a new
// sentence cancels; 1280 and 390 px, light and dark; BERT hides the control. Screenshots: tests/artifacts/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { bertFixture, llamaFixture } from '../../../js/model/fixtures.js';
import { wordPieceTokenizer } from '../../../js/model/tokenizers.js';
import { ARTIFACTS, withPage } from '../helpers.mjs';
import { INDUCTION, SENTENCE, dropAsFiles, openBuiltin } from './helpers.mjs';
import { env } from '../session.mjs';

const SAMPLED = { maxNewTokens: 6, temperature: 1.2, topK: 20, topP: 0.9, seed: 7 };

/** Every step of model.generate() in Node (the public API), with the page's settings. */
async function expected(model, input, settings) {
  const steps = [];
  for await (const step of model.generate(input, { ...settings, next: 5 })) steps.push(step);
  return steps;
}

async function waitForSteps(page, count) {
  await page.waitForFunction((n) => Number(document.body.dataset.genSteps ?? 0) >= n, count, { timeout: 60000 });
}

const shownIds = (page) => page.$$eval('.gen-tokens li', (items) => items.map((li) => Number(li.dataset.id)));

/** The row shown: each cell's weight and whether its key was cached, new or computed in the prefill. */
const shownRow = (page) =>
  page.$$eval('.gen-row .gen-cell', (cells) =>
    cells.map((c) => ({ weight: Number(c.dataset.weight), key: c.dataset.key })),
  );

/** The step's attention row for (layer, head), as generate() gives it ([H, 1, n] per layer). */
function rowOf(step, layer, head) {
  const a = step.attentions[layer];
  const n = a.shape[2];
  return Array.from(a.data.subarray(head * n, (head + 1) * n));
}

function assertRow(shown, step, layer, head, what) {
  const row = rowOf(step, layer, head);
  assert.equal(shown.length, row.length, `${what}: one cell per token so far`);
  shown.forEach((cell, j) =>
    assert.ok(Math.abs(cell.weight - row[j]) < 1e-6, `${what}: cell ${j}: ${cell.weight} against ${row[j]}`),
  );
  const keys = shown.map((c) => c.key);
  if (step.step === 0)
    assert.ok(
      keys.every((k) => k === 'prefill'),
      `${what}: the prefill computes every key`,
    );
  else assert.deepEqual(keys, [...Array(row.length - 1).fill('cached'), 'new'], `${what}: cached keys, one new`);
}

describe('real model: generation with the KV cache', () => {
  test('1280 px: Step, the row against the cache for a chosen head, Run, a seeded sampled run, its link, a new sentence cancels', async () => {
    const model = await loadModel(INDUCTION);
    const greedy = await expected(model, SENTENCE, { maxNewTokens: 8 });
    const sampled = await expected(model, SENTENCE, SAMPLED);
    let link;
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      assert.ok(await page.isVisible('#model-generate .gen-body'));
      assert.equal(await page.isVisible('#gen-reason'), false);
      await page.click('#gen-step');
      await waitForSteps(page, 1);
      assert.deepEqual(await shownIds(page), [greedy[0].id]);
      assert.equal(await page.textContent('.gen-p'), greedy[0].p.toFixed(3));
      assert.match(await page.textContent('.gen-detail'), /Step 1: “␣?ball”/u);
      assertRow(await shownRow(page), greedy[0], 1, 0, 'step 1, layer 1 head 0');
      assert.match(await page.textContent('.gen-row-text'), /prefill/u);
      await page.click('#gen-step');
      await waitForSteps(page, 2);
      assert.deepEqual(
        await shownIds(page),
        greedy.slice(0, 2).map((s) => s.id),
      );
      assertRow(await shownRow(page), greedy[1], 1, 0, 'step 2, layer 1 head 0');
      assert.match(await page.textContent('.gen-row-text'), /read from the cache/u);
      const alternatives = await page.textContent('.gen-alternatives');
      for (const t of greedy[1].next) assert.ok(alternatives.includes(t.p.toFixed(3)), `alternative ${t.id}`);
      // Another head: the same step's row for layer 0 head 2 (the previous-token head).
      await page.selectOption('#gen-layer', { value: '0' });
      await page.selectOption('#gen-head', { value: '2' });
      assertRow(await shownRow(page), greedy[1], 0, 2, 'step 2, layer 0 head 2');
      await page.click('#gen-run');
      await waitForSteps(page, 8);
      assert.deepEqual(
        await shownIds(page),
        greedy.map((s) => s.id),
        'Run: the greedy tokens',
      );
      assertRow(await shownRow(page), greedy[7], 0, 2, 'step 8, layer 0 head 2');
      assert.match(
        await page.textContent('#gen-status'),
        /8 tokens generated, greedy.*took \d+ ms \(Step or Run starts again/u,
      );
      // An earlier step, picked among the tokens.
      await page.click('.gen-tokens li:nth-child(3) button');
      assertRow(await shownRow(page), greedy[2], 0, 2, 'step 3 picked');
      await page.locator('#model-generate').screenshot({ path: `${ARTIFACTS}/real-model-generate-1280.png` });
      await page.click('#gen-step'); // after the last step: a new generation
      await page.waitForFunction(() => /^1 token generated/u.test(document.getElementById('gen-status').textContent));
      assert.deepEqual(await shownIds(page), [greedy[0].id]);

      // Sampled and seeded: the settings change, the generation starts again, the link holds the settings.
      for (const [key, value] of Object.entries(SAMPLED)) await page.fill(`#gen-${key}`, String(value));
      assert.equal((await shownIds(page)).length, 0, 'new settings empty the generation');
      await page.selectOption('#gen-layer', { value: '1' });
      await page.selectOption('#gen-head', { value: '3' });
      await page.click('#gen-run');
      await page.waitForFunction(() => /6 tokens generated/u.test(document.getElementById('gen-status').textContent));
      assert.deepEqual(
        await shownIds(page),
        sampled.map((s) => s.id),
        'the sampled tokens',
      );
      assertRow(await shownRow(page), sampled[5], 1, 3, 'sampled step 6, layer 1 head 3');
      assert.match(await page.textContent('#gen-status'), /temperature 1\.2, top-k 20, top-p 0\.9, seed 7/u);
      link = await page.evaluate(() => location.href);
      const params = new URL(link).searchParams;
      assert.deepEqual(
        ['gen', 'gentemp', 'gentopk', 'gentopp', 'genseed'].map((k) => params.get(k)),
        ['6', '1.2', '20', '0.9', '7'],
      );
      assert.equal(params.get('model'), 'builtin');
      assert.ok(!sampled.some((s) => link.includes(`${s.id},`)), 'the link holds no token ids');

      // A new sentence cancels the generation.
      await page.fill('#model-text', 'the old tree saw a red ball . the old tree');
      await page.waitForFunction(() => /sentence changed/u.test(document.getElementById('gen-status').textContent));
      assert.equal((await shownIds(page)).length, 0);
    });
    // The link reproduces the same generation: the settings are filled in and run.
    const sentence = new URL(link).searchParams.get('text');
    assert.equal(sentence, SENTENCE);
    await withPage(env, { hash: link.slice(env.server.url.length) }, async ({ page }) => {
      await waitForSteps(page, 6);
      assert.deepEqual(
        await shownIds(page),
        sampled.map((s) => s.id),
        'the link reproduces the tokens',
      );
      assert.equal(await page.inputValue('#gen-seed'), '7');
      assert.equal(await page.inputValue('#gen-temperature'), '1.2');
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.locator('#model-generate').screenshot({ path: `${ARTIFACTS}/real-model-generate-1280-dark.png` });
    });
  });

  test('390 px, light then dark: Step and Run fit the width, Stop halts a run; BERT hides the control and says why', async () => {
    const model = await loadModel(INDUCTION);
    const greedy = await expected(model, SENTENCE, { maxNewTokens: 8 });
    await withPage(env, { viewport: { width: 390, height: 844 }, hasTouch: true }, async ({ page }) => {
      await openBuiltin(page);
      await page.click('#gen-step');
      await waitForSteps(page, 1);
      await page.locator('#model-generate').screenshot({ path: `${ARTIFACTS}/real-model-generate-390.png` });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.click('#gen-run');
      await waitForSteps(page, 8);
      assert.deepEqual(
        await shownIds(page),
        greedy.map((s) => s.id),
      );
      assertRow(await shownRow(page), greedy[7], 1, 0, '390 px: step 8');
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `the page is ${width} px wide at 390`);
      await page.locator('#model-generate').screenshot({ path: `${ARTIFACTS}/real-model-generate-390-dark.png` });
      // Run, then Stop before the first step ends: the generation halts after that step and can go on.
      await page.fill('#gen-maxNewTokens', '64');
      await page.evaluate(() => {
        document.getElementById('gen-run').click();
        document.getElementById('gen-stop').click();
      });
      await page.waitForFunction(() => /Step or Run for more/u.test(document.getElementById('gen-status').textContent));
      assert.deepEqual(await shownIds(page), [greedy[0].id], 'Stop: one step');
      await page.click('#gen-step');
      await page.waitForFunction(() => /^2 tokens generated/u.test(document.getElementById('gen-status').textContent));
      assert.deepEqual(
        await shownIds(page),
        greedy.slice(0, 2).map((s) => s.id),
      );

      const tokenizer = wordPieceTokenizer(['the', 'cat', 'sat', 'on', 'mat', '##s', 'dog', '.', 'a']);
      await dropAsFiles(page, { ...bertFixture({ vocab: 19 }).files, 'tokenizer.json': tokenizer });
      await page.waitForFunction(() => document.getElementById('model-about').textContent.startsWith('bert'));
      assert.ok(await page.isVisible('#gen-reason'));
      assert.match(await page.textContent('#gen-reason'), /decoder.*BERT/su);
      assert.equal(await page.isVisible('#model-generate .gen-body'), false);
      assert.equal((await shownIds(page)).length, 0, 'the shipped model’s generation is gone');
    });
  });

  test('a LLaMA-family checkpoint without tokenizer.json (RoPE, grouped-query heads): ids typed, generated and shown', async () => {
    const fixture = llamaFixture();
    const model = await loadModel(fixture.files);
    const ids = [5, 1, 7, 3, 9, 2];
    const greedy = await expected(model, { ids }, { maxNewTokens: 8 });
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await dropAsFiles(page, fixture.files);
      await page.waitForFunction(() => document.getElementById('model-about').textContent.startsWith('llama'));
      await page.fill('#model-text', ids.join(' '));
      await page.waitForFunction((t) => document.querySelectorAll('.model-tokens li').length === t, ids.length);
      await page.click('#gen-run');
      await page.waitForFunction(() => /^8 tokens generated/u.test(document.getElementById('gen-status').textContent));
      assert.deepEqual(
        await shownIds(page),
        greedy.map((s) => s.id),
      );
      await page.selectOption('#gen-head', { value: '3' });
      assertRow(await shownRow(page), greedy[7], 1, 3, 'llama step 8, layer 1 head 3');
      assert.match(await page.textContent('.gen-row'), /^5/u, 'without a tokenizer the cells name the ids');
    });
  });
});
