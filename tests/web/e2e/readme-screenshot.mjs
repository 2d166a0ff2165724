// Writes docs/screenshot.png for the README: the built page at 1280 px wide, on the causal example, showing
// the mask, the attention weights and their heatmap. Run after scripts/build.sh: node tests/web/e2e/readme-screenshot.mjs
import { ROOT, afterChange, settle, startBrowser, withPage } from './helpers.mjs';

const env = await startBrowser();
try {
  await withPage(env, { viewport: { width: 1280, height: 860 } }, async ({ page }) => {
    await afterChange(page, () => page.click('button[data-example="causal"]'));
    await page.evaluate(() => {
      const top = document.getElementById('step-mask').getBoundingClientRect().top + window.scrollY;
      window.scrollTo(0, top - 16);
    });
    await settle(page);
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${ROOT}docs/screenshot.png` });
  });
} finally {
  await env.close();
}
