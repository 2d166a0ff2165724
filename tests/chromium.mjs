// The one way the tests start Debian's Chromium (Vitest's browser project, the page tests, the package smoke test).
import { chromium } from 'playwright-core';

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

/** Headless Chromium through playwright-core. */
export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
