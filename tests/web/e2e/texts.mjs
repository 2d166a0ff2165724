// Page tests (run by run.mjs): texts that explain what the page shows and match it (issue 27): the heads' average,
// the skipped encoder, RoPE in a rotary model's file, the √d_k numbers against the curves, the local window, where
// random numbers come from, one way to number cells, a compact header on a projector, operators between matrices.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { safetensorsFile, tensorBytes } from '../../js/fixtures/io/writers.js';
import { afterChange, openPage, scrollSteady, showLesson, withPage } from './helpers.mjs';
import { env } from './session.mjs';

describe('texts that explain what is shown', () => {
  test('the heads: the average is said to be a summary no model computes; W_o is below', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="heads"]'));
      const text = await page.textContent('#heads-text');
      assert.match(text, /The average beside them is only a summary for the eye: no model computes it/u);
    });
  });

  test('cross-attention says that the encoder is skipped; the local window is not likened to a backward window', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="cross"]'));
      await showLesson(page, 'step-cross');
      assert.match(
        await page.textContent('#cross-text'),
        /The encoder is skipped here: K and V are made from the second sentence's embeddings/u,
      );
      await afterChange(page, () => page.click('button[data-example="designed"]'));
      const local = await page.textContent('#mount-designed .designed-card:nth-child(4) .designed-how');
      assert.match(
        local,
        /both ways, as in Longformer’s local attention\. Mistral 7B’s sliding window looks backwards/u,
      );
    });
  });

  test('the √d_k numbers of one example are compared with the curves honestly', async () => {
    await withPage(env, {}, async ({ page }) => {
      // Seed 42: the variance of QKᵀ is about 2.2 where the curves give 4 (d_k = 4).
      const text = await page.textContent('#why-text');
      assert.doesNotMatch(text, /follow the curves/u);
      assert.match(text, /The curves give about 4 and 1 at d_k = 4: these are off by more than half/u);
      await afterChange(page, () => page.click('button[data-example="worked"]'));
      assert.match(
        await page.textContent('#why-text'),
        /X, W_q and W_k are numbers typed, pasted or given, not drawn from the seed: not random, so the curves need not apply/u,
      );
    });
  });

  test('random numbers say where they come from when the others are your own', async () => {
    const x = 'x=1,0,0,0,0,0,0,0;0,1,0,0,0,0,0,0';
    const wq = `wq=${Array.from({ length: 8 }, (_, i) => [0, 1, 2, 3].map((j) => (i === j ? 1 : 0)).join(',')).join(';')}`;
    await withPage(env, { hash: `#v=2&s=a+b&n=2&dm=8&dk=4&dv=4&${x}&${wq}` }, async ({ page }) => {
      assert.match(
        await page.textContent('#random-note'),
        /^W_k holds random numbers from seed 42 \(X and W_q are numbers typed, pasted or given, not drawn from the seed\), not trained weights/u,
      );
    });
  });

  test('a large heatmap names its cells one way: by their row and column labels', async () => {
    await withPage(env, { hash: '#s=one+two&n=20&dm=8&dk=4&dv=4&h=1' }, async ({ page }) => {
      const canvas = '[data-matrix="weights"] .cm-canvas';
      await scrollSteady(page, canvas);
      await page.focus(canvas);
      for (const key of ['ArrowDown', 'ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowRight'])
        await page.keyboard.press(key);
      const head = await page.textContent('[data-matrix="weights"] .cm-readout .cm-head');
      assert.match(head, /^attention weights · row #4 · column #3: 0\.\d+$/u);
      assert.doesNotMatch(head, /\[\d+, \d+\]/u);
    });
  });

  test('a file of a rotary (LLaMA-style) model says that the page applies no RoPE', async () => {
    const N = 4;
    const D = 8;
    const values = (count, at) => Array.from({ length: count }, (_, k) => (((k * 7 + at) % 11) - 5) / 16);
    const tensor = (name, shape, data) => ({ name, dtype: 'F32', shape, bytes: tensorBytes('F32', data) });
    const proj = (name, at) => tensor(`model.layers.0.self_attn.${name}.weight`, [D, D], values(D * D, at));
    const file = safetensorsFile([
      tensor('hidden_states', [1, N, D], values(N * D, 1)),
      proj('q_proj', 2),
      proj('k_proj', 3),
      proj('v_proj', 4),
      proj('o_proj', 5),
      tensor('attentions.0', [1, 2, N, N], new Array(2 * N * N).fill(1 / N)),
    ]);
    const json = JSON.stringify({ tokens: ['▁a', '▁b', '▁c', '▁d'], layer: 0, num_attention_heads: 2 });
    await withPage(env, {}, async ({ page }) => {
      await page.setInputFiles('.model-panel input[type="file"]', [
        { name: 'layer.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from(file) },
        { name: 'tokens.json', mimeType: 'application/json', buffer: Buffer.from(json) },
      ]);
      await page.waitForFunction(() => /LLaMA/u.test(document.querySelector('.model-panel .mp-mapping').textContent));
      await afterChange(page, () => page.click('.model-panel button'));
      await page.waitForFunction(() =>
        /attention probabilities/u.test(document.querySelector('.model-panel [role="status"]').textContent),
      );
      assert.match(
        await page.textContent('.model-panel [role="status"]'),
        /rotary position embeddings, RoPE\) before the scores, which the page does not do/u,
      );
    });
  });
});

describe('layout of the texts', () => {
  test('on a 150 % projector (853 × 480 CSS px) the status is one line and the header under a third of the screen', async () => {
    const context = await env.browser.newContext({ viewport: { width: 853, height: 480 }, deviceScaleFactor: 1.5 });
    try {
      const page = await context.newPage();
      await page.goto(env.server.url);
      await page.waitForFunction(
        () => document.body.dataset.ready === 'true' && document.getElementById('status-time'),
      );
      const sizes = await page.evaluate(() => ({
        header: document.querySelector('.page-header').getBoundingClientRect().height,
        status: document.getElementById('status').getBoundingClientRect().height,
        line: parseFloat(getComputedStyle(document.getElementById('status')).lineHeight),
        text: document.getElementById('status').textContent,
      }));
      assert.ok(sizes.status < 1.6 * sizes.line, `the status is one line: ${JSON.stringify(sizes)}`);
      assert.ok(sizes.header < 480 / 3, `the header takes ${sizes.header} of 480 px`);
      assert.match(sizes.text, /attention kernels: .* projections: SIMD128 GEMM/u, 'the whole text is still there');
      await page.screenshot({ path: 'tests/artifacts/header-projector.png' });
    } finally {
      await context.close();
    }
  });

  test("step 8's · and = stand between the matrices, on the line of the matrix they lead to", async () => {
    for (const width of [1280, 390]) {
      const session = await openPage(env, { viewport: { width, height: 900 } });
      try {
        await afterChange(session.page, () => session.page.click('button[data-example="heads"]'));
        const ops = await session.page.$$eval('#mount-projection .op', (nodes) =>
          nodes.map((op) => {
            const box = op.getBoundingClientRect();
            const next = op.nextElementSibling?.getBoundingClientRect();
            return {
              text: op.textContent,
              before: Boolean(next) && box.right <= next.left + 1,
              level: Boolean(next) && box.top + box.height / 2 >= next.top && box.top + box.height / 2 <= next.bottom,
            };
          }),
        );
        assert.deepEqual(
          ops,
          [
            { text: '·', before: true, level: true },
            { text: '=', before: true, level: true },
          ],
          `${width} px`,
        );
      } finally {
        await session.context.close();
      }
    }
  });
});
