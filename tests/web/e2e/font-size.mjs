// Page test (run by run.mjs): the page's text follows the reader's font size (the browser's setting), as rem and em
// do: at the default 16 px its body text is 15 px, at 20 px it is 18.75 px; the matrices' numbers keep their size.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withPage } from './helpers.mjs';
import { env } from './session.mjs';

const sizes = (page) =>
  page.evaluate(() => ({
    body: parseFloat(getComputedStyle(document.body).fontSize),
    lead: parseFloat(getComputedStyle(document.querySelector('.lead')).fontSize),
    step: parseFloat(getComputedStyle(document.querySelector('#step-x p')).fontSize),
  }));

test('the body text follows the reader’s font size (15 px at the default 16 px)', async () => {
  await withPage(env, {}, async ({ page }) => {
    const plain = await sizes(page);
    assert.equal(plain.body, 15);
    // The reader's setting, as Chromium's settings page sets it.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Page.setFontSizes', { fontSizes: { standard: 20, fixed: 16 } });
    await page.reload();
    await page.waitForFunction(() => Number(document.body.dataset.renders ?? 0) >= 1);
    const large = await sizes(page);
    assert.equal(large.body, 18.75, 'the body text scales with the setting');
    assert.ok(large.step > plain.step * 1.2, `a step's text ${plain.step} → ${large.step} px`);
    assert.ok(large.lead > plain.lead * 1.2, `the lead ${plain.lead} → ${large.lead} px`);
  });
});
