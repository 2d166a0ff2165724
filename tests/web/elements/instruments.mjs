// The elements' instruments (`view`): on the shipped model by default, each view's numbers against
// attention-wasm/model's instruments called in the same page (the float64 softmax of the lens written here), the polite
// messages (a view that is none, BERT's attribution, patching prompts of different lengths), the instruments loaded
// only for an element with `view`, and the elements imported from another origin under a strict CSP. Screenshots go to
// tests/artifacts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveStatic } from '../../serve-static.mjs';
import { ARTIFACTS, ROOT, add, assertClean, env, message, open, ready } from './env.mjs';

const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';

/** window.api(name): the model loaded in the page by attention-wasm/model (a Map of the shipped files, or a fixture). */
async function setUp(page, extra = {}) {
  await page.evaluate(async (provided) => {
    const shared = await import('/web/src/elements/sharedModel.js');
    const { loadModel } = await import('/src/js/model/index.js');
    const folder = '/web/public/models/induction/';
    const names = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
    const files = new Map(
      await Promise.all(
        names.map(async (n) => [n, new Uint8Array(await (await fetch(`${folder}${n}`)).arrayBuffer())]),
      ),
    );
    const sources = { builtin: files };
    const fixtures = await import('/tests/js/model/fixtures.js');
    for (const [name, { kind, options }] of Object.entries(provided)) {
      sources[name] = fixtures[kind](options).files;
      shared.provideModel(new URL(name, location.href).href, sources[name]);
    }
    const models = {};
    window.api = async (name = 'builtin') => (models[name] ??= await loadModel(sources[name]));
  }, extra);
}

/** The values (data-value) of an element's cells matching `selector`, as numbers. */
const values = (page, id, selector) =>
  page.evaluate(
    ({ elementId, css }) =>
      Array.from(document.getElementById(elementId).shadowRoot.querySelectorAll(css), (n) =>
        Number(n.dataset.value ?? n.dataset.loss),
      ),
    { elementId: id, css: selector },
  );

const screenshot = (page, id, name) => page.locator(`#${id}`).screenshot({ path: `${ARTIFACTS}/${name}.png` });

const close = (got, want, tolerance, what) => {
  assert.equal(got.length, want.length, `${what}: count`);
  got.forEach((v, k) => assert.ok(Math.abs(v - want[k]) <= tolerance, `${what}[${k}]: shown ${v}, API ${want[k]}`));
};

test('view="lens" on the shipped model (no model attribute): every cell is the top p of unembed(hiddenStates[l])', async () => {
  const session = await open();
  const { page } = session;
  try {
    await setUp(page);
    await add(page, 'lens', 'attention-explorer', { view: 'lens', sentence: SENTENCE });
    assert.equal(await message(page, 'lens'), '');
    const logits = await page.evaluate(async (s) => {
      const model = await window.api();
      const r = await model.run(s, { hiddenStates: true });
      const last = r.hiddenStates.length - 1;
      const out = [];
      for (let l = 0; l <= last; l++)
        out.push(Array.from((await model.unembed(r.hiddenStates[l], { norm: l < last })).data));
      return { out, V: model.spec.vocabSize, n: r.ids.length };
    }, SENTENCE);
    // The float64 softmax's top probability of each residual at each position, written here.
    const want = [];
    const line = [];
    for (const rows of logits.out)
      for (let i = 0; i < logits.n; i++) {
        const row = rows.slice(i * logits.V, (i + 1) * logits.V);
        const max = Math.max(...row);
        const sum = row.reduce((s, v) => s + Math.exp(v - max), 0);
        want.push(1 / sum);
        if (i === logits.n - 1) line.push(row);
      }
    assert.equal(want.length, 3 * 16, 'embeddings, after L0, after L1 × 16 positions');
    close(await values(page, 'lens', 'td.inv-cell'), want, 1e-6, 'lens p');
    const texts = await page.evaluate(() =>
      Array.from(
        document.getElementById('lens').shadowRoot.querySelectorAll('td.inv-cell .inv-cell-text'),
        (n) => n.textContent,
      ),
    );
    assert.equal(texts.at(-1), 'ball', 'the last residual of the last position predicts ball');
    const caption = await page.evaluate(
      () => document.getElementById('lens').shadowRoot.querySelector('.inv-lens-caption').textContent,
    );
    assert.match(caption, /^p\(“ball”\) at position 15 “red”/u);
    await screenshot(page, 'lens', 'elements-instrument-lens');
    // A cell clicked follows its token: L0's residual at position 5.
    await page.evaluate(() =>
      document.getElementById('lens').shadowRoot.querySelectorAll('tr')[2].querySelectorAll('button')[5].click(),
    );
    await page.waitForFunction(() =>
      / at position 5 /u.test(
        document.getElementById('lens').shadowRoot.querySelector('.inv-lens-caption').textContent,
      ),
    );
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('view="attribution" target="ball" against="tree": each head and part is model.attribute’s, summing to the logit difference', async () => {
  const session = await open();
  const { page } = session;
  try {
    await setUp(page);
    await add(page, 'attr', 'attention-heatmap', {
      model: 'builtin',
      view: 'attribution',
      target: 'ball',
      against: 'tree',
    });
    assert.equal(await message(page, 'attr'), '');
    const ref = await page.evaluate(async (s) => {
      const model = await window.api();
      const r = await model.run(s);
      const id = (w) => r.ids[r.tokens.findIndex((t) => t.trim() === w)];
      const a = await model.attribute(s, { target: [id('ball'), id('tree')] });
      return { heads: Array.from(a.heads.data), total: a.total, mlps: Array.from(a.mlps), embeddings: a.embeddings };
    }, SENTENCE);
    close(await values(page, 'attr', '.inv-grid td.inv-cell'), ref.heads, 1e-6, 'heads');
    const parts = await page.evaluate(() =>
      Object.fromEntries(
        Array.from(document.getElementById('attr').shadowRoot.querySelectorAll('.inv-parts tr'), (tr) => [
          tr.dataset.part,
          Number(tr.dataset.value),
        ]),
      ),
    );
    close(
      [parts.total, parts.embeddings, parts.mlp0, parts.mlp1],
      [ref.total, ref.embeddings, ...ref.mlps],
      1e-6,
      'parts',
    );
    const sum =
      Object.entries(parts)
        .filter(([k]) => k !== 'total')
        .reduce((s, [, v]) => s + v, 0) + ref.heads.reduce((s, v) => s + v, 0);
    assert.ok(
      Math.abs(sum - ref.total) < 1e-3 * Math.max(1, Math.abs(ref.total)),
      `parts sum ${sum}, total ${ref.total}`,
    );
    // The induction heads (layer 1) write most of “ball” − “tree”.
    const layer1 = ref.heads.slice(4).reduce((s, v) => s + v, 0);
    assert.ok(layer1 > 0.5 * ref.total, `layer 1's heads ${layer1} of ${ref.total}`);
    await screenshot(page, 'attr', 'elements-instrument-attribution');
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('view="patching" (the default prompts) and view="head-scores" and view="loss": the numbers of patchSweep, headScores and run’s loss', async () => {
  const session = await open();
  const { page } = session;
  try {
    await setUp(page);
    await add(page, 'patch', 'attention-explorer', { view: 'patching' });
    assert.equal(await message(page, 'patch'), '');
    const ref = await page.evaluate(async (s) => {
      const model = await window.api();
      const corrupted = s.replace('a red ball', 'a green ball');
      const [c, k] = [await model.run(s), await model.run(corrupted)];
      const target = [c.next[0].id, k.next[0].id];
      const sweep = async (step) =>
        Array.from((await model.patchSweep({ clean: s, corrupted, target, step })).scores.data);
      const scores = {};
      for (const kind of ['previousToken', 'duplicateToken', 'induction'])
        scores[kind] = Array.from((await model.headScores(kind, { ids: c.ids })).data);
      const lossRun = await model.run(s, { loss: true });
      return {
        input: await sweep('input'),
        heads: await sweep('headOutput'),
        scores,
        loss: Array.from(lossRun.loss.perToken),
      };
    }, SENTENCE);
    const grids = await page.evaluate(() =>
      Array.from(document.getElementById('patch').shadowRoot.querySelectorAll('.inv-grid'), (t) =>
        Array.from(t.querySelectorAll('td.inv-cell'), (td) => Number(td.dataset.value)),
      ),
    );
    close(grids[0], ref.input, 1e-5, 'residual stream sweep');
    close(grids[1], ref.heads, 1e-5, 'head outputs sweep');
    const kept = await page.evaluate(() => {
      const { sweeps } = document.getElementById('patch').result;
      return [sweeps.input.scores.data.length, sweeps.headOutput.scores.data.length];
    });
    assert.deepEqual(kept, [2 * 16, 2 * 4], 'result.sweeps holds both sweeps');
    await screenshot(page, 'patch', 'elements-instrument-patching');
    // The metric at `position` (from 0): the sweep of patchSweep's position, the pair typed.
    await add(page, 'patch8', 'attention-explorer', { view: 'patching', position: '8', target: 'cat', against: 'saw' });
    assert.equal(await message(page, 'patch8'), '');
    const at8 = await page.evaluate(async (s) => {
      const model = await window.api();
      const c = await model.run(s);
      const corrupted = s.replace('a red ball', 'a green ball');
      const options = { clean: s, corrupted, target: [c.ids[1], c.ids[2]], step: 'input', position: 8 };
      return Array.from((await model.patchSweep(options)).scores.data);
    }, SENTENCE);
    const grid8 = await page.evaluate(() =>
      Array.from(
        document.getElementById('patch8').shadowRoot.querySelector('.inv-grid').querySelectorAll('td.inv-cell'),
        (td) => Number(td.dataset.value),
      ),
    );
    close(grid8, at8, 1e-5, 'residual stream sweep at position 8');

    await add(page, 'scores', 'attention-explorer', { view: 'head-scores', sentence: SENTENCE });
    const rows = await page.evaluate(() =>
      Array.from(document.getElementById('scores').shadowRoot.querySelectorAll('.inv-scores tbody tr'), (tr) => ({
        name: tr.querySelector('th').textContent,
        values: Array.from(tr.querySelectorAll('td'), (td) => Number(td.dataset.value)),
      })),
    );
    assert.deepEqual(
      rows.map((r) => r.name),
      ['L0H0', 'L0H1', 'L0H2', 'L0H3', 'L1H0', 'L1H1', 'L1H2', 'L1H3'],
    );
    rows.forEach((r, k) =>
      close(
        r.values,
        [ref.scores.previousToken[k], ref.scores.duplicateToken[k], ref.scores.induction[k]],
        1e-6,
        r.name,
      ),
    );
    await screenshot(page, 'scores', 'elements-instrument-head-scores');

    await add(page, 'loss', 'attention-heatmap', { view: 'loss', sentence: SENTENCE });
    close(await values(page, 'loss', 'li[data-loss]'), ref.loss, 1e-6, 'loss per token');
    await screenshot(page, 'loss', 'elements-instrument-loss');
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('polite messages: a view that is none, attribution on BERT, patching prompts of different lengths, a token that is two', async () => {
  const session = await open();
  const { page } = session;
  try {
    await setUp(page, { './bert/': { kind: 'bertFixture', options: {} } });
    await add(page, 'bad', 'attention-explorer', { view: 'lense' });
    assert.equal(await page.evaluate(() => document.getElementById('bad').status), 'error');
    assert.match(
      await message(page, 'bad'),
      /view="lense" is not a view \(did you mean "lens"\?\): the views are lens, attribution, patching, head-scores and loss/,
    );
    await add(page, 'bert', 'attention-explorer', { view: 'attribution', model: './bert/', ids: '2 5 7 3' });
    assert.match(
      await message(page, 'bert'),
      /view="attribution": bert predicts masked tokens with a head that is not linear/,
    );
    await add(page, 'len', 'attention-explorer', {
      view: 'patching',
      sentence: 'the cat saw a red ball',
      corrupted: 'the cat saw a big red ball',
    });
    assert.match(
      await message(page, 'len'),
      /The clean prompt has 6 tokens and the corrupted one 7: .* the same number of tokens/,
    );
    await add(page, 'far', 'attention-explorer', { view: 'patching', position: '40' });
    assert.match(
      await message(page, 'far'),
      /Position “40” is not a position of the prompts: they count from 0 to 15\./,
    );
    await add(page, 'two', 'attention-explorer', { view: 'attribution', sentence: SENTENCE, target: 'red ball' });
    assert.match(await message(page, 'two'), /target="red ball" is 2 tokens for this model, not one/);
    await add(page, 'cap', 'attention-explorer', { view: 'loss', caption: '<b>Loss</b> of the repeat', export: 'svg' });
    assert.equal(await page.evaluate(() => document.getElementById('cap').status), 'ready');
    assert.equal(await message(page, 'cap'), '', 'an instrument exports its picture (instrument-pictures.mjs)');
    const captionText = await page.evaluate(
      () => document.getElementById('cap').shadowRoot.querySelector('#caption').textContent,
    );
    assert.equal(captionText, '<b>Loss</b> of the repeat', 'the caption is text, never markup');
    assert.equal(await page.evaluate(() => document.getElementById('cap').shadowRoot.querySelector('b')), null);
    const svg = await page.evaluate(() => document.getElementById('cap').toSVG());
    assert.ok(svg.includes('&lt;b&gt;Loss&lt;/b&gt; of the repeat'), 'the caption in the picture, as text');
    await add(page, 'markup', 'attention-explorer', { view: '<img src=x onerror=alert(1)>' });
    assert.equal(await page.evaluate(() => document.getElementById('markup').shadowRoot.querySelector('img')), null);
    await screenshot(page, 'len', 'elements-instrument-lengths');
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('a post whose elements have no `view` loads none of the instruments', async () => {
  const first = env.server.requests.length;
  const session = await open('post.html');
  try {
    await ready(session.page, 'heatmap');
  } finally {
    await session.context.close();
  }
  const loaded = env.server.requests.slice(first).filter((p) => p.includes('/instruments/'));
  assert.deepEqual(loaded, []);
});

test('from another origin under a strict CSP: view="lens" and view="patching" on the shipped model, no violation', async () => {
  const cdn = await serveStatic(ROOT, { host: '127.0.0.2', headers: { 'Access-Control-Allow-Origin': '*' } });
  const origin = cdn.url.slice(0, -1);
  const csp = `default-src 'self'; script-src 'self' ${origin} 'wasm-unsafe-eval'; style-src 'self' ${origin}; connect-src 'self' ${origin}`;
  const site = await serveStatic(ROOT, { headers: { 'Content-Security-Policy': csp } });
  const context = await env.browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${site.url}tests/web/elements/fixtures/instruments-cdn.html?cdn=${encodeURIComponent(origin)}`);
    await ready(page, 'lens');
    await ready(page, 'patch');
    const got = await page.evaluate(() => ({
      lens: document.getElementById('lens').status,
      patch: document.getElementById('patch').status,
      cells: document.getElementById('patch').shadowRoot.querySelectorAll('td.inv-cell:not(.pending)').length,
      violations: window.violations,
    }));
    assert.deepEqual(
      { ...got, errors },
      { lens: 'ready', patch: 'ready', cells: 2 * 16 + 2 * 4, violations: [], errors: [] },
    );
    assert.ok(
      cdn.requests.some((p) => p.endsWith('/elements/instruments/lensView.js')),
      'the views came from the CDN',
    );
  } finally {
    await context.close();
    await site.close();
    await cdn.close();
  }
});
