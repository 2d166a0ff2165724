// Page test (run by run.mjs): layers and heads counted from 0 on the page (issue 33): the model view's L0H2, the
// switched-off heads, the walk, the pickers and the block view; a link written from the older labels
// (?layer=2&head=1&ablate=2.1) and an older example link (#v=2&…&head=3) say how they are written now and open what
// they meant. Issue 35 §1: the documented query form (?model=builtin&text=…&layer=…&head=…, no #…) opens the head in
// the steps as the page's own link does, status line included (item 3); Embed… with a model head carries the model,
// layer, head, sentence and ablations, and for dropped files says why it cannot (item 1). Numbers are checked against
// attention-wasm/model run here in Node. Screenshots: tests/artifacts/real-model-embed*.png.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { gpt2Fixture } from '../../../js/model/fixtures.js';
import { byteLevelTokenizer } from '../../../js/model/tokenizers.js';
import { ARTIFACTS, assertShown, readMatrix, readNumbers, settle, withPage } from '../helpers.mjs';
import { INDUCTION, SENTENCE, dropAsFiles, openBuiltin, runs, waitForRun } from './helpers.mjs';
import { PRECISION, env } from '../session.mjs';

const texts = (page, selector) => page.$$eval(selector, (nodes) => nodes.map((n) => n.textContent.trim()));
const walkText = (page) => page.textContent('#model-walk');

/** Waits until the walk says that `name` is in the steps, and the steps are drawn. */
async function walkShows(page, name) {
  await page.waitForFunction((n) => document.getElementById('model-walk').textContent.startsWith(`${n} `), name, {
    timeout: 60000,
  });
  await settle(page);
}

/** The steps' weights against the model's own capture of `layer`, `head` (with `ablate`). */
async function assertWalkOf(page, model, { layer, head, ablate = [] }, what) {
  const r = await model.run(SENTENCE, { ablate, capture: [{ layer, head }] });
  assertShown(await readNumbers(page, 'weights'), r.captures[0].weights.toArray(), PRECISION, `${what}: weights`);
  assert.deepEqual((await readMatrix(page, 'weights')).rowLabels.slice(0, 3), ['the', 'cat', 'saw'], what);
}

const query = (values) => `?${new URLSearchParams(values)}`;

describe('real model: counting from 0, links and Embed…', () => {
  test('labels read L0H…: the model view, the heads switched off, the walk, the pickers, the block view', async () => {
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      assert.deepEqual(await texts(page, '.head-button'), [
        'L0H0',
        'L0H1',
        'L0H2',
        'L0H3',
        'L1H0',
        'L1H1',
        'L1H2',
        'L1H3',
      ]);
      assert.deepEqual(await texts(page, '.model-layer-title'), ['layer 0', 'layer 1']);
      assert.equal(
        await page.getAttribute('.ablate-button[data-layer="0"][data-head="2"]', 'aria-label'),
        'off: switch off L0H2',
      );
      let n = await runs(page);
      await page.click('.ablate-button[data-layer="1"][data-head="0"]');
      await waitForRun(page, n);
      assert.match(await page.textContent('#model-ablated'), /^Switched off: L1H0\.( |$)/u);
      await page.click('.head-button[data-layer="0"][data-head="2"]');
      await walkShows(page, 'L0H2');
      assert.match(await walkText(page), /^L0H2 \(layer 0 head 2\) is in the steps below/u);
      assert.deepEqual(await texts(page, '#head option'), ['head 0', 'head 1', 'head 2', 'head 3']);
      assert.match((await readMatrix(page, 'q')).title, /\(head 2 of 4\)/u);
      assert.deepEqual(await texts(page, '#model-views-layer option'), ['0', '1']);
      await page.evaluate(() => (document.querySelector('.block-view').closest('details').open = true));
      await page.waitForFunction(() => document.querySelector('.block-view-title').textContent !== '');
      assert.match(await page.textContent('.block-view-title'), /^Layer 0 of 2 /u);
      // the scale's top and 0, then a bar each: the embeddings, layer 0's output, and after the final norm (layer 1's
      // own output is a bar when layer 1 is shown)
      assert.deepEqual((await texts(page, '.block-view-chart text.block-view-axis')).slice(2), ['emb', 'L0', 'final']);
      n = await runs(page);
      await page.click('text=Switch every head on');
      await waitForRun(page, n);
    });
  });

  test('a link written from the older labels (?layer=2&head=1&ablate=2.1) says how it is written now and opens L1H0 with L1H0 off', async () => {
    const model = await loadModel(INDUCTION);
    const link = query({ model: 'builtin', text: SENTENCE, layer: '2', head: '1', ablate: '2.1' });
    await withPage(env, { hash: link }, async ({ page }) => {
      await waitForRun(page);
      await walkShows(page, 'L1H0');
      assert.equal(
        await page.textContent('#model-link-note'),
        'This link counts layers and heads from 1 (an older version of the page): it now opens L1H0 (layer 1 head 0) and switches off L1H0, written ?layer=1&head=0&ablate=1.0.',
      );
      assert.ok(await page.isVisible('#model-link-note'));
      assert.equal(await page.getAttribute('.ablate-button[data-layer="1"][data-head="0"]', 'aria-pressed'), 'true');
      await assertWalkOf(page, model, { layer: 1, head: 0, ablate: [[1, 0]] }, 'the older link');
      await page.waitForTimeout(300); // the link is written 100 ms after the run, the hash 250 ms after a change
      const url = new URL(await page.evaluate(() => location.href));
      assert.deepEqual(
        ['layer', 'head', 'ablate'].map((key) => url.searchParams.get(key)),
        ['1', '0', '1.0'],
        'the page writes the new form',
      );
    });
    // A layer this model has neither way is named, never dropped without a word.
    await withPage(env, { hash: query({ model: 'builtin', layer: '7', head: '0' }) }, async ({ page }) => {
      await waitForRun(page);
      await page.waitForSelector('#model-link-note:not([hidden])');
      assert.match(
        await page.textContent('#model-link-note'),
        /^This link names layer=7, which this model does not have \(layers 0 to 1, heads 0 to 3: they count from 0\), so it is left out\.$/u,
      );
    });
  });

  test('the documented query form (no #…) opens the head in the steps as the page’s own link does, status line included', async () => {
    const model = await loadModel(INDUCTION);
    const documented = query({ model: 'builtin', text: SENTENCE, layer: '1', head: '2' });
    const seen = {};
    let own;
    for (const [name, hash] of [
      ['documented', documented],
      ['own', null],
    ]) {
      await withPage(env, { hash: hash ?? own }, async ({ page }) => {
        await waitForRun(page);
        await walkShows(page, 'L1H2');
        await assertWalkOf(page, model, { layer: 1, head: 2 }, name);
        assert.match(await page.inputValue('#sentence'), /^the cat saw a red ball/u, `${name}: the steps' sentence`);
        assert.equal(await page.getAttribute('.head-button[data-layer="1"][data-head="2"]', 'aria-pressed'), 'true');
        assert.ok(await page.isHidden('#model-link-note'), `${name}: nothing to say of the link`);
        await page.waitForTimeout(300); // the page's own link is written meanwhile
        own ??= (await page.evaluate(() => location.href)).slice(env.server.url.length);
        seen[name] = {
          walk: await walkText(page),
          status: (await page.textContent('#model-status')).replace(/\d+ ms/u, '… ms'),
        };
      });
    }
    assert.match(own, /#v=3&s=the\+cat/u, 'the page’s own link holds its example');
    assert.match(seen.documented.status, /^Ran 16 tokens in … ms; .* of weights read\.$/u);
    assert.deepEqual(seen.documented, seen.own);
  });

  test('Embed… with a model head carries the model, layer, head, sentence and ablations; its iframe opens that head', async () => {
    const model = await loadModel(INDUCTION);
    const link = query({ model: 'builtin', text: SENTENCE, layer: '1', head: '2', ablate: '1.0' });
    let snippets;
    await withPage(env, { hash: link, viewport: { width: 1280, height: 1400 } }, async ({ page }) => {
      await waitForRun(page);
      await walkShows(page, 'L1H2');
      await page.click('#embed-button');
      snippets = {
        element: await page.inputValue('#embed-element'),
        iframe: await page.inputValue('#embed-iframe'),
        note: await page.textContent('#embed-model-note'),
      };
      await page.locator('#embed-panel').scrollIntoViewIfNeeded();
      await page.locator('.controls section', { has: page.locator('#embed-panel') }).screenshot({
        path: `${ARTIFACTS}/real-model-embed.png`,
      });
    });
    assert.match(
      snippets.element,
      /\n<attention-explorer steps="scores scale mask softmax output" model="builtin" layer="1" head="2" sentence="the cat saw a red ball near the old tree \. the cat saw a red" ablate="1\.0"><\/attention-explorer>$/u,
    );
    assert.doesNotMatch(snippets.element, /state=|seed=/u, 'no random example');
    assert.equal(
      snippets.note,
      'The element loads the induction model shipped in the package with attention-wasm/model in the reader’s browser and shows L1H2 (layer 1 head 2) with L1H0 switched off.',
    );
    const src = /src="([^"]+)"/u.exec(snippets.iframe)[1].replaceAll('&amp;', '&');
    const url = new URL(src);
    assert.equal(url.hash, '', 'the iframe opens the head by its query, not a random example');
    assert.deepEqual(
      ['model', 'text', 'layer', 'head', 'ablate'].map((key) => url.searchParams.get(key)),
      ['builtin', SENTENCE, '1', '2', '1.0'],
    );
    await withPage(env, { hash: src.slice(env.server.url.length) }, async ({ page }) => {
      assert.ok(await page.evaluate(() => document.documentElement.classList.contains('embedded')));
      await waitForRun(page);
      await walkShows(page, 'L1H2');
      await assertWalkOf(page, model, { layer: 1, head: 2, ablate: [[1, 0]] }, 'the iframe');
    });
  });

  test('Embed… with a head of dropped files says plainly that it cannot be embedded, and why', async () => {
    const merges = ['Ġ t', 'Ġt h', 'Ġth e', 'c a', 'ca t'];
    const files = { ...gpt2Fixture({ vocab: 262 }).files, 'tokenizer.json': byteLevelTokenizer(merges) };
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await dropAsFiles(page, files);
      await page.waitForFunction(() => document.getElementById('model-about').textContent.endsWith('files'));
      const n = await runs(page);
      await page.fill('#model-text', 'cat the cat');
      await waitForRun(page, n);
      await page.click('.head-button[data-layer="1"][data-head="1"]');
      await walkShows(page, 'L1H1');
      await page.click('#embed-button');
      const note = await page.textContent('#embed-model-note');
      assert.match(note, /^This head is of model files dropped on this page: .* so it cannot be embedded\./u);
      assert.ok(await page.isHidden('#embed-element'), 'no snippet of another example instead');
      assert.ok(await page.isHidden('#embed-iframe'));
      await page.locator('#embed-panel').scrollIntoViewIfNeeded();
      await page.locator('#embed-panel').screenshot({ path: `${ARTIFACTS}/real-model-embed-files.png` });
    });
  });

  test('an older example link (#v=2&…&head=3) opens the head it meant and says how it is written now', async () => {
    const hash = '#v=2&s=time+flies+like+an+arrow&n=5&dm=16&dk=4&dv=4&h=4&head=3';
    await withPage(env, { hash }, async ({ page }) => {
      assert.equal(
        await page.textContent('#link-warning'),
        'This link counts heads from 1 (an older version of the page): it opens head 2, now written head=2.',
      );
      assert.equal(await page.inputValue('#head'), '2');
      await page.waitForFunction(() => location.hash.startsWith('#v=3&'));
      assert.match(await page.evaluate(() => location.hash), /&head=2$/u);
    });
  });
});
