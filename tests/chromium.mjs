// The one way the tests start Debian's Chromium (Vitest's browser project, the page tests, the package smoke test).
import { chromium } from 'playwright-core';
import { WAIT_MS } from './timeouts.mjs';

export const CHROMIUM_PATH = '/usr/bin/chromium';

// As root in a closed network: no sandbox, and none of Chromium's background connections.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Headless Chromium through playwright-core. Every page and context it makes waits up to WAIT_MS (tests/timeouts.mjs)
 * for an action, a navigation or a state, instead of Playwright's 30 s, which a busy machine can use up.
 */
export async function launchChromium() {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  const newContext = browser.newContext.bind(browser);
  const newPage = browser.newPage.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    context.setDefaultTimeout(WAIT_MS);
    context.setDefaultNavigationTimeout(WAIT_MS);
    return context;
  };
  browser.newPage = async (...args) => {
    const page = await newPage(...args);
    page.setDefaultTimeout(WAIT_MS);
    page.setDefaultNavigationTimeout(WAIT_MS);
    return page;
  };
  return browser;
}
