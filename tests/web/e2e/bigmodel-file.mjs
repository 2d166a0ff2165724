// Page test (run by run.mjs): "Use your own model" loads files in the README script's format — a GPT-2-shaped
// safetensors written here from random weights in GPT-2's names and layout, and its tokens.json — and shows layer l,
// head h as a float64 reference of that head does, biases and the causal mask included.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { safetensorsFile } from '../../js/fixtures/io/writers.js';
import { afterChange, assertShown, readNumbers, withPage } from './helpers.mjs';
import { dropFiles, f32, gpt2Files } from './model-files.mjs';
import { PRECISION, env } from './session.mjs';

const { x, weights, ref, file, json, n: N, d: D, heads: HEADS, layer: LAYER } = gpt2Files({ layers: 2, layer: 1 });
const FILES = [
  { name: 'layer.safetensors', data: file },
  { name: 'tokens.json', data: json },
];

describe('use your own model', () => {
  test(`a GPT-2-shaped file and the JSON's "layer": ${LAYER}: layer ${LAYER}, head 2 match a float64 reference`, async () => {
    await withPage(env, {}, async ({ page }) => {
      await dropFiles(page, FILES);
      await page.waitForFunction(() => document.querySelectorAll('.model-panel .mp-list li').length === 10);
      const mapping = await page.textContent('.model-panel .mp-mapping');
      assert.match(mapping, /layout: GPT-2/u);
      assert.equal(await page.inputValue('.model-panel input[type="number"]'), String(HEADS));
      // The layer the README script exported, as its JSON says: not the file's first layer.
      assert.equal(await page.inputValue('.model-panel select'), String(LAYER));
      assert.match(mapping, new RegExp(`attentions ← attentions\\.${LAYER}`, 'u'));
      await afterChange(page, () => page.click('.model-panel button'));
      await afterChange(page, () => page.selectOption('#head', '2'));
      assert.equal(await page.isChecked('#causal'), true, 'GPT-2 is causal');
      assertShown(await readNumbers(page, 'weights'), ref.weights[2], PRECISION, `layer ${LAYER}, head 2 weights`);
      const status = await page.textContent('.model-panel [role="status"]');
      assert.match(status, new RegExp(`Loaded layer ${LAYER}: n = ${N}, d_model = ${D}, ${HEADS} heads, causal`, 'u'));
      await page.waitForFunction(() =>
        /attention probabilities: \S+\.$/u.test(document.querySelector('.model-panel [role="status"]').textContent),
      );
      const done = await page.textContent('.model-panel [role="status"]');
      const difference = Number(/attention probabilities: (\S+)\.$/u.exec(done)?.[1]);
      assert.ok(difference < 1e-5, `the file's own attentions and the page's differ by ${difference}`);
      assert.equal(await page.inputValue('#sentence'), 'The cat sat on the mat');
      assert.doesNotMatch(await page.evaluate(() => location.hash), /x=|wq=/u, 'the link holds no file numbers');
    });
  });

  test("another layer of the file is never compared with the attentions of the JSON's layer", async () => {
    await withPage(env, {}, async ({ page }) => {
      await dropFiles(page, FILES);
      await page.waitForFunction(() => document.querySelectorAll('.model-panel .mp-list li').length === 10);
      await page.selectOption('.model-panel select', '0');
      const mapping = await page.textContent('.model-panel .mp-mapping');
      assert.doesNotMatch(mapping, /attentions ←/u, 'layer 0 is mapped to the attentions of layer 1');
      assert.match(mapping, /another layer's attention probabilities, so layer 0 is not compared/u);
      assert.match(mapping, /exported for layer 1/u);
      await afterChange(page, () => page.click('.model-panel button'));
      await page.waitForTimeout(300); // a comparison would follow the next frames
      const done = await page.textContent('.model-panel [role="status"]');
      assert.match(done, /^Loaded layer 0:/u);
      assert.doesNotMatch(done, /Largest difference/u);
      const ref0 = gpt2Files({ layers: 2, layer: 1 }).reference(0);
      assertShown(await readNumbers(page, 'weights'), ref0.weights[0], PRECISION, 'layer 0, head 0 weights');
    });
  });

  test('a file whose tensors do not fit leaves the page as it was, naming the tensor and both shapes', async () => {
    await withPage(env, {}, async ({ page }) => {
      const bad = safetensorsFile([
        f32('hidden_states', x.flat(), [N, D]),
        f32('h.0.attn.c_attn.weight', weights[0].cAttn.flat().slice(0, 16 * 3 * D), [16, 3 * D]),
      ]);
      const before = await page.evaluate(() => document.body.dataset.renders);
      await dropFiles(page, [{ name: 'bad.safetensors', data: bad }]);
      await page.waitForFunction(() => !document.querySelector('.model-panel .inline-error').hidden);
      const error = await page.textContent('.model-panel .inline-error');
      assert.match(error, /“h\.0\.attn\.c_attn\.weight” is \[16, 32\].*needs \[32, 32\]/u);
      assert.equal(await page.isDisabled('.model-panel button'), true);
      assert.equal(await page.evaluate(() => document.body.dataset.renders), before);
    });
  });
});
