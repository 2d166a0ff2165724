// Page test (run by run.mjs): what the shipped model knows. The lesson's first paragraph follows the run (the word
// predicted and its p, on the lesson's sentence or another); words outside its 320-token vocabulary are marked in the
// tokens, named under them, and the vocabulary can be looked through. Checked against attention-wasm/model in Node.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { ARTIFACTS, withPage } from '../helpers.mjs';
import { INDUCTION, SENTENCE, openBuiltin, runs, waitForRun } from './helpers.mjs';
import { env } from '../session.mjs';

const OTHER = 'The quick brown fox jumps over the lazy dog near the old tree and the cat saw it';

describe('real model: the lesson follows the run; words the shipped model does not know', () => {
  test('the lesson’s p is the run’s, and another sentence gets its own top word, not “ball (p≈0.12)”', async () => {
    const model = await loadModel(INDUCTION);
    const lesson = (await model.run(SENTENCE, { topK: 1 })).next[0];
    const other = (await model.run(OTHER, { topK: 1 })).next[0];
    model.dispose();
    assert.equal(lesson.token, 'ball');
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      const lead = () => page.textContent('#model-lesson-lead > span');
      assert.equal(
        await lead(),
        `This model was trained here on sequences with repeats. The sentence repeats its start: after “the cat saw a red” comes “ball” the first time, so the model predicts “ball” again (the top word, p ≈ ${lesson.p.toFixed(2)}).`,
      );
      assert.equal(await page.isVisible('#model-lesson-lead button'), false, 'no way back needed');
      const n = await runs(page);
      await page.fill('#model-text', OTHER);
      await waitForRun(page, n);
      const said = await lead();
      assert.ok(said.includes(`its top next word is “${other.token}” (p ≈ ${other.p.toFixed(2)})`), said);
      assert.doesNotMatch(said, /p ≈ 0\.12/u);
      // Heads switched off: the lesson speaks of the run with every head on.
      const m = await runs(page);
      await page.click('.ablate-button[data-layer="1"][data-head="0"]');
      await waitForRun(page, m);
      assert.equal(await lead(), said);
      // That head opened in the steps says it is switched off (its weights at full colour there are still its own).
      await page.click('.head-button[data-layer="1"][data-head="0"]');
      await page.waitForFunction(() => /is in the steps/u.test(document.getElementById('model-walk').textContent));
      assert.match(await page.textContent('#model-walk'), /It is switched off: its weights are computed/u);
      const k = await runs(page);
      await page.click('#model-lesson-lead button');
      await waitForRun(page, k);
      assert.equal(await page.inputValue('#model-text'), SENTENCE);
      assert.match(await lead(), /so the model predicts “ball” again \(the top word, p ≈ 0\.\d\d\)\.$/u);
    });
  });

  test('words outside the vocabulary are marked in the tokens and named; the vocabulary can be looked through', async () => {
    const model = await loadModel(INDUCTION);
    const r = await model.run(OTHER, { topK: 1 });
    model.dispose();
    const unknown = r.rawTokens.flatMap((t, i) => (t === '<unk>' ? [i] : []));
    assert.ok(unknown.length >= 2, 'the sentence has words the model does not know');
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      assert.equal(await page.locator('.token-chip.unknown').count(), 0, 'the lesson’s words are all known');
      assert.equal(await page.isVisible('#model-unknown'), false);
      const n = await runs(page);
      await page.fill('#model-text', OTHER);
      await waitForRun(page, n);
      const marked = await page.$$eval('.model-tokens li', (items) =>
        items.flatMap((li, i) => (li.querySelector('.token-chip.unknown') ? [[i, li.dataset.unknown]] : [])),
      );
      assert.deepEqual(
        marked.map(([i]) => i),
        unknown,
        'the <unk> tokens are the ones marked',
      );
      assert.deepEqual(
        marked.map(([, word]) => word),
        ['quick', 'jumps', 'lazy'],
      );
      const note = await page.textContent('#model-unknown');
      assert.equal(
        note,
        `3 words are not in this model's vocabulary of 320 tokens: “quick”, “jumps”, “lazy”. The model reads each as <unk> (id 1), all alike, so it cannot tell them apart: they are marked in the tokens. Its vocabulary is listed below.`,
      );
      assert.match(await page.getAttribute('.token-chip.unknown', 'title'), /“quick” is not in the vocabulary/u);
      await page.locator('.model-tokens').screenshot({ path: `${ARTIFACTS}/real-model-unknown-words.png` });
      await page.click('.model-vocab summary');
      assert.match(await page.textContent('.model-vocab summary'), /the 320 tokens this model knows/u);
      assert.equal(await page.locator('.vocab-list li').count(), 320);
      await page.fill('#model-vocab-find', 'bal');
      await page.waitForFunction(() => document.querySelectorAll('.vocab-list li').length < 320);
      const found = await page.$$eval('.vocab-list li', (items) => items.map((li) => li.textContent));
      assert.ok(found.includes('ball') && found.every((t) => t.includes('bal')), found.join(' '));
      // “jumps” is not there, “jumped” is: the reader sees which form the model knows.
      await page.fill('#model-vocab-find', 'jump');
      await page.waitForFunction(() => document.querySelectorAll('.vocab-list li').length === 1);
      assert.equal(await page.textContent('.vocab-list li'), 'jumped');
      await page.fill('#model-vocab-find', 'lazy');
      await page.waitForFunction(() => document.querySelectorAll('.vocab-list li').length === 0);
      assert.match(await page.textContent('.model-vocab [role="status"]'), /^0 tokens match\.$/u);
    });
  });
});
