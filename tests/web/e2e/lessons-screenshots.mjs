// Writes screenshots of the lessons and fixes for review, at 1280 and 390 px:
//   node tests/web/e2e/lessons-screenshots.mjs [out-dir] [only]
// and, with --readme, the README's two pictures of the lessons (docs/lesson-kv-cache.png, docs/lesson-designed-heads.png).
import {
  ROOT,
  afterChange,
  chooseExample,
  openSettings,
  settle,
  showLesson,
  startBrowser,
  withPage,
} from './helpers.mjs';

const readme = process.argv.includes('--readme');
const [out = 'tests/artifacts', only] = process.argv.slice(2).filter((arg) => arg !== '--readme');

// The sections drawn only on screen (LazySection in main.js); the others are drawn with every render.
const LAZY = new Set(['step-order', 'step-rope', 'step-kv', 'step-gqa', 'step-cross', 'step-softcap']);

/** Scrolls to a section and waits until it shows the latest render. */
async function reach(page, section) {
  if (LAZY.has(section)) return showLesson(page, section);
  await page.evaluate((id) => document.getElementById(id).scrollIntoView(), section);
  await settle(page);
}

/** Opens an example and shoots one lesson's section. */
const lesson = (example, section, name) => async (page, width) => {
  await chooseExample(page, example);
  await reach(page, section);
  await page.mouse.move(0, 0);
  await page.locator(`#${section}`).screenshot({ path: `${out}/lessons-${name}-${width}.png` });
};

const shots = {
  fixes: async (page, width) => {
    await openSettings(page);
    await afterChange(page, () => page.fill('#size-n', '3'));
    await page.locator('.controls').screenshot({ path: `${out}/lessons-fixes-controls-${width}.png` });
    await chooseExample(page, 'sentence');
    await page.locator('#step-softmax').screenshot({ path: `${out}/lessons-fixes-softmax-${width}.png` });
    await page.hover('[data-matrix="output"] .c[data-i="1"][data-j="0"]');
    await page.locator('#step-output').screenshot({ path: `${out}/lessons-fixes-output-${width}.png` });
    await afterChange(page, () => page.fill('#temperature', '0.2'));
    await page.locator('#step-scale').screenshot({ path: `${out}/lessons-fixes-scale-${width}.png` });
    await page.locator('.page-header').screenshot({ path: `${out}/lessons-fixes-header-${width}.png` });
  },
  projection: lesson('projection', 'step-heads', 'projection'),
  order: async (page, width) => {
    await chooseExample(page, 'order');
    await page.locator('#step-x').screenshot({ path: `${out}/lessons-positions-${width}.png` });
    await showLesson(page, 'step-order');
    await page.locator('#step-order').screenshot({ path: `${out}/lessons-order-${width}.png` });
  },
  rope: lesson('rope', 'step-rope', 'rope'),
  kv: lesson('kv', 'step-kv', 'kv'),
  designed: lesson('designed', 'step-designed', 'designed'),
  gqa: lesson('gqa', 'step-gqa', 'gqa'),
  cross: lesson('cross', 'step-cross', 'cross'),
  softcap: lesson('gemma', 'step-softcap', 'softcap'),
  why: async (page, width) => {
    await chooseExample(page, 'sentence');
    await page.evaluate(() => document.getElementById('step-scores').scrollIntoView());
    await page.focus('[data-matrix="rawScores"] .matrix-scroll');
    await page.keyboard.press('ArrowRight');
    await page.screenshot({ path: `${out}/lessons-why-${width}.png` });
  },
};

const env = await startBrowser();
try {
  if (readme) {
    await withPage(env, { viewport: { width: 1280, height: 900 } }, async ({ page }) => {
      for (const [example, section, file] of [
        ['kv', 'step-kv', 'lesson-kv-cache'],
        ['designed', 'step-designed', 'lesson-designed-heads'],
      ]) {
        await afterChange(page, () => page.click(`button[data-example="${example}"]`));
        await reach(page, section);
        await page.mouse.move(0, 0);
        await page.locator(`#${section}`).screenshot({ path: `${ROOT}docs/${file}.png` });
      }
    });
  } else {
    for (const width of [1280, 390]) {
      await withPage(env, { viewport: { width, height: 900 } }, async ({ page, problems }) => {
        for (const [name, shoot] of Object.entries(shots)) {
          if (only && name !== only) continue;
          await settle(page);
          await shoot(page, width).catch((error) => {
            throw new Error(
              `${name} at ${width} px: ${error.message}; page errors: ${problems.pageErrors.join(' | ')}`,
            );
          });
        }
      });
    }
    // The phone's first screen with the settings folded, and the page in dark mode.
    await withPage(env, { viewport: { width: 390, height: 844 }, foldedSettings: true }, async ({ page }) => {
      await page.screenshot({ path: `${out}/lessons-folded-390.png` });
    });
  }
} finally {
  await env.close();
}
