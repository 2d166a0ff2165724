// Page tests (run by run.mjs): the warm-up (warmUp.js) rehearses each kind of change once after the first numbers,
// and a number's edit on a copy of X's grid that is never on the page (editRehearsal.js), and leaves the page exactly
// as a page without it: the same link, numbers (to the bit), texts, pictures and controls, the same element focused,
// nothing more in the document, nothing said in a live region; the prepared layer and its result arrays as they
// were, so the next edit still projects only its rows. Nothing here is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allCopied } from './copied.mjs';
import { afterChange, settle, typeInCell, withPage } from './helpers.mjs';
import { env } from './session.mjs';

const WORDS = (n) => Array.from({ length: n }, (_, i) => `w${i}`).join('+');
// 4 heads (another head is rehearsed), the second shown, an edited cell of X (the link keeps it), causal.
const HASH = `#s=${WORDS(16)}&n=16&dm=16&dk=4&dv=4&h=4&head=2&causal=1&x=*3,2,0.5`;
// X of [20, 20] is drawn as a heatmap: a number's edit goes through its zoomed block.
const LARGE = `#s=${WORDS(20)}&n=20&dm=20&dk=5&dv=5&h=4&head=1`;
// A layer large enough (33.5 M multiply-adds of projection) that a temperature step previews the weights first.
const PREVIEWED = `#s=${WORDS(32)}&n=32&dm=512&dk=64&dv=64&h=8`;
const NAMES = ['x', 'wq', 'q', 'k', 'v', 'rawScores', 'scores', 'weights', 'output', 'concat', 'layerOutput'];
// causal, a word typed, a number edited, another head, the temperature, and an edit on X's copy: each in each of the
// three rounds.
const REHEARSED = String(3 * 6);

/**
 * The lessons drawn only near the screen (LazySection, main.js), whenever the page's layout first brings them near
 * it (sooner or later after the steps settle): no rehearsal draws them, and the snapshot leaves them out.
 */
const LAZY = ['step-order', 'step-rope', 'step-kv', 'step-gqa', 'step-cross'];

/**
 * What the page shows: its link and render count, every text of the steps, the controls, each canvas's pixels, the
 * element focused, how many elements the document holds, what its live regions and the tooltip say.
 */
const snapshot = (page) =>
  page.evaluate((lazy) => {
    const main = document.querySelector('main');
    const drawnNearScreen = (node) => lazy.some((id) => node.closest(`#${id}`));
    const all = (selector) => Array.from(main.querySelectorAll(selector)).filter((node) => !drawnNearScreen(node));
    const digest = (text) => {
      let h = 0;
      for (let k = 0; k < text.length; k++) h = (Math.imul(h, 31) + text.charCodeAt(k)) | 0;
      return h;
    };
    const focused = document.activeElement;
    const tooltip = document.querySelector('.tooltip');
    return {
      hash: location.hash,
      renders: document.body.dataset.renders,
      projectedRows: document.body.dataset.projectedRows,
      pendingGrids: document.documentElement.dataset.pendingGrids,
      text: Array.from(main.children, (node) => (lazy.includes(node.id) ? '' : node.innerText)).join('\n'),
      controls: Array.from(document.querySelectorAll('.controls input, .controls select'), (input) =>
        ['checkbox', 'radio'].includes(input.type) ? input.checked : input.value,
      ),
      canvases: all('canvas').map((canvas) =>
        canvas.width && canvas.height ? `${canvas.width}×${canvas.height} ${digest(canvas.toDataURL())}` : 'empty',
      ),
      focus: focused === document.body ? 'body' : `${focused?.tagName}#${focused?.id}`,
      elements: document.getElementsByTagName('*').length - main.querySelectorAll(lazy.map((id) => `#${id} *`)).length,
      matrices: Array.from(document.querySelectorAll('[data-matrix]'), (node) => node.dataset.matrix),
      stale: Array.from(document.querySelectorAll('.stale'), (node) => node.dataset.matrix ?? node.className),
      live: all('[aria-live], [role="status"], [role="alert"]').map((node) => node.textContent),
      tooltip: tooltip ? `${tooltip.hidden} ${tooltip.textContent}` : 'none',
    };
  }, LAZY);

/**
 * Opens `hash` twice, rehearsed and with ?nowarm, with the focus on "New seed" from the first numbers on (the
 * warm-up may move nothing), waits for the warm-up, and returns what each page shows, before and after `then`.
 */
async function bothPages(hash, then, names = NAMES) {
  const shown = {};
  for (const [name, query] of [
    ['rehearsed', ''],
    ['plain', '?nowarm'],
  ]) {
    await withPage(env, { hash: `${query}${hash}` }, async ({ page }) => {
      await page.focus('#new-seed');
      if (name === 'rehearsed') {
        await page.waitForFunction(() => document.documentElement.dataset.warm === 'done');
        assert.equal(await page.evaluate(() => document.documentElement.dataset.rehearsed), REHEARSED);
      } else {
        await page.waitForFunction(() => document.body.classList.contains('settled'));
        assert.equal(await page.evaluate(() => document.documentElement.dataset.warm ?? null), null);
      }
      // What a page does on its own timers after its first numbers, soon or late, and a rehearsal not at all: the
      // link written in its long form (250 ms after the state), the √d_k experiment's charts (120 ms after).
      await page.waitForFunction(() => location.hash.startsWith('#v='));
      await page.waitForFunction(() => document.querySelector('#mount-charts svg') !== null);
      await settle(page);
      shown[name] = await snapshot(page);
      shown[name].copied = await allCopied(page, names);
      shown[name].then = await then(page);
    });
  }
  assert.ok(shown.plain.text.length > 1000 && shown.plain.canvases.length > 0, 'the snapshot holds the page');
  assert.equal(shown.plain.focus, 'BUTTON#new-seed');
  return shown;
}

describe('the warm-up after the first numbers', () => {
  test('rehearses each kind of change and leaves the page showing exactly what a page without it shows', async () => {
    const shown = await bothPages(HASH, async (page) => {
      // The inputs are the very arrays of the last call still: another head keeps the result, nothing recomputed.
      await afterChange(page, () => page.selectOption('#head', { index: 0 }));
      const status = await page.locator('#status-time').textContent();
      const headSwitch = { computeMs: await page.evaluate(() => document.body.dataset.computeMs), status };
      assert.match(status, /nothing recomputed/);
      // The prepared layer kept its rows and arrays: an edit projects its group of 4 rows, and shows what a page
      // opened on the edited state shows.
      await afterChange(page, () => typeInCell(page, 'x', 9, 3, '0.25'));
      return {
        headSwitch: { ...headSwitch, status: headSwitch.status.replace(/[\d.]+ ms/u, '… ms') },
        projected: await page.evaluate(() => document.body.dataset.projectedRows),
        copied: await allCopied(page, NAMES),
      };
    });
    assert.deepEqual(shown.rehearsed, shown.plain);
    assert.equal(shown.rehearsed.then.projected, '4');
  });

  test("rehearses a large matrix's zoomed block and editor on a copy, and the reader's own block and edit are unchanged", async () => {
    const shown = await bothPages(LARGE, async (page) => {
      assert.equal(await page.locator('[data-matrix="x"] .cm-zoom .c').count(), 0, 'no block is open');
      // The reader opens the first block of X and edits its first number, as the rehearsal did on its copy.
      await page.locator('[data-matrix="x"] .cm-canvas').click({ position: { x: 1, y: 1 } });
      await afterChange(page, () => typeInCell(page, 'x', 0, 0, '0.25'));
      await settle(page);
      await page.waitForFunction(() => location.hash.includes('&x=')); // the link follows a change after 250 ms
      // The copy buttons' "JSON copied" lines (the snapshot's copies) fade on a timer of their own.
      await page.evaluate(() => {
        for (const status of document.querySelectorAll('.copy-status')) status.textContent = '';
      });
      // The tooltip left by the double-click describes the cell as the pointer found it: before or after the edit's
      // render, a matter of timing.
      const { tooltip, ...after } = await snapshot(page);
      assert.ok(tooltip.startsWith('false token'), 'the tooltip shows the cell under the pointer');
      return { ...after, copied: await allCopied(page, NAMES) };
    });
    assert.deepEqual(shown.rehearsed, shown.plain);
    assert.match(shown.rehearsed.then.text, /X · rows 0–15, columns 0–15/);
    assert.equal(shown.rehearsed.then.matrices.filter((name) => name === 'x-zoom').length, 1);
  });

  test('rehearses a temperature step as the preview of the weights that a large layer draws, and leaves no trace', async () => {
    const names = ['scores', 'weights', 'output']; // what the preview redraws, and what it marks stale
    const shown = await bothPages(
      PREVIEWED,
      async (page) => {
        // The reader's own step: the preview, then the full update once the slider rests.
        await page.focus('#temperature');
        await afterChange(page, () => page.keyboard.press('ArrowRight'));
        await page.waitForFunction(() => document.querySelectorAll('.stale').length === 0);
        await settle(page);
        await page.waitForFunction(() => location.hash.includes('&t=1.05'));
        await page.evaluate(() => {
          for (const status of document.querySelectorAll('.copy-status')) status.textContent = '';
        });
        return { ...(await snapshot(page)), copied: await allCopied(page, names) };
      },
      names,
    );
    assert.deepEqual(shown.rehearsed, shown.plain);
    assert.deepEqual(shown.rehearsed.stale, []);
    assert.equal(shown.rehearsed.then.renders, '3', 'the first numbers, the preview, then the full update');
    assert.ok(shown.rehearsed.then.controls.includes('1.05'), 'the step moved the slider');
  });
});
