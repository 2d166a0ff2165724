// Page tests (run by run.mjs): edits on a prepared layer (prepareSelfAttention) project x·W again only for the
// edited token's group of rows, say so in the status line, and show the numbers of a page opened on the edited
// state, which computes everything with selfAttention. Nothing here is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allCopied } from './copied.mjs';
import { afterChange, settle, typeInCell, withPage } from './helpers.mjs';
import { env } from './session.mjs';

const WORDS = Array.from({ length: 16 }, (_, i) => `w${i}`).join('+');
const HASH = `#s=${WORDS}&n=16&dm=16&dk=4&dv=4&h=4`;
const NAMES = ['q', 'k', 'v', 'scores', 'weights', 'output', 'concat', 'layerOutput'];

describe('edits on a prepared layer', () => {
  test('an edited number projects its token again, and the page shows what a fresh page computes', async () => {
    let edited;
    let hash;
    await withPage(env, { hash: HASH }, async ({ page }) => {
      await settle(page);
      // The layer is prepared after the first render: the first edits may still run on selfAttention.
      let projected = '16';
      for (let attempt = 0; attempt < 10 && projected !== '4'; attempt++) {
        await afterChange(page, () => typeInCell(page, 'x', 9, 3, String(0.25 + attempt / 100)));
        projected = await page.evaluate(() => document.body.dataset.projectedRows);
      }
      assert.equal(projected, '4', 'one edited token projects its group of 4 rows');
      const status = await page.textContent('#status-time');
      assert.match(status, /x·W projected again for 4 of 16 tokens/);
      await afterChange(page, () => page.click('#causal'));
      assert.equal(await page.evaluate(() => document.body.dataset.projectedRows), '0', 'causal projects nothing');
      // The layer writes its results into two sets of arrays in turn (calls.js runInto): two more edits write into
      // both again while the page shows the other; the numbers shown must still be the last call's.
      await afterChange(page, () => typeInCell(page, 'x', 2, 0, '-0.5'));
      await afterChange(page, () => typeInCell(page, 'x', 5, 1, '0.75'));
      assert.equal(await page.evaluate(() => document.body.dataset.projectedRows), '4', 'still on the layer');
      // A 17th word: the same weights, a longer x. The arrays kept for 16 tokens no longer fit; the layer computes
      // into new ones, every row projected (a new shape).
      await afterChange(page, () => page.fill('#sentence', `${WORDS.replaceAll('+', ' ')} w16`));
      assert.equal(await page.evaluate(() => document.body.dataset.projectedRows), '17', 'a new shape projects all');
      assert.equal(await page.isVisible('#compute-error'), false);
      await settle(page);
      edited = await allCopied(page, NAMES);
      hash = await page.evaluate(() => window.location.hash);
    });
    await withPage(env, { hash }, async ({ page }) => {
      await settle(page);
      assert.equal(await page.evaluate(() => document.body.dataset.projectedRows), '17', 'a fresh page projects all');
      const fresh = await allCopied(page, NAMES);
      for (const name of Object.keys(edited)) {
        assert.ok(edited[name].length > 20, `${name} was copied`);
        assert.equal(edited[name], fresh[name], `${name}: the layer's numbers are a fresh page's`);
      }
    });
  });
});
