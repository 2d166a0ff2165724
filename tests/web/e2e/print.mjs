// Page tests (run by run.mjs): every example printed on Letter and A4, from a light and a dark screen (issue 27): each
// matrix whole inside the page box, dark ink on white, the colours that carry meaning kept, the lessons far down
// drawn without being scrolled to. The PDFs go to tests/artifacts (render them with pdftoppm to look at them).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ARTIFACTS, afterChange, settle, withPage } from './helpers.mjs';
import { env } from './session.mjs';

const PX_PER_MM = 96 / 25.4;
/** print.css's @page margin. */
const MARGIN_MM = 12;
const PAPERS = [
  { format: 'Letter', widthMm: 215.9, heightMm: 279.4 },
  { format: 'A4', widthMm: 210, heightMm: 297 },
];

/**
 * What the print layout shows, measured in the page's own print media at the width of the paper's page box (the
 * width Chromium lays a print out at): each grid's cells against the box, and the colours of ink, badges and cells.
 */
function measurePrint(boxWidth) {
  const problems = [];
  const luminance = (css) => {
    const [r, g, b] = css.match(/\d+(\.\d+)?/g).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };
  for (const scroller of document.querySelectorAll('.matrix-scroll')) {
    const figure = scroller.closest('[data-matrix]');
    if (!figure || figure.closest('[hidden]') || scroller.hidden || getComputedStyle(figure).display === 'none')
      continue;
    const name = figure.dataset.matrix;
    const rows = Number(scroller.getAttribute('aria-rowcount')) - 1;
    const cols = Number(scroller.getAttribute('aria-colcount')) - 1;
    const cells = scroller.querySelectorAll('.gwin .c');
    if (cells.length !== rows * cols) problems.push(`${name}: ${cells.length} of ${rows}×${cols} cells drawn`);
    let right = 0;
    for (const node of [...cells, ...scroller.querySelectorAll('.ch')]) {
      right = Math.max(right, node.getBoundingClientRect().right);
    }
    if (right > boxWidth + 0.5)
      problems.push(`${name}: its cells reach ${right.toFixed(1)} px of a ${boxWidth} px page`);
    if (scroller.scrollWidth > scroller.clientWidth + 1) problems.push(`${name}: scrolls sideways`);
  }
  for (const canvas of document.querySelectorAll('canvas.heatmap-canvas')) {
    if (canvas.checkVisibility() && !window.paintedCells(canvas))
      problems.push(`a heatmap (${canvas.getAttribute('aria-label')}) prints blank`);
  }
  const ink = luminance(getComputedStyle(document.querySelector('#step-x p')).color);
  if (ink > 0.3) problems.push(`pale ink: luminance ${ink.toFixed(2)}`);
  const badge = document.querySelector('.step-number');
  const badgeStyle = getComputedStyle(badge);
  if (badgeStyle.printColorAdjust !== 'exact' || luminance(badgeStyle.backgroundColor) > 0.8)
    problems.push(`the step badges print blank (${badgeStyle.backgroundColor}, ${badgeStyle.printColorAdjust})`);
  const coloured = [...document.querySelectorAll('.gwin .c')].find((c) => c.style.backgroundColor);
  if (coloured && getComputedStyle(coloured).printColorAdjust !== 'exact') problems.push('cell colours are dropped');
  return problems;
}

/**
 * Gives the page `window.paintedCells(canvas)`: whether a heatmap canvas shows painted cells (colours; labels and the
 * empty margin are grey or transparent), read through a copy made for reading (the page's own canvas is never read
 * back).
 */
const installPaintedCells = (page) =>
  page.evaluate(() => {
    window.paintedCells = (canvas) => {
      const copy = document.createElement('canvas');
      copy.width = canvas.width;
      copy.height = canvas.height;
      const reader = copy.getContext('2d', { willReadFrequently: true });
      reader.drawImage(canvas, 0, 0);
      const pixels = reader.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let k = 0; k < pixels.length; k += 4 * 7) if (Math.abs(pixels[k] - pixels[k + 2]) > 30) return true;
      return false;
    };
  });

describe('printing', () => {
  test('a lesson never scrolled to is drawn for the print, its heatmaps painted before the paper layout', async () => {
    // The grouped-query example by link: the page opens at the top, step 13 far below and not drawn yet.
    await withPage(env, { hash: '#v=2&dm=16&h=4&kvh=2' }, async ({ page }) => {
      assert.equal(await page.$$eval('#mount-gqa-heads canvas', (c) => c.length), 0, 'not drawn before');
      await installPaintedCells(page);
      // In one task, as a print runs: no resize report or idle callback comes between.
      const painted = await page.evaluate(() => {
        window.dispatchEvent(new Event('beforeprint'));
        return [...document.querySelectorAll('#mount-gqa-heads canvas')].map(window.paintedCells);
      });
      assert.deepEqual(painted, [true, true, true, true]);
      await page.evaluate(() => window.dispatchEvent(new Event('afterprint')));
    });
  });

  for (const colorScheme of ['light', 'dark']) {
    test(`every example prints whole on Letter and A4 from a ${colorScheme} screen`, async () => {
      await withPage(env, { viewport: { width: 1280, height: 900 } }, async ({ page }) => {
        await page.emulateMedia({ colorScheme });
        await installPaintedCells(page);
        const examples = await page.$$eval('#examples button', (buttons) => buttons.map((b) => b.dataset.example));
        assert.ok(examples.length >= 10, examples.join());
        const problems = [];
        for (const example of examples) {
          await page.emulateMedia({ media: 'screen', colorScheme });
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.evaluate(() => window.scrollTo(0, 0));
          await afterChange(page, () => page.click(`button[data-example="${example}"]`));
          for (const paper of PAPERS) {
            // The print itself: the lessons far down are drawn for it, never scrolled to here.
            await page.emulateMedia({ media: 'print', colorScheme });
            await page.pdf({
              path: `${ARTIFACTS}/print-${example}-${paper.format}-${colorScheme}.pdf`,
              format: paper.format,
            });
            const drawn = await page.evaluate(() =>
              [...document.querySelectorAll('#step-order, #step-rope, #step-kv, #step-gqa, #step-cross, #step-softcap')]
                .filter((section) => section.dataset.drawn !== document.body.dataset.renders)
                .map((section) => section.id),
            );
            if (drawn.length) problems.push(`${example}: ${drawn.join(', ')} not drawn for the print`);
            const boxWidth = Math.floor((paper.widthMm - 2 * MARGIN_MM) * PX_PER_MM);
            const boxHeight = Math.floor((paper.heightMm - 2 * MARGIN_MM) * PX_PER_MM);
            await page.setViewportSize({ width: boxWidth, height: boxHeight });
            await page.emulateMedia({ media: 'print', colorScheme });
            await settle(page);
            const found = await page.evaluate(measurePrint, boxWidth);
            problems.push(...found.map((p) => `${example} on ${paper.format}: ${p}`));
            await page.emulateMedia({ media: 'screen', colorScheme });
          }
        }
        assert.deepEqual(problems, []);
      });
    });
  }
});
