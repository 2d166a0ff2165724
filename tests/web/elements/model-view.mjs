// A head opened from an element's model view (`<attention-heatmap model=… model-view>`): clicked, or Enter on its map,
// it is shown as `layer` and `head` show it (the same cells, the same result), with attention-change fired, the focus
// on its heatmap, and a button back to the model view that gives the focus to that head's map again. At 1280 and
// 390 px, light and dark (screenshots in tests/artifacts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, add, assertClean, open } from './env.mjs';

const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';

/** Records each attention-change of element `id` in window.changes[id]: its settings and weights. */
const listen = (page, id) =>
  page.evaluate((elementId) => {
    window.changes ??= {};
    const seen = (window.changes[elementId] = []);
    document
      .getElementById(elementId)
      .addEventListener('attention-change', (event) =>
        seen.push({ settings: event.detail.settings, weights: event.detail.weights.flat(2) }),
      );
  }, id);

const changes = (page, id) => page.evaluate((elementId) => window.changes[elementId], id);

/** What an element shows: its title, the cells' labels, the maps of the model view, the back button, the focus. */
const view = (page, id) =>
  page.evaluate((elementId) => {
    const root = document.getElementById(elementId).shadowRoot;
    const focused = root.activeElement;
    return {
      title: root.querySelector('[part="title"]')?.textContent,
      cells: Array.from(root.querySelectorAll('.cell'), (c) => c.getAttribute('aria-label')),
      maps: root.querySelectorAll('[part="model-view"] canvas').length,
      back: root.querySelector('[part="back"]')?.textContent ?? null,
      focus: focused && {
        role: focused.getAttribute('role'),
        label: focused.getAttribute('aria-label'),
        layer: focused.dataset.layer,
        head: focused.dataset.head,
      },
      weights: Array.from(document.getElementById(elementId).result.weights.data),
    };
  }, id);

const waitTitle = (page, id, text) =>
  page.waitForFunction(
    ({ elementId, want }) =>
      document.getElementById(elementId).shadowRoot.querySelector('[part="title"]')?.textContent === want,
    { elementId: id, want: text },
    { timeout: 60000 },
  );

const mapOf = (page, id, layer, head) =>
  page.locator(`#${id}`).locator(`[part="model-view"] canvas[data-layer="${layer}"][data-head="${head}"]`);

for (const { width, colorScheme } of [
  { width: 1280, colorScheme: 'light' },
  { width: 390, colorScheme: 'dark' },
]) {
  test(`model-view, ${width} px ${colorScheme}: a head clicked or opened with Enter is shown as layer and head show it, and back`, async () => {
    const session = await open('blank.html', { width, colorScheme });
    const { page } = session;
    try {
      // The same head by its attributes: what the opened head must show.
      await add(page, 'attrs', 'attention-heatmap', { model: 'builtin', layer: '1', head: '2', sentence: SENTENCE });
      const wanted = await view(page, 'attrs');
      await page.evaluate(() => document.getElementById('attrs').remove());

      await add(page, 'mv', 'attention-heatmap', { model: 'builtin', 'model-view': '', sentence: SENTENCE });
      await listen(page, 'mv');
      const before = await view(page, 'mv');
      assert.equal(before.maps, 8);
      assert.equal(before.back, null, 'no way back where the reader has not left the model view');
      const label = await mapOf(page, 'mv', 1, 2).getAttribute('aria-label');
      assert.equal(await mapOf(page, 'mv', 1, 2).getAttribute('role'), 'button');
      assert.match(label, /L1H2: .* Enter shows this head alone/u);
      await page
        .locator('#mv')
        .screenshot({ path: `${ARTIFACTS}/elements-model-view-open-${width}-${colorScheme}.png` });

      // A click on L1H2.
      await mapOf(page, 'mv', 1, 2).click();
      await waitTitle(page, 'mv', 'Attention weights, L1H2');
      const opened = await view(page, 'mv');
      assert.deepEqual(opened.cells, wanted.cells, 'the cells are those layer="1" head="2" shows');
      assert.deepEqual(opened.weights, wanted.weights, "the result's weights are layer 1's");
      assert.equal(opened.maps, 0);
      assert.equal(opened.back, '← Every layer and head');
      assert.equal(opened.focus?.role, 'grid', 'the focus is on the opened head’s heatmap');
      assert.match(opened.focus.label, /^Attention weights, L1H2 of the built-in induction model/u);
      let fired = await changes(page, 'mv');
      assert.equal(fired.length, 1, 'attention-change once');
      assert.deepEqual([fired[0].settings.layer, fired[0].settings.head, fired[0].settings.modelView], [1, 2, false]);
      assert.deepEqual(fired[0].weights, wanted.weights);
      await page
        .locator('#mv')
        .screenshot({ path: `${ARTIFACTS}/elements-model-view-head-${width}-${colorScheme}.png` });

      // Back, by keyboard: Shift+Tab from the heatmap reaches the button (past the pickers), Enter goes back.
      await page.locator('#mv').locator('[part="back"]').focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(
        () => document.getElementById('mv').shadowRoot.querySelectorAll('[part="model-view"] canvas').length === 8,
      );
      const back = await view(page, 'mv');
      assert.deepEqual([back.focus?.layer, back.focus?.head], ['1', '2'], 'the focus is back on the head opened');
      assert.equal(back.back, null);
      fired = await changes(page, 'mv');
      assert.equal(fired.length, 2);
      assert.equal(fired[1].settings.modelView, true);

      // L0H1 with the keyboard: Enter on its focused map.
      await mapOf(page, 'mv', 0, 1).focus();
      await page.keyboard.press('Enter');
      await waitTitle(page, 'mv', 'Attention weights, L0H1');
      const keyed = await view(page, 'mv');
      assert.equal(keyed.focus?.role, 'grid');
      // The opened head is the attributes' head: its layer and head pickers choose another, the focus staying on the
      // button pressed (drawn again with the figure).
      await page.locator('#mv').locator('[part="head-picker"] button').nth(3).focus();
      await page.keyboard.press('Enter');
      await waitTitle(page, 'mv', 'Attention weights, L0H3');
      const picked = await view(page, 'mv');
      assert.equal(picked.focus?.label, 'head 3 of 4', 'the focus is on the head picked');
      fired = await changes(page, 'mv');
      assert.deepEqual([fired.at(-1).settings.layer, fired.at(-1).settings.head], [0, 3]);
      assert.equal((await view(page, 'mv')).back, '← Every layer and head', 'still a way back');
      const width$ = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width$ <= width, `the page is ${width$} px wide at ${width}`);
      await assertClean(session);
    } finally {
      await session.context.close();
    }
  });
}
