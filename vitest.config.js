// Two projects run the same API tests: Node, and Debian's Chromium driven by playwright-core.
import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';

// As root in a closed network: no sandbox, and none of Chromium's background connections.
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['tests/js/**/*.test.js', 'tests/web/unit/**/*.test.js'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'chromium',
          include: ['tests/js/**/*.test.js'],
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({ launchOptions: { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS } }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
    ],
  },
});
