// What a reader of a post meets with the README's own snippets (issue 27): a 2-token heatmap's column labels read
// across at full size, the explorer fits a phone without a sideways scroll, and a box that does scroll sideways can
// be reached with the keyboard and is named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, add, assertClean, open } from './env.mjs';

const EXACT = JSON.stringify({
  tokens: ['a', 'b'],
  x: [
    [1, 0],
    [0, 1],
  ],
  wq: [
    [1, 0],
    [0, 1],
  ],
  wk: [
    [1, 0],
    [0, 1],
  ],
  wv: [
    [1, 2],
    [3, 4],
  ],
});

/** Each column label of the element's heatmap: its text's box against its own box and the scroll box's. */
const columnLabels = (page, id) =>
  page.evaluate((elementId) => {
    const root = document.getElementById(elementId).shadowRoot;
    const scroll = root.querySelector('.heatmap .scroll').getBoundingClientRect();
    return [...root.querySelectorAll('.heatmap .clab')].map((label) => {
      const range = document.createRange();
      range.selectNodeContents(label);
      const text = range.getBoundingClientRect();
      const box = label.getBoundingClientRect();
      return {
        label: label.textContent,
        fontSize: parseFloat(getComputedStyle(label).fontSize),
        text: { width: text.width, height: text.height, top: text.top },
        cut: label.scrollWidth > label.clientWidth || label.scrollHeight > label.clientHeight,
        inside: box.top >= scroll.top - 0.5 && box.bottom <= scroll.bottom + 0.5,
      };
    });
  }, id);

for (const width of [1280, 390]) {
  test(`the README's exact-numbers heatmap shows its column labels whole, across, at ${width} px`, async () => {
    const session = await open('blank.html', { width });
    const { page } = session;
    try {
      await add(page, 'exact', 'attention-explorer', { steps: 'softmax output', precision: '4' }, EXACT);
      const labels = await columnLabels(page, 'exact');
      assert.deepEqual(
        labels.map((l) => l.label),
        ['a', 'b'],
      );
      for (const l of labels) {
        // A label that reads across is as tall as its font; a rotated one is only as tall as the letter is wide.
        assert.ok(l.text.height >= 0.9 * l.fontSize, `"${l.label}" reads across at full size: ${JSON.stringify(l)}`);
        assert.ok(!l.cut && l.inside, `"${l.label}" is not cut: ${JSON.stringify(l)}`);
      }
      await page.locator('#exact').screenshot({ path: `${ARTIFACTS}/elements-exact-heatmap-${width}.png` });
      await assertClean(session);
    } finally {
      await session.context.close();
    }
  });
}

test("at 390 px the README's explorer needs no sideways scroll; where a box must scroll (320 px, X [6, 8]), it is a named tab stop", async () => {
  const boxes = (page, id) =>
    page.evaluate(
      (elementId) =>
        [...document.getElementById(elementId).shadowRoot.querySelectorAll('.scroll')].map((box) => ({
          name: box.closest('[data-matrix]')?.dataset.matrix ?? 'heatmap',
          scrolls: box.scrollWidth - box.clientWidth,
          tabIndex: box.tabIndex,
          role: box.getAttribute('role'),
          label: box.getAttribute('aria-label'),
        })),
      id,
    );
  let session = await open('blank.html', { width: 390 });
  try {
    await add(session.page, 'readme', 'attention-explorer', {
      steps: 'scores softmax output',
      sentence: 'the cat sat on the mat',
      causal: '',
      seed: '7',
    });
    const shown = await boxes(session.page, 'readme');
    assert.deepEqual(
      shown.filter((box) => box.scrolls > 0),
      [],
      'no box scrolls sideways',
    );
    assert.ok(
      shown.every((box) => box.tabIndex === -1 && box.role === null),
      'a box that does not scroll is no tab stop',
    );
    await assertClean(session);
  } finally {
    await session.context.close();
  }
  session = await open('blank.html', { width: 320 });
  const { page } = session;
  try {
    await add(page, 'narrow', 'attention-explorer', { steps: 'x', sentence: 'the cat sat on the mat', seed: '7' });
    const scrolling = (await boxes(page, 'narrow')).filter((box) => box.scrolls > 0);
    assert.ok(scrolling.length > 0, 'X [6, 8] scrolls at 320 px');
    for (const box of scrolling) {
      assert.equal(box.tabIndex, 0, `${box.name}: a tab stop`);
      assert.equal(box.role, 'region', `${box.name}: a region`);
      assert.match(box.label ?? '', /^X.*scrolls sideways/, `${box.name}: named`);
    }
    // Tab from the page reaches the box, and the arrow keys scroll it.
    const focusedBox = () =>
      page.evaluate(() => {
        const active = document.getElementById('narrow').shadowRoot.activeElement;
        return active?.classList.contains('scroll') ? active.scrollLeft : null;
      });
    await page.evaluate(() => document.getElementById('narrow').scrollIntoView());
    for (let k = 0; k < 4 && (await focusedBox()) === null; k++) await page.keyboard.press('Tab');
    assert.equal(await focusedBox(), 0, 'Tab reaches the scroll box');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => document.getElementById('narrow').shadowRoot.activeElement.scrollLeft > 0);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('the explorer’s texts speak of what it shows: its head buttons, no clicks on heads, no settings, nothing "below"', async () => {
  const session = await open('blank.html');
  const { page } = session;
  try {
    await add(page, 'heads', 'attention-explorer', { steps: 'qkv heads', heads: '4', 'd-model': '16' });
    const texts = await page.evaluate(() =>
      [...document.getElementById('heads').shadowRoot.querySelectorAll('.step p')].map((p) => p.textContent).join(' '),
    );
    assert.match(texts, /Choose the head with the head buttons at the top/u);
    assert.match(texts, /the head buttons at the top choose the one the other steps show/u);
    for (const missing of [/click a head/u, /steps above/u, /below\./u, /settings/u, /average/u])
      assert.doesNotMatch(texts, missing);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});
