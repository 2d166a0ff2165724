// Page test (run by run.mjs): "Use your own model" loads a GPT-2-shaped file written here from random weights in
// GPT-2's names and layout (the README script's format), and shows layer l, head h as a float64 reference does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { safetensorsFile, tensorBytes } from '../../js/fixtures/io/writers.js';
import { afterChange, assertShown, readNumbers, withPage } from './helpers.mjs';
import { attention64 } from './reference64.mjs';
import { PRECISION, env } from './session.mjs';

const N = 6;
const D = 32;
const LAYERS = 2;

function random(rows, cols, salt) {
  let s = salt;
  return Array.from({ length: rows }, () =>
    Array.from({ length: cols }, () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return Math.round(((s / 2147483648) * 2 - 1) * 64) / 64; // exact in float32
    }),
  );
}

const x = random(N, D, 7);
const layers = Array.from({ length: LAYERS }, (_, l) => ({
  cAttn: random(D, 3 * D, 11 + l),
  cProj: random(D, D, 31 + l),
}));
const tensor = (name, rows) => ({
  name,
  dtype: 'F32',
  shape: [rows.length, rows[0].length],
  bytes: tensorBytes('F32', rows.flat()),
});
const FILE = safetensorsFile([
  tensor('hidden_states', x),
  ...layers.flatMap((layer, l) => [
    tensor(`h.${l}.attn.c_attn.weight`, layer.cAttn),
    tensor(`h.${l}.attn.c_proj.weight`, layer.cProj),
  ]),
]);

describe('use your own model', () => {
  test('a GPT-2-shaped file: layer 1 matches a float64 reference (one head: the file has no config)', async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.setInputFiles('.model-panel input[type="file"]', {
        name: 'gpt2-layer.safetensors',
        mimeType: 'application/octet-stream',
        buffer: Buffer.from(FILE),
      });
      await page.waitForFunction(() => document.querySelectorAll('.model-panel .mp-list li').length === 5);
      // No attentions and no config in the file: the heads are set by hand below, after the guess.
      await page.selectOption('.model-panel select', '1');
      await afterChange(page, () => page.click('.model-panel button'));
      const columns = (m, from) => m.map((row) => row.slice(from, from + D));
      const { cAttn } = layers[1];
      const ref = attention64({
        x,
        wq: columns(cAttn, 0),
        wk: columns(cAttn, D),
        wv: columns(cAttn, 2 * D),
        numHeads: 1,
      });
      assertShown(await readNumbers(page, 'weights'), ref.weights[0], PRECISION, 'weights of layer 1');
      assert.match(await page.textContent('.model-panel [role="status"]'), /Loaded layer 1/u);
    });
  });
});
