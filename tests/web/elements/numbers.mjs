// The numbers an element shows and sends against a float64 reference written loop by loop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attention64 } from '../e2e/reference64.mjs';
import { add, assertClean, assertClose, open, ready, shownMatrix } from './env.mjs';

const X = [
  [1, 0.5, -1, 2],
  [0, 1, 0.25, -0.5],
  [-1.5, 0.75, 1, 0],
];
const WQ = [
  [0.5, -0.25],
  [1, 0.5],
  [-0.75, 0.25],
  [0.125, 1],
];
const WK = [
  [1, 0],
  [0.5, -1],
  [0.25, 0.5],
  [-0.5, 0.75],
];
const WV = [
  [0.2, -0.4, 1],
  [0.6, 0.1, -0.3],
  [-1, 0.5, 0.7],
  [0.3, 0.9, -0.2],
];
const WO = [
  [1, 0, 0.5, -1],
  [0, 1, -0.5, 0.25],
  [0.5, 0.5, 1, 0],
];

test('exact numbers from a child JSON script: the weights, outputs and W_o projection match float64', async () => {
  const session = await open();
  const { page } = session;
  try {
    await ready(page, 'json');
    const ref = attention64({ x: X, wq: WQ, wk: WK, wv: WV, wo: WO, numHeads: 1 });
    // 4 decimals shown: half a unit of the last place, plus float32's rounding.
    const tolerance = 0.5e-4 + 1e-6;
    assertClose(await shownMatrix(page, 'json', 'weights'), ref.weights[0], tolerance, 'weights');
    assertClose(await shownMatrix(page, 'json', 'output'), ref.heads[0], tolerance, 'output');
    assertClose(await shownMatrix(page, 'json', 'layerOutput'), ref.output, tolerance, 'layer output');
    const rawScores = await shownMatrix(page, 'json', 'rawScores');
    const scale = Math.sqrt(2);
    // QKᵀ unscaled: the reference's weights come from the scaled ones, so check QKᵀ by its own loop.
    const q = X.map((r) => [0, 1].map((c) => r.reduce((s, v, k) => s + v * WQ[k][c], 0)));
    const k = X.map((r) => [0, 1].map((c) => r.reduce((s, v, t) => s + v * WK[t][c], 0)));
    assertClose(
      rawScores,
      q.map((qi) => k.map((kj) => qi[0] * kj[0] + qi[1] * kj[1])),
      tolerance,
      'QKᵀ',
    );
    assert.ok(scale > 1);
    const labels = await page.evaluate(() =>
      Array.from(
        document.getElementById('json').shadowRoot.querySelectorAll('[data-matrix="weights"] tbody th'),
        (th) => th.textContent,
      ),
    );
    assert.deepEqual(labels, ['a', 'b', 'c']);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('attention-change carries float32 results within 1e-6 of float64, for 2 causal heads at temperature 0.5', async () => {
  const session = await open();
  const { page } = session;
  try {
    await page.evaluate(() => {
      window.__events = [];
      const element = document.createElement('attention-heatmap');
      element.id = 'event';
      for (const [k, v] of Object.entries({
        sentence: 'one two three four',
        heads: '2',
        'd-k': '3',
        causal: '',
        temperature: '0.5',
        seed: '9',
      }))
        element.setAttribute(k, v);
      element.addEventListener('attention-change', (e) => window.__events.push(e.detail));
      document.getElementById('main').prepend(element);
    });
    await ready(page, 'event');
    const detail = await page.evaluate(async () => {
      const d = window.__events[0];
      return {
        count: window.__events.length,
        weights: d.weights,
        state: await document.getElementById('event').permalink(),
        settings: d.settings,
        x: d.result.q.shape,
      };
    });
    assert.equal(detail.count, 1);
    assert.match(detail.state, /causal=1/);
    assert.match(detail.state, /t=0.5/);
    assert.deepEqual(detail.x, [2, 4, 3]);
    // The inputs the element used, from its own model (the same module the page uses), in float64.
    const inputs = await page.evaluate(async () => {
      const { currentMatrix } = await import('/web/src/shared/matrices.js');
      const state = document.getElementById('event').currentState;
      return Object.fromEntries(['x', 'wq', 'wk', 'wv'].map((name) => [name, currentMatrix(state, name)]));
    });
    const ref = attention64({ ...inputs, numHeads: 2, causal: true, scale: 1 / (0.5 * Math.sqrt(3)) });
    for (let h = 0; h < 2; h++) assertClose(detail.weights[h], ref.weights[h], 1e-6, `head ${h + 1} weights`);
    assert.equal(detail.weights[0][0][1], 0, 'causal: the first token sees only itself');
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('a state copied from the page and a named example give the page’s numbers', async () => {
  const session = await open();
  const { page } = session;
  try {
    const hash = 'v=3&s=the+cat+sat&n=3&dm=4&dk=2&dv=2&h=1&seed=5&dist=normal&p=2&causal=0&scale=1&t=1&tie=0&pos=0';
    await add(page, 'fromState', 'attention-explorer', { state: `https://example.org/#${hash}`, steps: 'softmax' });
    const read = await page.evaluate(async () => {
      const element = document.getElementById('fromState');
      return {
        sentence: element.sentence,
        seed: element.seed,
        dModel: element.dModel,
        precision: element.precision,
        state: await element.permalink(),
        given: element.state,
      };
    });
    assert.deepEqual(
      { ...read, state: undefined },
      {
        sentence: 'the cat sat',
        seed: 5,
        dModel: 4,
        precision: 2,
        state: undefined,
        given: `https://example.org/#${hash}`,
      },
    );
    assert.equal(read.state, hash);
    await add(page, 'worked', 'attention-explorer', { example: 'worked', steps: 'output wo', precision: '7' });
    // The 2×2 example: float64 says 2.3395231, float32 2.3395228 (the page explains the last digit).
    const out = await shownMatrix(page, 'worked', 'output');
    assertClose(
      out,
      [
        [1.6604769, 2.6604769],
        [2.3395231, 3.3395231],
      ],
      5e-7,
      'worked example',
    );
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('src names a .json or a .npz file (read through attention-wasm/io): the same numbers as the JSON script', async () => {
  const session = await open();
  const { page } = session;
  try {
    await ready(page, 'json');
    const expected = await shownMatrix(page, 'json', 'weights');
    await add(page, 'fromJson', 'attention-explorer', { src: 'numbers.json', steps: 'softmax', precision: '4' });
    await add(page, 'fromNpz', 'attention-explorer', { src: 'numbers.npz', steps: 'softmax', precision: '4' });
    assert.deepEqual(await shownMatrix(page, 'fromJson', 'weights'), expected);
    assert.deepEqual(await shownMatrix(page, 'fromNpz', 'weights'), expected);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});
