// The one place that says how long a single test may run before it fails, per runner. They are sized for a
// 2-core machine kept busy by another job: every test is meant to take under a quarter of its limit there
// (`node scripts/slowest-tests.mjs` after `npm test` lists the slowest against these).
export const TEST_TIMEOUTS = {
  /** Vitest, Node and Chromium projects (testTimeout and hookTimeout). */
  vitest: 120_000,
  /** node --test (package, bundlers, CDN, page and element stages): one test file's test, a browser flow included. */
  node: 300_000,
  /** ctest: a native test binary or fuzz replay (CTest's default is 1500 s). */
  native: 1_500_000,
};

/** How long a browser test waits for a page to reach a state (Playwright's waits, actions and navigations). */
export const WAIT_MS = 60_000;
