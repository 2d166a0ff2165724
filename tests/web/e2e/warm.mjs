// Page tests (run by run.mjs): the warm-up (warmUp.js) rehearses each kind of change once after the first numbers,
// and leaves the page exactly as a page without it: the same link, numbers (to the bit), texts, pictures and
// controls; the prepared layer and its result arrays as they were, so the next edit still projects only its rows.
// Nothing here is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allCopied } from './copied.mjs';
import { afterChange, settle, typeInCell, withPage } from './helpers.mjs';
import { env } from './session.mjs';

const WORDS = Array.from({ length: 16 }, (_, i) => `w${i}`).join('+');
// 4 heads (another head is rehearsed), the second shown, an edited cell of X (the link keeps it), causal.
const HASH = `#s=${WORDS}&n=16&dm=16&dk=4&dv=4&h=4&head=2&causal=1&x=*3,2,0.5`;
const NAMES = ['x', 'wq', 'q', 'k', 'v', 'rawScores', 'scores', 'weights', 'output', 'concat', 'layerOutput'];

/** What the page shows: its link and render count, every text of the steps, the controls, and each canvas's pixels. */
const snapshot = (page) =>
  page.evaluate(() => {
    const digest = (text) => {
      let h = 0;
      for (let k = 0; k < text.length; k++) h = (Math.imul(h, 31) + text.charCodeAt(k)) | 0;
      return h;
    };
    return {
      hash: location.hash,
      renders: document.body.dataset.renders,
      projectedRows: document.body.dataset.projectedRows,
      text: document.querySelector('main').innerText,
      controls: Array.from(document.querySelectorAll('.controls input, .controls select'), (input) =>
        ['checkbox', 'radio'].includes(input.type) ? input.checked : input.value,
      ),
      canvases: Array.from(document.querySelectorAll('main canvas'), (canvas) =>
        canvas.width && canvas.height ? `${canvas.width}×${canvas.height} ${digest(canvas.toDataURL())}` : 'empty',
      ),
    };
  });

describe('the warm-up after the first numbers', () => {
  test('rehearses each kind of change and leaves the page showing exactly what a page without it shows', async () => {
    const shown = {};
    for (const [name, query] of [
      ['rehearsed', ''],
      ['plain', '?nowarm'],
    ]) {
      await withPage(env, { hash: `${query}${HASH}` }, async ({ page }) => {
        if (name === 'rehearsed') {
          await page.waitForFunction(() => document.documentElement.dataset.warm === 'done');
          // causal, a word typed, a number edited, another head: all four ran, in each of the three rounds.
          assert.equal(await page.evaluate(() => document.documentElement.dataset.rehearsed), '12');
        } else {
          await page.waitForFunction(() => document.body.classList.contains('settled'));
          assert.equal(await page.evaluate(() => document.documentElement.dataset.warm ?? null), null);
        }
        await settle(page);
        shown[name] = { ...(await snapshot(page)), copied: await allCopied(page, NAMES) };
        // The prepared layer kept its rows and arrays: an edit projects its group of 4 rows, and shows what a page
        // opened on the edited state shows.
        await afterChange(page, () => typeInCell(page, 'x', 9, 3, '0.25'));
        shown[name].edit = {
          projected: await page.evaluate(() => document.body.dataset.projectedRows),
          copied: await allCopied(page, NAMES),
        };
      });
    }
    assert.ok(shown.plain.text.length > 1000 && shown.plain.canvases.length > 0, 'the snapshot holds the page');
    assert.deepEqual(shown.rehearsed, shown.plain);
    assert.equal(shown.rehearsed.edit.projected, '4');
  });
});
