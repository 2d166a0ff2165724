// Page tests (run by run.mjs): "New seed" on a GPT-2-sized layer shows a result a worker computed ahead
// (seedAhead.js takeResultAhead), and it must be bit for bit the result of the page's own call: every step the page
// copies, for some heads (with concat and the layer output, which all heads make), against a page opened on the same state (which computes it itself). Also when the options
// change just before the click (the result made ahead is then not used) and when the worker made it again for them.
// Nothing here is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterChange, settle, withPage } from './helpers.mjs';
import { env } from './session.mjs';
import { allCopied } from './copied.mjs';

const WORDS = Array.from({ length: 64 }, (_, i) => `w${i}`).join('+');
const GPT2 = `#s=${WORDS}&n=64&dm=768&dk=64&dv=64&h=12`;
const OLD_CAPS = `#s=${WORDS}&n=64&dm=64&dk=8&dv=8&h=8`;
/** The result's steps the page shows per head, and those of all heads (concat, the layer's output). */
const PER_HEAD = ['q', 'k', 'v', 'rawScores', 'scaledScores', 'scores', 'weights', 'output'];
const WHOLE = ['concat', 'layerOutput'];

const resultsAhead = (page) => page.evaluate(() => Number(document.documentElement.dataset.resultsAhead ?? 0));

async function waitReady(page) {
  await page.waitForFunction(() => document.documentElement.dataset.seedAhead === 'ready');
}

/** Every step's copied numbers, for `heads` (then the head shown as before). */
async function resultTexts(page, heads) {
  const shown = await page.inputValue('#head');
  const texts = await allCopied(page, WHOLE);
  for (const head of heads) {
    await afterChange(page, () => page.selectOption('#head', String(head)));
    for (const [name, text] of Object.entries(await allCopied(page, PER_HEAD))) texts[`${name}, head ${head}`] = text;
  }
  await afterChange(page, () => page.selectOption('#head', shown));
  return texts;
}

/** The link of the state shown (written to the address 250 ms after a change). */
async function hashOf(page, seed) {
  await page.waitForFunction((s) => location.hash.includes(`&seed=${s}&`), seed);
  return page.evaluate(() => location.hash);
}

/** Clicks "New seed" (or runs `click`) and returns the seed shown and the link of the state. */
async function newSeed(page, click = () => page.click('#new-seed')) {
  const before = await page.inputValue('#seed');
  await afterChange(page, click);
  const seed = await page.inputValue('#seed');
  assert.notEqual(seed, before, 'a new seed is shown');
  return { seed, hash: await hashOf(page, seed) };
}

/** Asserts that a page opened on `hash` (computing its own result) copies `texts`. */
async function assertOwnCall(hash, texts, heads, what) {
  await withPage(env, { hash }, async ({ page }) => {
    const own = await resultTexts(page, heads);
    for (const [name, text] of Object.entries(own)) {
      assert.ok(text.length > 100, `${name} was copied`);
      const at = [...text].findIndex((c, i) => c !== texts[name]?.[i]);
      const near = (t) => JSON.stringify(t?.slice(Math.max(0, at - 40), at + 40));
      assert.ok(
        texts[name] === text,
        `${what}, ${name}: the result made ahead differs from the page's own call's at character ${at}: ${near(texts[name])} against ${near(text)}`,
      );
    }
  });
}

describe("New seed's result made ahead", () => {
  test("two new seeds in a row show results made in the worker, bit for bit the page's own", async () => {
    const shown = [];
    await withPage(env, { hash: GPT2 }, async ({ page }) => {
      await waitReady(page);
      const taken = await resultsAhead(page);
      for (let click = 1; click <= 2; click++) {
        const { hash } = await newSeed(page);
        assert.equal(await resultsAhead(page), taken + click, `click ${click}: the result was made ahead`);
        await settle(page);
        shown.push({ hash, texts: await resultTexts(page, [0, 11]) });
      }
    });
    for (const [k, { hash, texts }] of shown.entries()) await assertOwnCall(hash, texts, [0, 11], `click ${k + 1}`);
  });

  test('options changed before the click: the page computes; made again in the worker: the same bits', async () => {
    const shown = [];
    await withPage(env, { hash: GPT2 }, async ({ page }) => {
      await waitReady(page);
      const taken = await resultsAhead(page);
      // The causal mask switched on, and New seed clicked in the same task: before the worker can make it again.
      const stale = await newSeed(page, () =>
        page.evaluate(() => {
          document.getElementById('causal').click();
          document.getElementById('new-seed').click();
        }),
      );
      assert.equal(await resultsAhead(page), taken, 'a result made for other options is not used');
      await settle(page);
      shown.push({ ...stale, texts: await resultTexts(page, [5]) });
      await waitReady(page);
      const fresh = await newSeed(page);
      assert.equal(await resultsAhead(page), taken + 1, 'the result made again for the causal mask is used');
      await settle(page);
      shown.push({ ...fresh, texts: await resultTexts(page, [5]) });
    });
    for (const [k, { hash, texts }] of shown.entries()) {
      assert.match(hash, /&causal=1&/u);
      await assertOwnCall(hash, texts, [5], k === 0 ? 'computed by the page' : 'made again in the worker');
    }
  });
});

describe('Which layers are made ahead', () => {
  test('the old caps (n = 64, d_model = 64, 8 heads) are made ahead, bit for bit; the default size at the click', async () => {
    let made;
    await withPage(env, { hash: OLD_CAPS }, async ({ page }) => {
      await waitReady(page);
      const taken = await resultsAhead(page);
      const { hash } = await newSeed(page);
      assert.equal(await resultsAhead(page), taken + 1, 'the result was made ahead');
      await settle(page);
      made = { hash, texts: await resultTexts(page, [0, 7]) };
    });
    await assertOwnCall(made.hash, made.texts, [0, 7], 'old caps');
    await withPage(env, {}, async ({ page }) => {
      await newSeed(page);
      assert.equal(await resultsAhead(page), 0, 'nothing made ahead at the default size');
    });
  });
});

describe('New seed without the seed-ahead worker', () => {
  test('a worker that cannot start: the page makes the seed itself and stays clean', async () => {
    const route = (page) => page.route(/seedAheadWorker[^/]*\.js$/u, (request) => request.abort());
    const allowConsole = [/Failed to load resource|net::ERR_FAILED|seedAheadWorker/u];
    await withPage(env, { hash: GPT2, route, allowConsole }, async ({ page }) => {
      await page.waitForFunction(() => document.documentElement.dataset.seedAhead === 'off');
      await newSeed(page);
      assert.equal(await resultsAhead(page), 0, 'no result made ahead');
      const texts = await resultTexts(page, []);
      for (const [name, text] of Object.entries(texts)) assert.ok(text.length > 100, `${name} is shown`);
    });
  });
});
