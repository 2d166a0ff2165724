// Page test (run by run.mjs): the real model runs on workers by default (loadModel's workers: 'auto'), its card says
// so, and its predictions are attention-wasm/model's run here in Node; under a Content-Security-Policy that refuses
// workers (worker-src 'none'), the page loads the same model on its own thread without a word of error, and says so.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { ARTIFACTS, assertClean, openPage } from '../helpers.mjs';
import { INDUCTION, SENTENCE, assertPredictions, openBuiltin, readPredictions } from './helpers.mjs';
import { env } from '../session.mjs';

/** The model's workers among the page's: the dedicated workers running the model's worker.js (or its bundle). */
const modelWorkers = (page) => page.workers().filter((w) => /\/worker-[^/]*\.js$|\/worker\.js$|^blob:/u.test(w.url()));

/** Serves the page's HTML with a second policy that refuses every worker (both policies apply). */
async function refuseWorkers(page) {
  await page.route(
    (url) => url.pathname === '/' || url.pathname.endsWith('/index.html'),
    async (route) => {
      const response = await route.fetch();
      const headers = response.headers();
      headers['content-security-policy'] = `${headers['content-security-policy']}, worker-src 'none'`;
      await route.fulfill({ response, headers });
    },
  );
}

describe('real model: on workers', () => {
  test('the shipped model runs on workers by default, and its card says how many', async () => {
    const model = await loadModel(INDUCTION);
    const plain = await model.run(SENTENCE, { topK: 10 });
    const session = await openPage(env);
    try {
      const { page } = session;
      await openBuiltin(page);
      const about = await page.textContent('#model-about');
      assert.match(about, / · runs on \d+ workers? · /u, about);
      const count = Number(/runs on (\d+) worker/u.exec(about)[1]);
      assert.ok(count >= 1, about);
      assert.equal(modelWorkers(page).length, count, `the page's workers: ${page.workers().map((w) => w.url())}`);
      assertPredictions(await readPredictions(page), plain.next, 'on workers');
      await assertClean(session);
    } finally {
      await session.context.close();
    }
  });

  test('under a CSP that refuses workers, the model runs on the page’s thread, with no error shown', async () => {
    const model = await loadModel(INDUCTION);
    const plain = await model.run(SENTENCE, { topK: 10 });
    const session = await openPage(env, { route: refuseWorkers });
    try {
      const { page, problems } = session;
      await openBuiltin(page);
      const about = await page.textContent('#model-about');
      assert.match(about, / · runs on the page’s thread · /u, about);
      assert.equal(modelWorkers(page).length, 0);
      assertPredictions(await readPredictions(page), plain.next, 'on the page’s thread');
      assert.equal(await page.textContent('#model-error').catch(() => ''), '', 'no error shown');
      // The refusal itself is the only problem: the browser's violation report, and its console line
      const violations = await page.evaluate(() => window.__cspViolations);
      assert.ok(violations.length > 0 && violations.every((v) => /^worker-src/u.test(v)), String(violations));
      await page.evaluate(() => (window.__cspViolations.length = 0));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-no-workers.png` });
      await assertClean(
        { page, problems },
        { allowConsole: [/Content Security Policy|worker-src|Refused to create a worker/iu] },
      );
    } finally {
      await session.context.close();
    }
  });
});
