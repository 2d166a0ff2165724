// Two projects run the same API tests: Node, and Debian's Chromium driven by playwright-core; a third runs the model's
// shared-memory workers in Chromium with cross-origin isolation.
import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './tests/chromium.mjs';
import { TEST_TIMEOUTS } from './tests/timeouts.mjs';

export default defineConfig({
  test: {
    // Sized for a busy 2-core machine (tests/timeouts.mjs); every project inherits them.
    testTimeout: TEST_TIMEOUTS.vitest,
    hookTimeout: TEST_TIMEOUTS.vitest,
    // The web server of checkpoints for the URL sources' tests (another origin than Chromium's test page).
    globalSetup: ['tests/js/model/checkpoint-server.mjs'],
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['tests/js/**/*.test.js', 'tests/web/unit/**/*.test.js'],
          environment: 'node',
          // The tests import src/js/index.js, the browser entry: Node's hooks are what the node entries add.
          setupFiles: ['src/js/platform-node.js', 'src/js/model/platform-node.js'],
        },
      },
      {
        // The same page with cross-origin isolation: SharedArrayBuffer, so the model's workers chain their layers
        // (shard-chain.js); the chromium project above is a page without it, where they hand each layer off.
        extends: true,
        server: {
          headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
        },
        test: {
          name: 'chromium-isolated',
          include: ['tests/js/model/workers-shared.test.js'],
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      {
        extends: true,
        test: {
          name: 'chromium',
          include: ['tests/js/**/*.test.js'],
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
    ],
  },
});
