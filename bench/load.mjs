#!/usr/bin/env node
// Load time: how long until createAttention() is ready, cold (a fresh Node process or a fresh Chromium page:
// the entry imported, the .wasm read or fetched, compiled and instantiated) and warm (another createAttention()
// in the same page or process: the compiled module is reused, so only instantiation is left), for the main and
// the inline entries. Prints the median (and min) of several runs, each in a fresh process or page.
// Usage: node bench/load.mjs [--runs N] [--node-only | --browser-only]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/chromium.mjs';
import { serveStatic } from '../tests/serve-static.mjs';

const repo = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 7;
const WARM = 10; // warm createAttention() calls per run, their median kept
const ENTRIES = { main: 'src/js/index.js', inline: 'src/js/inline.js' };
const NODE_ENTRIES = { main: 'src/js/index.node.js', inline: 'src/js/inline.js' };

/** What one fresh page or process measures, as a function's text (it runs in both). */
const MEASURE = `async (entry, warmCalls) => {
  const t0 = performance.now();
  const lib = await import(entry);
  const t1 = performance.now();
  const first = await lib.createAttention();
  const t2 = performance.now();
  const warm = [];
  for (let i = 0; i < warmCalls; i++) {
    const s = performance.now();
    await lib.createAttention();
    warm.push(performance.now() - s);
  }
  warm.sort((a, b) => a - b);
  return { importMs: t1 - t0, coldMs: t2 - t1, warmMs: warm[warm.length >> 1], simd: first.simd };
}`;

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const min = (xs) => Math.min(...xs);

function nodeRun(entry) {
  const dir = mkdtempSync(join(tmpdir(), 'attention-load-'));
  try {
    const file = join(dir, 'run.mjs');
    const url = new URL(entry, `file://${repo}`).href;
    writeFileSync(file, `console.log(JSON.stringify(await (${MEASURE})(${JSON.stringify(url)}, ${WARM})));\n`);
    return JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function browserRuns(server, browser, entry) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext(); // a fresh page: no module map, no compiled module
    const page = await context.newPage();
    await page.goto(`${server.url}package.json`);
    runs.push(await page.evaluate(`(${MEASURE})(${JSON.stringify(server.url + entry)}, ${WARM})`));
    await context.close();
  }
  return runs;
}

function row(where, name, runs) {
  const f = (key) => `${median(runs.map((r) => r[key])).toFixed(1)} (${min(runs.map((r) => r[key])).toFixed(1)})`;
  return `| ${where} | ${name} | ${f('importMs')} | ${f('coldMs')} | ${f('warmMs')} | ${runs[0].simd} |`;
}

const rows = [];
if (!args.includes('--browser-only')) {
  for (const [name, entry] of Object.entries(NODE_ENTRIES)) {
    rows.push(
      row(
        `Node ${process.versions.node}`,
        name,
        Array.from({ length: RUNS }, () => nodeRun(entry)),
      ),
    );
  }
}
if (!args.includes('--node-only')) {
  const server = await serveStatic(repo);
  const browser = await launchChromium();
  try {
    for (const [name, entry] of Object.entries(ENTRIES)) {
      rows.push(row(`Chromium ${browser.version()}`, name, await browserRuns(server, browser, entry)));
    }
  } finally {
    await browser.close();
    await server.close();
  }
}

console.log(`createAttention() load time, ms: median (min) of ${RUNS} runs, each in a fresh process or page;`);
console.log(
  `warm = the median of ${WARM} more createAttention() calls in that page. ${cpus().length} cores: ${cpus()[0].model}`,
);
console.log('| where | entry | import | cold createAttention | warm createAttention | simd |');
console.log('|---|---|--:|--:|--:|---|');
for (const line of rows) console.log(line);
