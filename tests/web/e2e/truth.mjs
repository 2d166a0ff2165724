// Page tests (run by run.mjs): one answer per question and texts that follow the numbers. Grouped-query attention
// in every step, a loaded grouped-query model run as one, texts after a file is loaded, the tensor chooser, the
// random-weights note that calls chance only what is chance, a guessed head count said to be one, and tokenizers'
// space markers.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterChange, assertShown, readMatrix, readNumbers, showLesson, withPage } from './helpers.mjs';
import { columns, exampleReference } from './reference64.mjs';
import { dropFiles, gpt2Files, llamaFiles, neoxFiles, plainNpz, randomRows } from './model-files.mjs';
import { PRECISION, env } from './session.mjs';

describe('grouped-query attention in every step', () => {
  test('the "Grouped-query" example, head 2: W_k, K, the weights and the layer output are those of kv head 1', async () => {
    const { m, state, ref } = exampleReference('gqa');
    const { dK, dV } = state;
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="gqa"]'));
      await afterChange(page, () => page.selectOption('#head', '2'));
      assertShown(await readNumbers(page, 'wk'), columns(m.wk, dK, dK), PRECISION, 'W_k of kv head 1');
      const note = (name) => page.textContent(`[data-matrix="${name}"] .matrix-note`);
      assert.equal((await readMatrix(page, 'wk')).title, 'W_k (kv head 1)');
      assert.equal(await note('wk'), 'shared by heads 2 and 3 · weights · editable');
      assertShown(await readNumbers(page, 'wv'), columns(m.wv, dV, dV), PRECISION, 'W_v of kv head 1');
      assertShown(await readNumbers(page, 'wq'), columns(m.wq, 2 * dK, dK), PRECISION, 'W_q of head 2');
      assert.equal((await readMatrix(page, 'k')).title, 'K (kv head 1)');
      assert.equal(await note('k'), 'shared by heads 2 and 3 · keys');
      assert.equal(await note('wq'), 'weights · editable');
      assertShown(await readNumbers(page, 'k'), ref.keys[1], PRECISION, 'K of kv head 1');
      assertShown(await readNumbers(page, 'weights'), ref.weights[2], PRECISION, 'head 2 weights');
      assertShown(await readNumbers(page, 'vOut'), ref.values[1], PRECISION, 'V of kv head 1 in step 7');
      assertShown(await readNumbers(page, 'output'), ref.heads[2], PRECISION, 'head 2 output');
      assertShown(await readNumbers(page, 'layerOutput'), ref.output, PRECISION, 'layer output');
      assert.match(await page.textContent('#qkv-heads-note'), /4–7 of W_k and 4–7 of W_v, the block of kv head 1/u);
      assert.match(await page.textContent('#heads-text'), /each group of 2 heads shares one block of W_k and W_v/u);
      assert.doesNotMatch(await page.textContent('#heads-text'), /Each head has its own blocks of W_q, W_k and W_v/u);
      assert.equal(await page.textContent('#mount-heads .head-figure:nth-child(3) button'), 'head 2 · K, V 1');
      // Step 13 shows the same K for kv head 1: one answer.
      await showLesson(page, 'step-gqa');
      assertShown(await readNumbers(page, 'gqaK1'), ref.keys[1], PRECISION, "step 13's K of kv head 1");
    });
  });
});

describe('a loaded grouped-query model', () => {
  test('a LLaMA-style layer with 4 heads and 2 kv heads runs as grouped-query attention; "▁" leaves the labels', async () => {
    const { file, json, ref, dK, wk } = llamaFiles();
    await withPage(env, {}, async ({ page }) => {
      await dropFiles(page, [
        { name: 'layer.safetensors', data: file },
        { name: 'config.json', data: json },
      ]);
      await page.waitForFunction(() => !document.querySelector('.model-panel button').disabled);
      await afterChange(page, () => page.click('.model-panel button'));
      await afterChange(page, () => page.selectOption('#head', '3'));
      assertShown(await readNumbers(page, 'wk'), columns(wk, dK, dK), PRECISION, 'W_k of kv head 1');
      assertShown(await readNumbers(page, 'k'), ref.keys[1], PRECISION, 'K of kv head 1');
      assertShown(await readNumbers(page, 'weights'), ref.weights[3], PRECISION, 'head 3 weights');
      assertShown(await readNumbers(page, 'layerOutput'), ref.output, PRECISION, 'layer output');
      await showLesson(page, 'step-gqa');
      assert.equal(await page.inputValue('#kv-heads'), '2');
      assert.match(await page.textContent('#gqa-text'), /^With 2 kv heads for 4 query heads/u);
      assert.equal((await readMatrix(page, 'gqaK0')).title, 'K of kv head 0');
      assertShown(await readNumbers(page, 'gqaK0'), ref.keys[0], PRECISION, "step 13's K of kv head 0");
      assertShown(await readNumbers(page, 'gqaK1'), ref.keys[1], PRECISION, "step 13's K of kv head 1");
      assert.match(await page.textContent('.model-panel [role="status"]'), /sharing 2 key\/value heads/u);
      assert.equal(await page.inputValue('#sentence'), '<s> The cat sat on the');
    });
  });
});

describe('a loaded GPT-NeoX layer', () => {
  test("Pythia's query_key_value, laid out by head, is cut as its family file says: each head's W_q, W_k, W_v", async () => {
    const { file, json, ref, dK, wq, wk, wv } = neoxFiles();
    await withPage(env, {}, async ({ page }) => {
      await dropFiles(page, [
        { name: 'layer.safetensors', data: file },
        { name: 'config.json', data: json },
      ]);
      await page.waitForFunction(() => !document.querySelector('.model-panel button').disabled);
      assert.match(await page.textContent('.model-panel'), /GPT-NeoX \(q, k and v fused by head/u);
      await afterChange(page, () => page.click('.model-panel button'));
      await afterChange(page, () => page.selectOption('#head', '2'));
      assertShown(await readNumbers(page, 'wq'), columns(wq, 2 * dK, dK), PRECISION, 'W_q of head 2');
      assertShown(await readNumbers(page, 'wk'), columns(wk, 2 * dK, dK), PRECISION, 'W_k of head 2');
      assertShown(await readNumbers(page, 'wv'), columns(wv, 2 * dK, dK), PRECISION, 'W_v of head 2');
      assertShown(await readNumbers(page, 'weights'), ref.weights[2], PRECISION, 'head 2 weights');
      assertShown(await readNumbers(page, 'layerOutput'), ref.output, PRECISION, 'layer output');
    });
  });
});

describe('texts follow where the numbers came from', () => {
  test('after a GPT-2 file is loaded, no text says its numbers are random from the seed', async () => {
    const { file, json } = gpt2Files();
    await withPage(env, {}, async ({ page }) => {
      assert.match(await page.textContent('#step-x'), /random from the seed/u);
      await dropFiles(page, [
        { name: 'layer.safetensors', data: file },
        { name: 'tokens.json', data: json },
      ]);
      await page.waitForFunction(() => !document.querySelector('.model-panel button').disabled);
      await afterChange(page, () => page.click('.model-panel button'));
      const step1 = await page.textContent('#step-x');
      assert.doesNotMatch(step1, /random from the seed/u);
      assert.match(step1, /Here X is read from your model's file/u);
      const projection = await page.textContent('#projection-text');
      assert.doesNotMatch(projection, /random/u);
      assert.match(projection, /Here W_o is read from your model's file/u);
      assert.equal(await page.textContent('#random-note'), '');
      assert.doesNotMatch(await page.textContent('#heads-text'), /random/u);
      assert.match(await page.textContent('#designed-off'), /X, W_q and W_k are read from your model's file/u);
      await showLesson(page, 'step-cross');
      assert.doesNotMatch(await page.textContent('#cross-text'), /The weights here are random/u);
    });
  });
});

describe('the tensor chooser', () => {
  test("a plain .npz of attention-wasm's own names (x, wq, wk, wv, wo) is recognised and loads", async () => {
    const { file, ref } = await plainNpz();
    await withPage(env, {}, async ({ page }) => {
      await dropFiles(page, [{ name: 'layer.npz', data: file }]);
      await page.waitForFunction(() => document.querySelectorAll('.model-panel .mp-list li').length === 5);
      const mapping = await page.textContent('.model-panel .mp-mapping');
      assert.match(mapping, /layout: attention-wasm's own names/u);
      assert.doesNotMatch(mapping, /No known layout/u);
      await page.fill('.model-panel input[type="number"]', '2');
      await afterChange(page, () => page.click('.model-panel button'));
      await afterChange(page, () => page.selectOption('#head', '1'));
      assertShown(await readNumbers(page, 'weights'), ref.weights[1], PRECISION, 'head 1 weights');
      assertShown(await readNumbers(page, 'layerOutput'), ref.output, PRECISION, 'layer output');
    });
  });

  test('a single .npy of an unknown name: choose it as X in a labelled select; the weights come from the seed', async () => {
    const x = randomRows(4, 8, 1, { value: 5 });
    const { npy } = await plainNpz();
    await withPage(env, {}, async ({ page }) => {
      await dropFiles(page, [{ name: 'embeddings.npy', data: npy(x) }]);
      await page.waitForFunction(() => document.querySelectorAll('.model-panel .mp-list li').length === 1);
      assert.match(
        await page.textContent('.model-panel .mp-mapping'),
        /No known layout was recognised: choose each tensor below/u,
      );
      const chooseX = page.getByLabel('X (hidden states entering attention)');
      assert.equal(await chooseX.isVisible(), true, 'a chooser for X');
      for (const role of ['W_q', 'W_k', 'W_v', 'W_o'])
        assert.equal(await page.getByLabel(`${role} (optional)`).isVisible(), true);
      assert.equal(await page.isDisabled('.model-panel button'), true, 'nothing chosen for X yet');
      await chooseX.selectOption('embeddings');
      assert.equal(await page.isDisabled('.model-panel button'), false);
      assert.match(await page.textContent('.model-panel .mp-mapping'), /wq ← the page's seed/u);
      await afterChange(page, () => page.click('.model-panel button'));
      assertShown(await readNumbers(page, 'x'), x, PRECISION, 'X from the file');
      assert.match(await page.textContent('#step-x'), /Here X is read from your model's file/u);
      assert.match(await page.textContent('#projection-text'), /W_o is random from seed/u);
    });
  });
});

describe('a head count the file does not give', () => {
  test('an nn.MultiheadAttention file without a JSON: the heads are said to be a guess, and can be set', async () => {
    const seed = { value: 9 };
    const d = 8;
    const tensors = {
      x: randomRows(5, d, 1, seed),
      'attn.in_proj_weight': randomRows(3 * d, d, 0.5, seed),
      'attn.out_proj.weight': randomRows(d, d, 0.5, seed),
    };
    const { npy } = await plainNpz();
    const { npzFile } = await import('../../js/fixtures/io/writers.js');
    const file = await npzFile(Object.fromEntries(Object.entries(tensors).map(([k, rows]) => [k, npy(rows)])));
    await withPage(env, {}, async ({ page }) => {
      await dropFiles(page, [{ name: 'mha.npz', data: file }]);
      await page.waitForFunction(() => !document.querySelector('.model-panel button').disabled);
      assert.match(await page.textContent('.model-panel'), /1 is a guess/u);
      assert.match(await page.textContent('.model-panel .mp-mapping'), /heads: 1 \(a guess\)/u);
      assert.equal(await page.getAttribute('.model-panel input[type="number"]', 'aria-describedby'), 'mp-heads-hint');
      await page.fill('.model-panel input[type="number"]', '2');
      assert.match(await page.textContent('#mp-heads-hint'), /2 heads, as typed/u);
      await afterChange(page, () => page.click('.model-panel button'));
      assert.match(await page.textContent('.model-panel [role="status"]'), /d_model = 8, 2 heads\./u);
      assert.equal(await page.inputValue('#size-numHeads'), '2');
    });
  });
});

describe('the random-weights note calls chance only what is chance', () => {
  test('causal: the first token attending to itself is forced; W_q = W_k: the diagonal is built in', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="causal"]'));
      const causal = await page.textContent('#random-note');
      assert.doesNotMatch(causal, /gives 1\.00 of its attention to itself is chance/u);
      assert.match(causal, /Not chance: under the causal mask the first token, “the”, can only attend to itself/u);
      await afterChange(page, () => page.click('button[data-example="shared"]'));
      const shared = await page.textContent('#random-note');
      assert.doesNotMatch(shared, /of its attention to itself is chance/u);
      assert.match(shared, /with W_k = W_q, K = Q, so each token's score with itself is q·q = \|q\|²/u);
    });
  });
});
