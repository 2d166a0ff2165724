// Writes screenshots of the lessons and fixes for review: node tests/web/e2e/lessons-screenshots.mjs <out-dir> [only]
import { afterChange, settle, showLesson, startBrowser, withPage } from './helpers.mjs';

const out = process.argv[2] ?? 'tests/artifacts';
const only = process.argv[3];
const shots = {
  fixes: async (page, width) => {
    await afterChange(page, () => page.fill('#size-n', '3'));
    await page.locator('.controls').screenshot({ path: `${out}/lessons-fixes-controls-${width}.png` });
    await afterChange(page, () => page.click('button[data-example="sentence"]'));
    await page.locator('#step-softmax').screenshot({ path: `${out}/lessons-fixes-softmax-${width}.png` });
    await page.hover('[data-matrix="output"] .c[data-i="1"][data-j="0"]');
    await page.locator('#step-output').screenshot({ path: `${out}/lessons-fixes-output-${width}.png` });
    await afterChange(page, () => page.fill('#temperature', '0.2'));
    await page.locator('#step-scale').screenshot({ path: `${out}/lessons-fixes-scale-${width}.png` });
    await page.locator('.page-header').screenshot({ path: `${out}/lessons-fixes-header-${width}.png` });
  },
  projection: async (page, width) => {
    await afterChange(page, () => page.click('button[data-example="projection"]'));
    await page.locator('#step-heads').screenshot({ path: `${out}/lessons-projection-${width}.png` });
  },
  order: async (page, width) => {
    await afterChange(page, () => page.click('button[data-example="order"]'));
    await page.locator('#step-x').screenshot({ path: `${out}/lessons-positions-${width}.png` });
    await showLesson(page, 'step-order');
    await page.locator('#step-order').screenshot({ path: `${out}/lessons-order-${width}.png` });
  },
  kv: async (page, width) => {
    await afterChange(page, () => page.click('button[data-example="kv"]'));
    await showLesson(page, 'step-kv');
    await page.locator('#step-kv').screenshot({ path: `${out}/lessons-kv-${width}.png` });
  },
};

const env = await startBrowser();
try {
  for (const width of [1280, 390]) {
    await withPage(env, { viewport: { width, height: 900 } }, async ({ page }) => {
      for (const [name, shoot] of Object.entries(shots)) {
        if (only && name !== only) continue;
        await settle(page);
        await shoot(page, width);
      }
    });
  }
} finally {
  await env.close();
}
