// The elements on a real model (`model`): the shipped induction model and tiny random checkpoints in the Hub's file
// layout (tests/js/model/fixtures.js), each figure's numbers checked against loadModel/run of attention-wasm/model
// in the same page; the explorer's steps, the model view, `ids`, `ablate`, `next`; a bad model is the element's polite
// message. How the model loads: model-loading.mjs. Screenshots go to tests/artifacts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, add, assertClean, message, open, shadowTexts, shownMatrix } from './env.mjs';

const INDUCTION = '/web/public/models/induction/';
const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';

/**
 * In the page: `window.reference(name, input, options)`, which runs loadModel/run on the shipped folder's files (a
 * Map, as a page that fetched them gives it: not the elements' way of reading it, a folder URL), or on a fixture of
 * `extra`, which the elements get as model="<name>" (provideModel, since a fixture is made in the page).
 */
async function setUp(page, extra = {}) {
  await page.evaluate(
    async ({ folder, extra: provided }) => {
      const shared = await import('/web/src/elements/sharedModel.js');
      const { loadModel } = await import('/src/js/model/index.js');
      const fetched = async (names) =>
        new Map(
          await Promise.all(
            names.map(async (name) => [name, new Uint8Array(await (await fetch(`${folder}${name}`)).arrayBuffer())]),
          ),
        );
      const induction = await fetched(['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']);
      const sources = { builtin: induction };
      const fixtures = await import('/tests/js/model/fixtures.js');
      for (const [name, { kind, options, edit }] of Object.entries(provided)) {
        const files = { ...fixtures[kind](options).files };
        if (edit === 'family')
          files['config.json'] = JSON.stringify({
            ...JSON.parse(files['config.json']),
            model_type: 't5',
            architectures: ['T5Model'],
          });
        sources[name] = files;
        shared.provideModel(new URL(name, location.href).href, files);
      }
      window.reference = async (name, input, options) => {
        const model = await loadModel(sources[name]);
        const out = await model.run(input, options);
        return {
          attentions: out.attentions.map((t) => Array.from(t.data)),
          tokens: out.tokens,
          ids: out.ids,
          next: out.next?.map(({ id, p, token }) => ({ id, p, token })),
          captures: out.captures.map((c) =>
            Object.fromEntries(
              ['x', 'q', 'k', 'v', 'qRotated', 'rawScores', 'scaledScores', 'weights', 'headOutput', 'concat', 'output']
                .filter((k) => c[k])
                .map((k) => [k, c[k].toArray()]),
            ),
          ),
        };
      };
    },
    { folder: INDUCTION, extra },
  );
}

/** What an element holds: its result's weights and tokens, the next tokens shown and its status. */
const shown = (page, id) =>
  page.evaluate((elementId) => {
    const e = document.getElementById(elementId);
    return {
      status: e.status,
      weights: e.result && Array.from(e.result.weights.data),
      shape: e.result?.weights.shape,
      tokens: e.result?.tokens,
      next: Array.from(e.shadowRoot.querySelectorAll('[part="next"] li'), (li) => li.textContent),
      cells: Array.from(e.shadowRoot.querySelectorAll('.cell'), (c) => c.getAttribute('aria-label')),
      maps: e.shadowRoot.querySelectorAll('[part="model-view"] canvas').length,
    };
  }, id);

const screenshot = (page, id, name) => page.locator(`#${id}`).screenshot({ path: `${ARTIFACTS}/${name}.png` });

test('builtin: the heatmap of L1H0 (layer 1 head 0) and the next tokens are those of loadModel/run', async () => {
  const session = await open();
  const { page } = session;
  try {
    await setUp(page);
    await add(page, 'b', 'attention-heatmap', {
      model: 'builtin',
      layer: '1',
      head: '0',
      sentence: SENTENCE,
      next: '',
    });
    const ref = await page.evaluate((s) => window.reference('builtin', s, { topK: 5 }), SENTENCE);
    const got = await shown(page, 'b');
    assert.equal(got.status, 'ready', await message(page, 'b'));
    assert.deepEqual(got.tokens, ref.tokens);
    const n = ref.tokens.length;
    assert.deepEqual(got.shape, [4, n, n]);
    assert.deepEqual(got.weights, ref.attentions[1], "the result's weights are layer 1's [heads, n, n]");
    // The cells shown are head 0's, rounded to 3 decimals.
    const head1 = ref.attentions[1].slice(0, n * n);
    got.cells.forEach((text, k) => {
      const [i, j] = [Math.floor(k / n), k % n];
      if (j > i) return assert.match(text, /masked/);
      const value = Number(/weight (\S+)$/.exec(text)[1]);
      assert.ok(Math.abs(value - head1[k]) <= 5e-4 + 1e-7, `cell ${i},${j}: ${text}, run gives ${head1[k]}`);
    });
    assert.equal(got.next.length, 5);
    assert.equal(ref.next[0].token.trim(), 'ball', 'the induction model continues the repeat');
    got.next.forEach((text, k) =>
      assert.ok(text.startsWith(ref.next[k].token.trim()), `${text} vs ${ref.next[k].token}`),
    );
    assert.match(got.next[0], new RegExp(`${(ref.next[0].p * 100).toFixed(1)}%$`));
    await screenshot(page, 'b', 'elements-model-heatmap');
    const svg = await page.evaluate(() => document.getElementById('b').toSVG());
    assert.match(svg, />Attention weights of the built-in induction model, L1H0<\/text>/);
    assert.equal((svg.match(/<rect /g) ?? []).length >= n * n, true);
    // Picking head 2 shows it without a new attribute.
    await page.evaluate(() =>
      document.getElementById('b').shadowRoot.querySelectorAll('[part="head-picker"] button')[2].click(),
    );
    await page.waitForFunction(() =>
      document.getElementById('b').shadowRoot.querySelector('[part="title"]')?.textContent.endsWith('L1H2'),
    );
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('builtin: model-view shows every layer × head, each the weights of loadModel/run; ablate changes next', async () => {
  const session = await open('blank.html', { width: 390 });
  const { page } = session;
  try {
    await setUp(page);
    await add(page, 'mv', 'attention-heatmap', { model: 'builtin', 'model-view': '', sentence: SENTENCE });
    const ref = await page.evaluate((s) => window.reference('builtin', s), SENTENCE);
    const got = await shown(page, 'mv');
    assert.equal(got.maps, 8, '2 layers × 4 heads');
    const n = ref.tokens.length;
    // L0H2 (the previous-token head) by keyboard: focus its map, move to query 6, key 5 (from 1).
    const map = page.locator('#mv').locator('[part="model-view"] canvas').nth(2);
    await map.focus();
    for (const key of [...Array(5).fill('ArrowDown'), ...Array(4).fill('ArrowRight')]) await map.press(key);
    const read = (await shadowTexts(page, 'mv', '[part="readout"]'))[0];
    const k = 2 * n * n + 5 * n + 4;
    assert.equal(
      read,
      `L0H2: query “${ref.tokens[5]}” → key “${ref.tokens[4]}”: weight ${ref.attentions[0][k].toFixed(3)}`,
    );
    // Every map is drawn from its head's weights: each cell of the last query's row has the colour of run's weight.
    const wrong = await page.evaluate(
      async ({ attentions, count }) => {
        const { weightColor } = await import('/web/src/shared/colors.js');
        const maps = document.getElementById('mv').shadowRoot.querySelectorAll('[part="model-view"] canvas');
        const bad = [];
        maps.forEach((canvas, m) => {
          const [layer, head] = [Math.floor(m / 4), m % 4];
          const cell = canvas.width / count;
          for (let j = 0; j < count; j++) {
            const pixel = canvas.getContext('2d').getImageData((j + 0.5) * cell, canvas.height - cell / 2, 1, 1).data;
            const want = weightColor(attentions[layer][(head * count + count - 1) * count + j]).css;
            if (`rgb(${pixel[0]}, ${pixel[1]}, ${pixel[2]})` !== want) bad.push(`${m}:${j} ${pixel} ${want}`);
          }
        });
        return bad;
      },
      { attentions: ref.attentions, count: n },
    );
    assert.deepEqual(wrong, []);
    await screenshot(page, 'mv', 'elements-model-view-390');

    // ablate="1.0 1.1 1.2 1.3": the induction heads off, the repeat is no longer continued.
    await add(page, 'ab', 'attention-heatmap', {
      model: 'builtin',
      layer: '1',
      sentence: SENTENCE,
      next: '',
      ablate: '1.0 1.1 1.2 1.3',
    });
    const off = [
      [1, 0],
      [1, 1],
      [1, 2],
      [1, 3],
    ];
    const refOff = await page.evaluate(([s, a]) => window.reference('builtin', s, { ablate: a }), [SENTENCE, off]);
    const ablated = await shown(page, 'ab');
    assert.notEqual(refOff.next[0].token.trim(), 'ball');
    ablated.next.forEach((text, k) => assert.ok(text.startsWith(refOff.next[k].token.trim()), `${text}`));
    assert.deepEqual(await shadowTexts(page, 'ab', '.sub:nth-of-type(3)'), ['Switched off: L1H0, L1H1, L1H2, L1H3']);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('builtin: the explorer walks L1H0 with the numbers of its capture', async () => {
  const session = await open();
  const { page } = session;
  const sentence = 'the cat saw a cat';
  try {
    await setUp(page);
    await add(page, 'x', 'attention-explorer', {
      model: 'builtin',
      layer: '1',
      head: '0',
      sentence,
      steps: 'x qkv scores scale mask softmax output wo positions',
    });
    const [ref] = (
      await page.evaluate((s) => window.reference('builtin', s, { capture: [{ layer: 1, head: 0 }] }), sentence)
    ).captures;
    assert.equal(await page.evaluate(() => document.getElementById('x').status), 'ready', await message(page, 'x'));
    const tables = { x: 'x', q: 'q', k: 'k', v: 'v', rawScores: 'rawScores', scaledScores: 'scaledScores' };
    Object.assign(tables, { weights: 'weights', output: 'headOutput', concat: 'concat', layerOutput: 'output' });
    for (const [shownName, key] of Object.entries(tables)) {
      const shownRows = await shownMatrix(page, 'x', shownName);
      assert.equal(shownRows.length, ref[key].length, shownName);
      shownRows.forEach((row, i) =>
        row.forEach((value, j) => {
          if (Number.isNaN(value) && ['rawScores', 'scaledScores', 'weights'].includes(shownName) && j > i) return;
          assert.ok(
            Math.abs(value - ref[key][i][j]) <= 0.5e-3 + 1e-6,
            `${shownName}[${i}][${j}]: ${value} vs ${ref[key][i][j]}`,
          );
        }),
      );
    }
    assert.match(await message(page, 'x'), /positions cannot be shown on a real model/);
    await page.locator('#x').screenshot({ path: `${ARTIFACTS}/elements-model-explorer.png` });
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('a tiny LLaMA by ids: the explorer shows q and k after RoPE and the scores of its capture', async () => {
  const session = await open('blank.html', { width: 390 });
  const { page } = session;
  try {
    await setUp(page, { './llama/': { kind: 'llamaFixture', options: {} } });
    await add(page, 'l', 'attention-explorer', {
      model: './llama/',
      ids: '1 2 3 4',
      steps: 'qkv scores',
      precision: '4',
    });
    const [ref] = (
      await page.evaluate(() =>
        window.reference('./llama/', { ids: [1, 2, 3, 4] }, { capture: [{ layer: 0, head: 0 }] }),
      )
    ).captures;
    assert.equal(await page.evaluate(() => document.getElementById('l').status), 'ready', await message(page, 'l'));
    for (const [name, key] of [
      ['qRotated', 'qRotated'],
      ['rawScores', 'rawScores'],
    ]) {
      const rows = await shownMatrix(page, 'l', name);
      assert.equal(rows.length, 4, name);
      rows.forEach((row, i) =>
        row.forEach((value, j) => assert.ok(Math.abs(value - ref[key][i][j]) <= 0.5e-4 + 1e-6, `${name}[${i}][${j}]`)),
      );
    }
    await page.locator('#l').screenshot({ path: `${ARTIFACTS}/elements-model-llama-390.png` });
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('a tiny GPT-2 without a tokenizer, by ids: layer 2 weights and next as run gives them; the event carries them', async () => {
  const session = await open('blank.html', { colorScheme: 'dark' });
  const { page } = session;
  try {
    await setUp(page, { './tiny/': { kind: 'gpt2Fixture', options: { layers: 2, heads: 2 } } });
    await page.evaluate(() => {
      window.events = [];
      document.addEventListener('attention-change', (e) => window.events.push(e.detail.weights));
    });
    await add(page, 't', 'attention-heatmap', { model: './tiny/', layer: '1', head: '1', ids: '3 1 4 1 5', next: '' });
    const ref = await page.evaluate(() => window.reference('./tiny/', { ids: [3, 1, 4, 1, 5] }));
    const got = await shown(page, 't');
    assert.equal(got.status, 'ready', await message(page, 't'));
    assert.deepEqual(got.weights, ref.attentions[1]);
    assert.deepEqual(got.tokens, ['3', '1', '4', '1', '5']);
    const event = await page.evaluate(() => window.events.at(-1));
    assert.deepEqual(
      event.flat(2),
      ref.attentions[1].map((v) => Math.fround(v)),
    );
    got.next.forEach((text, k) => assert.ok(text.startsWith(`#${ref.next[k].id}`), text));
    await screenshot(page, 't', 'elements-model-ids-dark');
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('a tiny BERT by ids: no mask, its weights as run gives them, and `next` is refused politely', async () => {
  const session = await open();
  const { page } = session;
  try {
    await setUp(page, { './bert/': { kind: 'bertFixture', options: {} } });
    await add(page, 'bert', 'attention-heatmap', { model: './bert/', ids: '2 5 7 3', next: '' });
    const ref = await page.evaluate(() => window.reference('./bert/', { ids: [2, 5, 7, 3] }));
    const got = await shown(page, 'bert');
    assert.equal(got.status, 'ready');
    assert.deepEqual(got.weights, ref.attentions[0]);
    assert.equal(got.cells.filter((c) => /masked/.test(c)).length, 0, 'BERT looks both ways');
    assert.deepEqual(got.next, []);
    assert.match(await message(page, 'bert'), /next: bert predicts masked tokens/);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('a bad model is a polite message: not found, an unsupported family, a bad value, a layer it lacks', async () => {
  const session = await open();
  const { page } = session;
  try {
    await setUp(page, { './t5/': { kind: 'gpt2Fixture', options: {}, edit: 'family' } });
    await add(page, 'missing', 'attention-heatmap', { model: './no-such-model/', sentence: 'a b' });
    await add(page, 't5', 'attention-heatmap', { model: './t5/', ids: '1 2' });
    await add(page, 'bad', 'attention-heatmap', { model: 'not a model!' });
    await add(page, 'deep', 'attention-heatmap', { model: 'builtin', layer: '9', sentence: 'the cat' });
    for (const id of ['missing', 't5', 'bad']) {
      assert.equal((await shown(page, id)).status, 'error', id);
    }
    assert.match(await message(page, 'missing'), /could not be loaded[^]*no-such-model/);
    assert.match(await message(page, 't5'), /could not be loaded[^]*t5[^]*gpt2/i);
    assert.match(await message(page, 'bad'), /model="not a model!" should be builtin/);
    assert.equal((await shown(page, 'deep')).status, 'ready');
    assert.match(
      await message(page, 'deep'),
      /layer="9" is not in this model \(layers 0 to 1, heads 0 to 3: they count from 0\), so layer 0 is shown/,
    );
    // It shows layer 0, so it ran layer 0 alone (the layers it needs).
    assert.equal(await page.evaluate(() => document.getElementById('deep').result.attentions.length), 1);
    await screenshot(page, 't5', 'elements-model-unsupported');
    // Nothing thrown into the page (the 404 of the missing folder is the only console error).
    const csp = await page.evaluate(() => window.__csp);
    assert.deepEqual([...session.problems.errors, ...csp], []);
  } finally {
    await session.context.close();
  }
});
