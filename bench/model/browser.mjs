// The model bench in headless Chromium (run.mjs --browser): attention-wasm/model and onnxruntime-web load into ONE
// page (page.mjs) from the checkpoint folder served by this repository, as Blobs a page would have after a user
// picked the folder; each contender's run() is one forward timed inside the page.
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../tests/chromium.mjs';
import { serveStatic } from '../../tests/serve-static.mjs';

const fromBase64 = (text) => {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
};

// What makes a page cross-origin isolated (crossOriginIsolated, SharedArrayBuffer): what onnxruntime-web needs for
// more than 1 thread in a page, and what most pages that teach (GitHub Pages, a course site, a CDN post) cannot send.
const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * Opens the page and loads the contenders (page.mjs; ours on Web Workers for each of `workerCounts`); `dir` is the
 * checkpoint folder relative to `root`. `isolated` serves the page cross-origin isolated, where onnxruntime-web runs
 * on `ortThreads` threads (without isolation it has 1 thread, whatever is asked).
 */
export async function runInPage(root, dir, ids, sizes, workerCounts = [], { isolated = false, ortThreads = 1 } = {}) {
  const server = await serveStatic(root, { headers: isolated ? ISOLATION_HEADERS : {} });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc'],
  });
  const page = await browser.newPage();
  page.setDefaultTimeout(600_000);
  page.on('console', (m) => console.error('page:', m.text()));
  page.on('pageerror', (e) => console.error('page error:', e));
  await page.goto(`${server.url}bench/model/page.html`);
  await page.waitForFunction(() => globalThis.modelBench);
  const pageIsolated = await page.evaluate(() => globalThis.crossOriginIsolated);
  if (pageIsolated !== isolated)
    throw new Error(`the bench page is ${pageIsolated ? '' : 'not '}cross-origin isolated`);
  // The page's CPU time (its renderer process, every thread): CDP's Performance metric ProcessTime, in seconds.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const processMs = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    return metrics.find((m) => m.name === 'ProcessTime').value * 1000;
  };
  const names = await page.evaluate(
    ([d, i, s, w, t]) => globalThis.modelBench.setup(d, i, s, w, t),
    [`/${dir}`, ids, sizes, workerCounts, ortThreads],
  );
  const contenders = names.map((name, index) => ({
    name,
    async run() {
      const cpu0 = await processMs();
      const r = await page.evaluate((i) => globalThis.modelBench.run(i), index);
      return { ...r, cpuMs: (await processMs()) - cpu0 };
    },
    async outputs() {
      const { logits, attentions } = await page.evaluate((i) => globalThis.modelBench.outputs(i), index);
      const all = fromBase64(attentions);
      const per = all.length / sizes.layers;
      return {
        logits: fromBase64(logits),
        attentions: Array.from({ length: sizes.layers }, (_, l) => all.subarray(l * per, (l + 1) * per)),
      };
    },
  }));
  return {
    contenders,
    version: browser.version(),
    memory: () => page.evaluate(() => globalThis.modelBench.memory()),
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
