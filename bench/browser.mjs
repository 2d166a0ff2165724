// The bench in headless Chromium (npm run bench -- --browser, or npm run bench:browser): the cases of the Node
// bench, each (case, implementation) in a fresh page of a fresh browser context, served from this repository by
// tests/serve-static.mjs with COOP/COEP (cross-origin isolation, which onnxruntime-web's threads need; ours do
// not). Prints the Markdown table and writes bench/results-browser.json.
//
//   node bench/browser.mjs [--quick] [--impls a,b] [--cases n=512,...] [--out <file>]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../tests/chromium.mjs';
import { serveStatic } from '../tests/serve-static.mjs';
import { writeCaseData } from './common.mjs';
import { parseBenchArgs } from './rows.mjs';
import { formatTable, mb } from './table.mjs';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);

const { args, rows: IMPLS, cases } = parseBenchArgs(process.argv.slice(2), { native: false });

/** One (case, implementation) in a fresh context and page; the page's result plus the JS heap at the end. */
async function runOne(browser, server, impl, spec, dataUrl) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const job = { impl: impl.impl, settings: impl.settings ?? {}, spec, dataUrl, quick: args.quick };
    await page.goto(`${server.url}bench/browser/page.html#${encodeURIComponent(JSON.stringify(job))}`);
    let timer;
    const result = await Promise.race([
      page.evaluate(() => globalThis.benchResult),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), args.quick ? 60e3 : 600e3);
      }),
    ]).finally(() => clearTimeout(timer)); // a pending timer would keep the process alive after the table
    const cdp = await context.newCDPSession(page);
    const heap = await cdp.send('Runtime.getHeapUsage');
    if (result.failed && errors.length) result.failed += ` (page: ${errors[0]})`;
    return { ...result, jsHeapBytes: heap.usedSize };
  } catch (e) {
    return { failed: String(e?.message ?? e).split('\n')[0] };
  } finally {
    await context.close();
  }
}

const dataDir = fs.mkdtempSync(path.join(root, 'build', 'bench-data-'));
const dataUrl = `/${path.relative(root, dataDir)}/`;
const loadBefore = os.loadavg();
const server = await serveStatic(root, {
  headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
});
// --expose-gc: the pages collect garbage between samples of large results, as the Node children do.
const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc'],
});
const results = [];
try {
  for (const [i, spec] of cases.entries()) {
    writeCaseData(dataDir, spec, 1000 + 17 * i);
    for (const impl of IMPLS.filter((it) => !it.cases || it.cases.includes(spec.name))) {
      const r = await runOne(browser, server, impl, spec, dataUrl);
      results.push({ impl: impl.name, ...r, case: spec.name, spec });
      const outcome = r.medianMs !== undefined ? `${r.medianMs.toFixed(4)} ms` : r.na ? 'n/a' : `FAILED ${r.failed}`;
      process.stderr.write(`${spec.name.padEnd(16)} ${impl.name.padEnd(28)} ${outcome}\n`);
    }
  }
} finally {
  await browser.close().catch(() => {});
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
const version = browser.version();

const table = formatTable(cases, IMPLS, results, [
  ['JS heap MB', (r) => mb(r.jsHeapBytes)],
  ['WASM memory MB', (r) => mb(r.wasmBytes)],
]);
console.log(table);
const machine = {
  cpu: os.cpus()[0]?.model,
  cores: os.cpus().length,
  browser: `Chromium ${version}`,
  loadAverage: { before: loadBefore, after: os.loadavg() },
  date: new Date().toISOString(),
};
const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
console.log(
  `\n${machine.cpu}, ${machine.cores} cores, headless ${machine.browser}; load average ${load(loadBefore)} before, ` +
    `${load(machine.loadAverage.after)} after.`,
);
console.log(`Times are per call, copies in and out included, each implementation in a fresh page of its own (cross-origin
isolated) after a warm-up on a small problem; where results reach 256 KiB, garbage is collected between samples,
outside the timed region. GFLOP/s (4·n²·d per head) and ratios from the median, "(by min)" from the min; d = 64;
weights returned except in the long case. The rows on two cores ("2 workers", "2 threads") give their ratios to
onnxruntime-web on 2 threads. JS heap: the page's V8 heap in use at the end (typed arrays' contents not included).
WASM memory: the module's linear memory at the end. Max abs error: output against a float64 reference.`);
const out = args.out ?? (args.quick ? null : path.join(here, 'results-browser.json'));
if (out) fs.writeFileSync(out, JSON.stringify({ machine, quick: args.quick, results, table }, null, 2) + '\n');
const failed = results.filter((r) => r.failed);
if (failed.length) {
  console.error(`${failed.length} implementation runs failed`);
  process.exitCode = 1;
}
