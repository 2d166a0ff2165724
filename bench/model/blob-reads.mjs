// How long Chromium takes to read the model bench's checkpoint from a Blob (as a page reads a picked file), without
// computing anything: every tensor a forward reads, one Blob slice each (openSafetensors' read, as attention-wasm/model
// does), three times; then 500 MB as one slice. Run after the model bench has written build/bench-model/gpt2-12:
//   node bench/model/blob-reads.mjs
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../tests/chromium.mjs';
import { serveStatic } from '../../tests/serve-static.mjs';
const server = await serveStatic(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'));
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
const page = await browser.newPage();
page.setDefaultTimeout(600000);
await page.goto(`${server.url}bench/model/page.html`);
await page.waitForFunction(() => globalThis.modelBench);
const out = await page.evaluate(async () => {
  const { openSafetensors } = await import('/src/js/io/index.js');
  const blob = await (await fetch('/build/bench-model/gpt2-12/model.safetensors')).blob();
  const file = await openSafetensors(blob);
  const names = file.tensors.map((t) => t.name).filter((n) => !n.endsWith('attn.bias'));
  const times = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    for (const n of names) await file.read(n);
    times.push(performance.now() - t0);
  }
  const t1 = performance.now();
  for (let r = 0; r < 3; r++) {
    await blob.slice(0, 500e6).arrayBuffer();
  }
  return { perTensor: times, whole: (performance.now() - t1) / 3 };
});
console.log(JSON.stringify(out));
await browser.close();
await server.close();
