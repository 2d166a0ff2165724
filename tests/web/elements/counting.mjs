// The elements count layers and heads from 0 (issue 33): layer="0" is the first layer and head="2" the third head,
// checked against attention-wasm/model's run in the page; attributes written for the older elements, which counted
// from 1 (layer="2" head="1" ablate="2.1" on the 2-layer built-in model), show the polite message that names the new
// form and the head they meant; a head out of range names the range. Screenshot: tests/artifacts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, add, assertClean, message, open, shadowTexts } from './env.mjs';

const INDUCTION = '/web/public/models/induction/';
const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';

/** In the page: the built-in model's attentions by loadModel/run on its files, with `ablate`. */
const reference = (page, ablate = []) =>
  page.evaluate(
    async ({ folder, sentence, off }) => {
      const { loadModel } = await import('/src/js/model/index.js');
      const names = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
      const files = new Map(
        await Promise.all(
          names.map(async (n) => [n, new Uint8Array(await (await fetch(`${folder}${n}`)).arrayBuffer())]),
        ),
      );
      const model = await loadModel(files);
      const out = await model.run(sentence, { ablate: off });
      return out.attentions.map((t) => Array.from(t.data));
    },
    { folder: INDUCTION, sentence: SENTENCE, off: ablate },
  );

const weightsOf = (page, id) => page.evaluate((e) => Array.from(document.getElementById(e).result.weights.data), id);
const titleOf = async (page, id) => (await shadowTexts(page, id, '[part="title"]')).join(' ');

test('model: layer="0" is the first layer and head="2" its third head, labelled L0H2', async () => {
  const session = await open('blank.html');
  const { page } = session;
  try {
    await add(page, 'first', 'attention-heatmap', { model: 'builtin', layer: '0', head: '2', sentence: SENTENCE });
    assert.equal(await message(page, 'first'), '', 'no message: the attributes are in the new form');
    const ref = await reference(page);
    assert.deepEqual(await weightsOf(page, 'first'), ref[0], "the result's weights are the first layer's");
    assert.match(await titleOf(page, 'first'), /L0H2$/u);
    const picked = await page.evaluate(() =>
      Array.from(
        document.getElementById('first').shadowRoot.querySelectorAll('[part="head-picker"] button'),
        (b) => `${b.textContent}:${b.getAttribute('aria-pressed')}`,
      ),
    );
    assert.deepEqual(picked, ['0:false', '1:false', '2:true', '3:false'], 'the head picker counts from 0');
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('model: attributes counted from 1 (layer="2" head="1" ablate="2.1") say so, name the new form and show L1H0', async () => {
  const session = await open('blank.html');
  const { page } = session;
  try {
    await add(page, 'old', 'attention-heatmap', {
      model: 'builtin',
      layer: '2',
      head: '1',
      ablate: '2.1',
      sentence: SENTENCE,
    });
    const said = await message(page, 'old');
    assert.match(
      said,
      /layer="2" head="1" ablate="2\.1" count from 1, as older versions of the elements did: layers and heads count from 0, so this shows L1H0 with L1H0 switched off, written layer="1" head="0" ablate="1\.0"/u,
    );
    const ref = await reference(page, [[1, 0]]);
    assert.deepEqual(await weightsOf(page, 'old'), ref[1], 'the second layer, with L1H0 switched off');
    assert.match(await titleOf(page, 'old'), /L1H0$/u);
    await page.locator('#old').screenshot({ path: `${ARTIFACTS}/elements-old-count.png` });

    await add(page, 'far', 'attention-heatmap', { model: 'builtin', layer: '0', head: '7', sentence: SENTENCE });
    assert.match(
      await message(page, 'far'),
      /head="7" is not in this model \(layers 0 to 1, heads 0 to 3: they count from 0\), so head 0 is shown/u,
    );
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('example: head="1" of two heads is the second; head="2", counted from 1, says so and shows head 1', async () => {
  const session = await open('blank.html');
  const { page } = session;
  try {
    await add(page, 'new', 'attention-heatmap', { sentence: 'a b c', heads: '2', head: '1' });
    assert.equal(await message(page, 'new'), '');
    assert.equal(await page.evaluate(() => document.getElementById('new').head), 1);
    await add(page, 'old', 'attention-heatmap', { sentence: 'a b c', heads: '2', head: '2' });
    assert.match(
      await message(page, 'old'),
      /head="2" counts from 1, as older versions of the elements did: heads count from 0, so this shows head 1, written head="1"/u,
    );
    assert.equal(await page.evaluate(() => document.getElementById('old').head), 1);
    await add(page, 'bad', 'attention-heatmap', { sentence: 'a b c', heads: '2', head: '5' });
    assert.match(await message(page, 'bad'), /head="5" should be a head from 0 to 1 \(heads count from 0\)/u);
    // A permalink of an older page (version 2 counted the head from 1): read as it meant, and said.
    await add(page, 'link', 'attention-heatmap', { state: 'v=2&s=a+b+c&n=3&h=2&head=2' });
    assert.match(await message(page, 'link'), /state: This link counts heads from 1 .* now written head=1/u);
    assert.equal(await page.evaluate(() => document.getElementById('link').head), 1);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});
