// Why a call with fresh result arrays costs what it does in Chromium: implementations of one case in ONE page,
// their calls interleaved batch by batch, with the renderer's minor page faults (read from /proc) per call.
//
//   node bench/fresh-arrays.mjs [n=512] [heads=1] [rounds=20] [batch=5] [names=ours,ort,ours-out] [gc|nogc] [settleMs=0]
//
// names: ours (new result arrays), ours-out (options.out), ort (onnxruntime-web, 1 thread); gc: collect garbage
// before each call, as the bench does for results of 256 KiB or more (nogc: let it pile up, as at n = 128);
// settleMs: wait that long after each collection. JS_FLAGS adds V8 flags (e.g. --trace-gc).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../tests/chromium.mjs';
import { serveStatic } from '../tests/serve-static.mjs';
import { chromium } from 'playwright-core';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const [n = 512, heads = 1, rounds = 20, batch = 5] = process.argv.slice(2, 6).map(Number);
const names = (process.argv[6] ?? 'ours,ort,ours-out').split(',');
const collect = process.argv[7] !== 'nogc';
const settleMs = Number(process.argv[8] ?? 0);
const extra = process.env.JS_FLAGS ? [`--js-flags=--expose-gc ${process.env.JS_FLAGS}`] : ['--js-flags=--expose-gc'];

const server = await serveStatic(root, {
  headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
});
const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: [...CHROMIUM_ARGS, ...extra],
});
try {
  const page = await browser.newPage();
  page.on('console', (m) => console.error('page:', m.text()));
  await page.goto(`${server.url}bench/browser/probe.html`);
  await page.waitForFunction(() => globalThis.probe);
  const spec = { name: 'probe', n, heads, causal: false, weights: true };
  const isolated = await page.evaluate(([s, ns]) => globalThis.probe.setup(s, ns), [spec, names]);
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  const renderers = processInfo.filter((p) => p.type === 'renderer').map((p) => p.id);
  const faults = () =>
    renderers.reduce(
      (s, pid) => s + Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[7]),
      0,
    );
  const stats = Object.fromEntries(names.map((k) => [k, { times: [], faults: 0, calls: 0 }]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...names].reverse() : names;
    for (const name of order) {
      const f0 = faults();
      const times = await page.evaluate(
        ([k, c, g, s]) => globalThis.probe.batch(k, c, g, s),
        [name, batch, collect, settleMs],
      );
      stats[name].faults += faults() - f0;
      stats[name].times.push(...times);
      stats[name].calls += batch;
    }
  }
  const q = (a, p) => a[Math.min(a.length - 1, Math.floor(p * a.length))];
  console.log(
    `n=${n} heads=${heads} rounds=${rounds}×${batch} gc=${collect} settle=${settleMs}ms isolated=${isolated} renderers=${renderers}`,
  );
  for (const name of names) {
    const t = stats[name].times.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(10)} median ${q(t, 0.5).toFixed(3)} min ${t[0].toFixed(3)} p90 ${q(t, 0.9).toFixed(3)} ms; faults/call ${(stats[name].faults / stats[name].calls).toFixed(1)}`,
    );
  }
} finally {
  await browser.close();
  await server.close();
}
