// What the page's grids copy: the exact numbers a grid holds, through its "copy as JSON" button (float32 values
// written as their shortest round trip, so two equal texts are equal bits).

/** The JSON text grid `name` copies (the head shown, for a per-head grid). */
export async function copied(page, name) {
  const grid = page.locator(`[data-matrix="${name}"]`);
  await grid.evaluate((node) => {
    node.querySelector('.copy-status').textContent = '';
  });
  await grid.locator('.copy-button', { hasText: 'JSON' }).first().click();
  await page.waitForFunction(
    (matrix) => document.querySelector(`[data-matrix="${matrix}"] .copy-status`).textContent !== '',
    name,
  );
  return page.evaluate(() => navigator.clipboard.readText());
}

/** The JSON texts of the grids `names`, by name. */
export async function allCopied(page, names) {
  const texts = {};
  for (const name of names) texts[name] = await copied(page, name);
  return texts;
}
