// Page test (run by run.mjs): "Use your own model" loads files in the README script's format — a GPT-2-shaped
// safetensors written here from random weights in GPT-2's names and layout, and its tokens.json — and shows layer l,
// head h as a float64 reference of that head does, biases and the causal mask included.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { safetensorsFile, tensorBytes } from '../../js/fixtures/io/writers.js';
import { afterChange, assertShown, readNumbers, withPage } from './helpers.mjs';
import { attention64 } from './reference64.mjs';
import { PRECISION, env } from './session.mjs';

const N = 6;
const D = 32;
const HEADS = 4;
const LAYERS = 2;
const LAYER = 1;
const TOKENS = ['The', 'Ġcat', 'Ġsat', 'Ġon', 'Ġthe', 'Ġmat'];

let seed = 7;
function random(rows, cols, scale = 1) {
  return Array.from({ length: rows }, () =>
    Array.from({ length: cols }, () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return (Math.round(((seed / 2147483648) * 2 - 1) * 64) / 64) * scale; // exact in float32
    }),
  );
}

const x = random(N, D);
const layers = Array.from({ length: LAYERS }, () => ({
  cAttn: random(D, 3 * D, 0.5),
  cAttnBias: random(1, 3 * D, 0.25)[0],
  cProj: random(D, D, 0.5),
  cProjBias: random(1, D, 0.25)[0],
}));

/** The float64 reference of a layer: a bias is a last row of W against a column of ones in X. */
function reference({ cAttn, cAttnBias }) {
  const ones = x.map((row) => [...row, 1]);
  const part = (k) => [...cAttn.map((row) => row.slice(k * D, (k + 1) * D)), cAttnBias.slice(k * D, (k + 1) * D)];
  return attention64({ x: ones, wq: part(0), wk: part(1), wv: part(2), numHeads: HEADS, causal: true });
}

const tensor = (name, values, shape) => ({ name, dtype: 'F32', shape, bytes: tensorBytes('F32', values) });
const ref = reference(layers[LAYER]);
const FILE = safetensorsFile([
  tensor('hidden_states', x.flat(), [1, N, D]),
  ...layers.flatMap((layer, l) => [
    tensor(`h.${l}.attn.c_attn.weight`, layer.cAttn.flat(), [D, 3 * D]),
    tensor(`h.${l}.attn.c_attn.bias`, layer.cAttnBias, [3 * D]),
    tensor(`h.${l}.attn.c_proj.weight`, layer.cProj.flat(), [D, D]),
    tensor(`h.${l}.attn.c_proj.bias`, layer.cProjBias, [D]),
  ]),
  tensor(`attentions.${LAYER}`, ref.weights.flat(2), [1, HEADS, N, N]),
]);
const JSON_FILE = JSON.stringify({ tokens: TOKENS, layer: LAYER, num_attention_heads: HEADS });

describe('use your own model', () => {
  test(`a GPT-2-shaped file: layer ${LAYER}, head 3 match a float64 reference`, async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.setInputFiles('.model-panel input[type="file"]', [
        { name: 'layer.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(FILE) },
        { name: 'tokens.json', mimeType: 'application/json', buffer: Buffer.from(JSON_FILE) },
      ]);
      await page.waitForFunction(() => document.querySelectorAll('.model-panel .mp-list li').length === 10);
      const mapping = await page.textContent('.model-panel .mp-mapping');
      assert.match(mapping, /layout: GPT-2/u);
      assert.equal(await page.inputValue('.model-panel input[type="number"]'), String(HEADS));
      await page.selectOption('.model-panel select', String(LAYER));
      await afterChange(page, () => page.click('.model-panel button'));
      await afterChange(page, () => page.selectOption('#head', '2'));
      assert.equal(await page.isChecked('#causal'), true, 'GPT-2 is causal');
      assertShown(await readNumbers(page, 'weights'), ref.weights[2], PRECISION, `layer ${LAYER}, head 3 weights`);
      const status = await page.textContent('.model-panel [role="status"]');
      assert.match(status, new RegExp(`Loaded layer ${LAYER}: n = ${N}, d_model = ${D}, ${HEADS} heads, causal`, 'u'));
      const difference = Number(/attention probabilities: (\S+)\.$/u.exec(status)?.[1]);
      assert.ok(difference < 1e-5, `the file's own attentions and the page's differ by ${difference}`);
      assert.equal(await page.inputValue('#sentence'), 'The cat sat on the mat');
      assert.doesNotMatch(await page.evaluate(() => location.hash), /x=|wq=/u, 'the link holds no file numbers');
    });
  });

  test('a file whose tensors do not fit leaves the page as it was, naming the tensor and both shapes', async () => {
    await withPage(env, {}, async ({ page }) => {
      const bad = safetensorsFile([
        tensor('hidden_states', x.flat(), [N, D]),
        tensor('h.0.attn.c_attn.weight', layers[0].cAttn.flat().slice(0, 16 * 3 * D), [16, 3 * D]),
      ]);
      const before = await page.evaluate(() => document.body.dataset.renders);
      await page.setInputFiles('.model-panel input[type="file"]', {
        name: 'bad.safetensors',
        mimeType: 'application/octet-stream',
        buffer: Buffer.from(bad),
      });
      await page.waitForFunction(() => !document.querySelector('.model-panel .inline-error').hidden);
      const error = await page.textContent('.model-panel .inline-error');
      assert.match(error, /“h\.0\.attn\.c_attn\.weight” is \[16, 32\].*needs \[32, 32\]/u);
      assert.equal(await page.isDisabled('.model-panel button'), true);
      assert.equal(await page.evaluate(() => document.body.dataset.renders), before);
    });
  });
});
