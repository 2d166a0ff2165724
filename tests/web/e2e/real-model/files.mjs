// Page test (run by run.mjs): the "Real model" source on dropped files: a tiny checkpoint of each family (GPT-2 in
// dark mode, BERT and DistilBERT at 390 px, LLaMA and Phi-3 without tokenizer.json), files that are not a model, and a GPT-2-small-shaped
// layout of 12 × 12 heads at 32 tokens (the model view's drawing time printed). Numbers are checked against
// attention-wasm/model run here in Node on the same files.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SUPPORTED_FAMILIES, loadModel } from '../../../../src/js/model/index.node.js';
import { bertFixture, gpt2Fixture, llamaFixture } from '../../../js/model/fixtures.js';
import { distilbertFixture, phi3Fixture } from '../../../js/model/fixtures-families.js';
import { byteLevelTokenizer, wordPieceTokenizer } from '../../../js/model/tokenizers.js';
import { ARTIFACTS, assertShown, readNumbers, settle, withPage } from '../helpers.mjs';
import { assertPredictions, dropAsFiles, readPredictions, runs, topOfRow, waitForRun } from './helpers.mjs';
import { PRECISION, env } from '../session.mjs';

describe('real model: dropped files', () => {
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
    // BERT's computation under DistilBERT's names (q_lin … out_lin, vocab_projector), no token types
    distilbert: () => ({
      fixture: distilbertFixture({ vocab: 19 }),
      tokenizer: wordPieceTokenizer(['the', 'cat', 'sat', 'on', 'mat', '##s', 'dog', '.', 'a']),
      text: 'the cats sat on the [MASK] .',
    }),
    llama: () => ({ fixture: llamaFixture(), tokenizer: null, text: '5 1 7 3 9 2' }),
    // fused qkv_proj and gate_up_proj, GQA, partial rotary
    phi3: () => ({ fixture: phi3Fixture({ kvHeads: 2, partial: 0.5 }), tokenizer: null, text: '5 1 7 3 9 2' }),
  };
  for (const [family, make] of Object.entries(families)) {
    test(`a tiny ${family} checkpoint dropped as files: its predictions and a head in the steps`, async () => {
      const { fixture, tokenizer, text } = make();
      const masked = family === 'bert' || family === 'distilbert'; // a masked-LM encoder
      const files = { ...fixture.files, ...(tokenizer ? { 'tokenizer.json': tokenizer } : {}) };
      const model = await loadModel(files);
      // GPT-2 in dark mode, BERT at 390 px, LLaMA at 1280 px light.
      const viewport = masked ? { width: 390, height: 844 } : { width: 1280, height: 900 };
      await withPage(env, { viewport }, async ({ page }) => {
        if (family === 'gpt2') await page.emulateMedia({ colorScheme: 'dark' });
        await page.evaluate(() => document.getElementById('real-model-button').click());
        await waitForRun(page); // the shipped model first
        const n = await runs(page);
        await dropAsFiles(page, files);
        await page.waitForFunction(
          (f) =>
            document.getElementById('model-about').textContent.startsWith(f) &&
            document.getElementById('model-about').textContent.endsWith('files'),
          family,
        );
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
        if (family === 'llama' || family === 'phi3') {
          const about = new RegExp(`^${family} · 2 layers × 4 heads \\(2 key\\/value heads\\)`, 'u');
          assert.match(await page.textContent('#model-about'), about);
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
          assertPredictions(await readPredictions(page), topOfRow(r.logits, mask), 'bert [MASK]');
          // A token clicked is masked: the predictions are then the model's for that position.
          const ids = r.ids.slice();
          ids[2] = 4;
          const clicked = await model.run({ ids }, { topK: 10 });
          const m = await runs(page);
          await page.click('.token-chip[data-index="2"]');
          await waitForRun(page, m);
          assert.equal(await page.getAttribute('.token-chip[data-index="2"]', 'aria-pressed'), 'true');
          assertPredictions(await readPredictions(page), topOfRow(clicked.logits, 2), 'bert, token 3 clicked');
        }
        await page.click('.head-button[data-layer="1"][data-head="1"]');
        await page.waitForFunction(() =>
          /L1H1 \(layer 1 head 1\) is in the steps/u.test(document.getElementById('model-walk').textContent),
        );
        await settle(page);
        const [cap] = (
          await model.run(masked ? { ids: [...r.ids.slice(0, 2), 4, ...r.ids.slice(3)] } : input, {
            capture: [{ layer: 1, head: 1 }],
          })
        ).captures;
        if (family === 'llama' || family === 'phi3') {
          // RoPE: q and k before and after the rotation, the model's own.
          assertShown(await readNumbers(page, 'qRotated'), cap.qRotated.toArray(), PRECISION, 'llama q rotated');
          assertShown(await readNumbers(page, 'kRotated'), cap.kRotated.toArray(), PRECISION, 'llama k rotated');
          assertShown(await readNumbers(page, 'q'), cap.q.toArray(), PRECISION, 'llama q (step 2, before RoPE)');
        }
        assertShown(
          await readNumbers(page, 'weights'),
          cap.weights.toArray(),
          PRECISION,
          `${family} layer 1 head 1 weights`,
        );
        assert.equal(await page.isChecked('#causal'), !masked);
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
      // every family the package runs, from its SUPPORTED_FAMILIES: the page keeps no list of its own
      for (const { label, modelTypes } of SUPPORTED_FAMILIES) {
        assert.ok(message.includes(`${label} (${modelTypes.join(', ')})`), `${label} in: ${message}`);
      }
      assert.match(await page.textContent('#step-model'), /tokenizer\.json of a checkpoint of GPT-2 \(gpt2\), BERT/u);
      assert.equal(await page.locator('.model-head canvas').count(), 8, 'the shipped model stays');
    });
  });

  test('a GPT-2-small-shaped layout (12 layers × 12 heads) at 32 tokens: the model view is drawn (time printed)', async () => {
    const fixture = gpt2Fixture({ layers: 12, heads: 12, d: 48, vocab: 64, positions: 64 });
    const ids = Array.from({ length: 32 }, (_, i) => (i * 7) % 64);
    await withPage(env, { viewport: { width: 1280, height: 900 } }, async ({ page }) => {
      await page.evaluate(() => document.getElementById('real-model-button').click());
      await waitForRun(page);
      await dropAsFiles(page, fixture.files);
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
      await page.evaluate(() => document.querySelector('.model-view').scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-144-heads.png`, fullPage: false });
    });
  });

  test('a LLaMA folder without tokenizer.json after a GPT-2 folder: everything shown is the LLaMA’s; words ask for ids', async () => {
    const merges = ['Ġ t', 'Ġt h', 'Ġth e', 'c a', 'ca t'];
    const gpt2 = { ...gpt2Fixture({ vocab: 262 }).files, 'tokenizer.json': byteLevelTokenizer(merges) };
    const llamaFiles = llamaFixture().files;
    const llama = await loadModel(llamaFiles);
    const ids = [1, 2, 3, 4, 5, 6]; // the page's first ids for a model without a tokenizer
    const expected = await llama.run({ ids }, { topK: 10 });
    await withPage(env, { viewport: { width: 1280, height: 900 } }, async ({ page }) => {
      await page.evaluate(() => document.getElementById('real-model-button').click());
      await waitForRun(page);
      await dropAsFiles(page, gpt2);
      // The dropped model's line (the shipped model's starts with gpt2 too), then the load's own run (the sentence
      // the page gives a new model, too long for this model's 16 positions) fails, saying so
      await page.waitForFunction(() =>
        /^gpt2 .*vocabulary 262/u.test(document.getElementById('model-about').textContent),
      );
      await page.waitForFunction(() => /TOO_MANY_TOKENS/u.test(document.getElementById('model-error').textContent));
      let n = await runs(page);
      await page.fill('#model-text', 'the cat the cat');
      await waitForRun(page, n);
      n = await runs(page);
      await dropAsFiles(page, llamaFiles);
      await waitForRun(page, n);
      assert.match(await page.textContent('#model-about'), /^llama · 2 layers × 4 heads/u);
      assert.equal(await page.textContent('#model-error'), '', 'no error');
      assert.equal(await page.inputValue('#model-text'), ids.join(' '));
      assert.equal(await page.$eval('#model-text', (input) => input.closest('label').textContent), 'Token ids');
      assert.match(await page.textContent('#model-ids-hint'), /no tokenizer\.json.*token ids/u);
      assert.deepEqual(await page.$$eval('.model-tokens li', (items) => items.map((li) => Number(li.dataset.id))), ids);
      assertPredictions(await readPredictions(page), expected.next, 'the LLaMA’s prediction');
      assert.equal(await page.locator('.model-head canvas').count(), 2 * 4, 'the LLaMA’s heads');
      await page.screenshot({ path: `${ARTIFACTS}/real-model-llama-after-gpt2.png` });

      // Words typed for it: it says ids are needed (no BAD_OPTION), and what is shown stays the LLaMA's.
      await page.fill('#model-text', 'the cat sat');
      await page.waitForFunction(() => document.getElementById('model-error').textContent.length > 0);
      const message = await page.textContent('#model-error');
      assert.match(message, /no tokenizer\.json.*type token ids instead/u);
      assert.doesNotMatch(message, /BAD_OPTION/u);
      assert.equal(await page.getAttribute('#model-text', 'aria-invalid'), 'true');
      assert.deepEqual(await page.$$eval('.model-tokens li', (items) => items.map((li) => Number(li.dataset.id))), ids);
      assert.match(await page.textContent('#model-about'), /^llama/u);
      await page.screenshot({ path: `${ARTIFACTS}/real-model-llama-words.png` });
      n = await runs(page);
      await page.fill('#model-text', '7 3 9');
      await waitForRun(page, n);
      assert.equal(await page.textContent('#model-error'), '');
      assert.equal(await page.getAttribute('#model-text', 'aria-invalid'), 'false');
      assertPredictions(await readPredictions(page), (await llama.run({ ids: [7, 3, 9] }, { topK: 10 })).next, '7 3 9');
    });
  });

  test('a link made with dropped files says to drop them again, and keeps its sentence for them', async () => {
    await withPage(env, { hash: '?model=files&text=cat%20the%20cat&ablate=1.0' }, async ({ page }) => {
      await page.waitForFunction(() =>
        /drop or pick the same folder again/u.test(document.getElementById('model-status').textContent),
      );
      assert.equal(await page.inputValue('#model-text'), 'cat the cat');
      assert.equal(await page.locator('.model-head canvas').count(), 0, 'nothing is loaded in their place');
      const merges = ['Ġ t', 'Ġt h', 'Ġth e', 'c a', 'ca t'];
      const fixture = gpt2Fixture({ vocab: 262 });
      const files = { ...fixture.files, 'tokenizer.json': byteLevelTokenizer(merges) };
      const model = await loadModel(files);
      const r = await model.run('cat the cat', { topK: 10, ablate: [[1, 0]] });
      await dropAsFiles(page, files);
      await waitForRun(page);
      assert.equal(await page.getAttribute('.ablate-button[data-layer="1"][data-head="0"]', 'aria-pressed'), 'true');
      assertPredictions(await readPredictions(page), r.next, 'the link’s sentence and ablation on the dropped files');
      const n = await runs(page);
      await page.click('text=Switch every head on');
      await waitForRun(page, n);
      assertPredictions(
        await readPredictions(page),
        (await model.run('cat the cat', { topK: 10 })).next,
        'all on again',
      );
      assert.match(await page.textContent('#model-ablated'), /Every head is on/u);
    });
  });
});
