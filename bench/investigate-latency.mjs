// The page's Investigate part (issue 36 §3) in Debian's Chromium, headless, against the built page (web/dist): the
// shipped model (by default), or a GPT-2-small-shaped checkpoint (12 layers × 12 heads, d_model 768, vocabulary
// 50 257; random weights, bench/model/checkpoint.mjs) read by address over HTTP from the page's own origin.
//
//   node bench/investigate-latency.mjs [--model builtin|gpt2] [--rounds 5] [--tokens 16] [--dist web/dist[,other]]
//
// With two builds (--dist a,b: before and after a change), their rounds alternate in one browser, and each build has
// its own table.
// Each round is a new page (a new browser context). Figures, each from the input (its event timeStamp) to the first
// animation frame at which the page shows the result (a requestAnimationFrame loop of the page's own, as in
// real-model-latency.mjs):
//   first view        shipped model: from the frame that shows the model's first run to the frame with the logit
//                     lens drawn (the section opens on the lens by itself; 0: the same frame), and beside it the
//                     page's own "Logit lens computed in … ms"; a checkpoint: its Logit lens tab clicked
//   attribution, head scores, loss   the tab clicked to its view drawn (body[data-inv-drawn])
//   sweep: first row  "Run the sweeps" clicked to the frame showing the first layer's cells (data-inv-sweep-cells)
//   sweep: end        the same click to both sweeps drawn (data-inv-sweeps): the residual stream's and the heads'
//   during the sweep  the longest task (Long Tasks API) between the click and the end, how many were over 100 ms
//                     (the page first runs both prompts through one layer for their tokens, which breaks no
//                     task), and Event Timing's
//                     input-to-next-paint of three key presses typed into the metric's field "a" while the sweep runs
//                     (each counted only if its input came before the sweep's end)
//   Cancel            another sweep, Cancel clicked once its first row is drawn: to the frame saying "Cancelled", and
//                     its input-to-next-paint
// Event Timing reports only interactions over 16 ms ("≤16"). On a checkpoint the page takes `tokens` ids typed
// (benchIds) and the corrupted prompt is the same ids with the fourth changed. The machine may be shared: figures vary.
/* global document, window, requestAnimationFrame -- page.evaluate() callbacks run in the page */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/chromium.mjs';
import { benchIds, writeGpt2Checkpoint } from './model/checkpoint.mjs';
import { median } from './page-driver.mjs';
import { serve } from './serve-dist.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const args = { model: 'builtin', rounds: 5, tokens: 16, dist: `${ROOT}web/dist` };
for (let i = 2; i < process.argv.length; i++) {
  const key = process.argv[i].replace(/^--/, '');
  if (!(key in args)) throw new Error(`unknown argument ${process.argv[i]}`);
  args[key] = key === 'dist' || key === 'model' ? process.argv[++i] : Number(process.argv[++i]);
}
const CHECKPOINT = `${ROOT}build/bench-model/gpt2-12`;
const LONG = 600000; // ms: a sweep of GPT-2 small on a busy machine

/** Installed before the page's own scripts: long tasks, Event Timing entries and the key presses' timeStamps. */
function observers() {
  window.__long = [];
  window.__events = [];
  window.__keys = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.interactionId) window.__events.push({ id: e.interactionId, start: e.startTime, duration: e.duration });
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
  document.addEventListener('keydown', (e) => window.__keys.push(e.timeStamp), { capture: true });
  // The frame that first shows the model's first run, and the first with the logit lens drawn.
  const frame = () => {
    const now = performance.now();
    if (window.__ran === undefined && Number(document.body?.dataset.modelRuns ?? 0) > 0) window.__ran = now;
    if (window.__lens === undefined && (document.body?.dataset.invDrawn ?? '').startsWith('lens:')) window.__lens = now;
    if (window.__lens === undefined) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

/**
 * Installs a frame loop that sets window.__done[name] = performance.now() at the first frame where `cond(arg)` holds
 * (the condition's source runs in the page), and records the next pointerdown/keydown's timeStamp as __input.
 */
function watch(page, name, cond, arg) {
  return page.evaluate(`(() => {
    const cond = ${cond.toString()};
    const arg = ${JSON.stringify(arg)};
    window.__done ??= {};
    delete window.__done[${JSON.stringify(name)}];
    window.__input = null;
    const first = (event) => { window.__input ??= event.timeStamp; };
    for (const type of ['pointerdown', 'keydown']) document.addEventListener(type, first, { capture: true, once: true });
    const frame = () => {
      if (cond(arg)) window.__done[${JSON.stringify(name)}] = performance.now();
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  })()`);
}
const waitDone = (page, name) =>
  page.waitForFunction((n) => window.__done?.[n] !== undefined, name, { timeout: LONG, polling: 50 });
const read = (page, fn, arg) => page.evaluate(fn, arg);

/** The longest Event Timing duration of the interactions whose input came in [from, to] (16 when none reported). */
const inpIn = (events, from, to) => {
  const own = events.filter((e) => e.start >= from - 1 && e.start <= to);
  return own.length ? Math.max(...own.map((e) => e.duration)) : 16;
};

// Conditions, evaluated in the page every frame.
const drawnAfter = ([key, before]) =>
  (document.body.dataset.invDrawn ?? '').startsWith(`${key}:`) && document.body.dataset.invDrawn !== before;
const firstRow = () => document.body.dataset.invSweepCells !== undefined;
const sweepsAfter = (n) => Number(document.body.dataset.invSweeps ?? 0) > n;
const cancelled = () => document.getElementById('inv-patch-status').textContent.startsWith('Cancelled');

async function openTab(page, key) {
  const before = await read(page, () => document.body.dataset.invDrawn ?? '');
  await watch(page, key, drawnAfter, [key, before]);
  await page.click(`#inv-tab-${key}`);
  await waitDone(page, key);
  const { input, at, events } = await read(
    page,
    (k) => ({
      input: window.__input,
      at: window.__done[k],
      events: window.__events,
    }),
    key,
  );
  return { ms: at - input, inp: inpIn(events, input, at) };
}

/** The sweeps run once, three keys typed into field a while they run; then a sweep cancelled after its first row. */
async function sweep(page) {
  await page.click('#inv-tab-patching');
  await page.fill('#inv-patch-a', '');
  const sweeps = await read(page, () => Number(document.body.dataset.invSweeps ?? 0));
  await read(page, () => delete document.body.dataset.invSweepCells);
  await watch(page, 'row', firstRow, null);
  await watch(page, 'end', sweepsAfter, sweeps);
  const keysBefore = await read(page, () => window.__keys.length);
  await page.click('#inv-patch-run');
  const start = await read(page, () => window.__input);
  await page.waitForFunction(() => window.__done.row !== undefined, null, { timeout: LONG, polling: 50 });
  await page.focus('#inv-patch-a');
  for (const key of ['x', 'y', 'z']) await page.keyboard.press(key);
  await waitDone(page, 'end');
  await page.waitForTimeout(300); // Event Timing entries come after the paint
  const { row, end, long, events, keys } = await read(page, () => ({
    row: window.__done.row,
    end: window.__done.end,
    long: window.__long,
    events: window.__events,
    keys: window.__keys,
  }));
  const during = keys.slice(keysBefore).filter((t) => t < end);
  const inps = during.map((t) => inpIn(events, t, t + 1));
  const tasks = long.filter((t) => t.start + t.duration > start && t.start < end).map((t) => t.duration);
  const longest = Math.max(0, ...tasks);
  const over = tasks.filter((ms) => ms > 100).length;
  await page.fill('#inv-patch-a', '');
  // Cancel once the first row is drawn.
  await read(page, () => delete document.body.dataset.invSweepCells);
  await watch(page, 'row', firstRow, null);
  await page.click('#inv-patch-run');
  await page.waitForFunction(() => window.__done.row !== undefined, null, { timeout: LONG, polling: 50 });
  await watch(page, 'cancel', cancelled, null);
  const base = { row: row - start, end: end - start, longest, over, keys: inps };
  // A short sweep (the shipped model's) may be over before the click: no Cancel figure then.
  const wait = args.model === 'builtin' ? 3000 : LONG; // a page busy for seconds is slow to click
  const clicked = await page.click('#inv-patch-cancel', { timeout: wait }).then(
    () => true,
    () => false,
  );
  if (!clicked) return { ...base, cancel: null };
  await waitDone(page, 'cancel');
  await page.waitForTimeout(300);
  const c = await read(page, () => ({ input: window.__input, at: window.__done.cancel, events: window.__events }));
  return { ...base, cancel: { ms: c.at - c.input, inp: inpIn(c.events, c.input, c.at) } };
}

/** A new page with the model open and its first run drawn; the first view's figure. */
async function openPage(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(observers);
  const page = await context.newPage();
  await page.goto(url);
  await page.click('#real-model-button');
  if (args.model === 'builtin') {
    await page.waitForFunction(() => window.__lens !== undefined, null, { timeout: LONG, polling: 50 });
    const { ran, lens, own } = await read(page, () => ({
      ran: window.__ran,
      lens: window.__lens,
      own: Number(/computed in (\d+) ms/u.exec(document.getElementById('inv-status').textContent)?.[1]),
    }));
    return { context, page, first: { ms: lens - ran, inp: NaN }, own };
  }
  await page.waitForFunction(() => Number(document.body.dataset.modelRuns ?? 0) > 0, null, { timeout: LONG });
  await page.fill('#model-url', `${url}bench-model/`);
  let n = await read(page, () => Number(document.body.dataset.modelRuns ?? 0));
  await page.click('#model-url-open');
  await page.waitForFunction((k) => Number(document.body.dataset.modelRuns ?? 0) > k, n, { timeout: LONG });
  n = await read(page, () => Number(document.body.dataset.modelRuns ?? 0));
  const ids = benchIds(args.tokens, 50257);
  await page.fill('#model-text', ids.join(' '));
  await page.waitForFunction((k) => Number(document.body.dataset.modelRuns ?? 0) > k, n, { timeout: LONG });
  await page.waitForTimeout(500);
  const first = await openTab(page, 'lens');
  await page.click('#inv-tab-patching');
  await page.fill('#inv-clean', ids.join(' '));
  await page.fill('#inv-corrupted', ids.map((id, i) => (i === 3 ? (id + 1) % 50257 : id)).join(' '));
  return { context, page, first };
}

async function main() {
  if (args.model === 'gpt2') writeGpt2Checkpoint(CHECKPOINT);
  const dists = args.dist.split(',');
  const servers = [];
  for (const dist of dists) {
    const html = readFileSync(`${dist}/index.html`, 'utf8');
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)[1];
    servers.push(await serve(dist, CHECKPOINT, csp));
  }
  const browser = await launchChromium();
  const figures = dists.map(() => ({}));
  try {
    for (let r = 0; r < args.rounds; r++) {
      for (const [k, server] of servers.entries()) {
        const add = (name, figure) => (figures[k][name] ??= []).push(figure);
        const { context, page, first, own } = await openPage(browser, server.url);
        add(
          args.model === 'builtin' ? 'first view (lens), after the first run' : 'first view (lens tab clicked)',
          first,
        );
        if (own !== undefined) add('first view: the page’s own “computed in” figure', { ms: own, inp: NaN });
        for (const [key, name] of [
          ['attribution', 'attribution tab'],
          ['scores', 'head scores tab'],
          ['loss', 'loss tab'],
        ])
          add(name, await openTab(page, key));
        const s = await sweep(page);
        add('sweep: first row', { ms: s.row, inp: NaN });
        add('sweep: end (both sweeps)', { ms: s.end, inp: NaN });
        add('sweep: longest task', { ms: s.longest, inp: NaN });
        add('sweep: tasks over 100 ms (count)', { ms: s.over, inp: NaN });
        for (const inp of s.keys) add('sweep: a key press during it', { ms: NaN, inp });
        if (s.cancel) add('sweep: Cancel after the first row', s.cancel);
        await context.close();
      }
    }
  } finally {
    await browser.close();
    for (const server of servers) await server.close();
  }
  dists.forEach((dist, k) => print(figures[k], dist));
}

function print(figures, dist) {
  const ms = (v) => (Number.isNaN(v) ? '' : String(Math.round(v)));
  const what =
    args.model === 'builtin'
      ? 'the shipped model'
      : `GPT-2-small-shaped checkpoint (random weights), ${args.tokens} tokens`;
  console.log(`\n${dist}: Investigate, ${what}, 1280 px, ${args.rounds} rounds: ms, median (min–max); INP median.`);
  console.log('| figure | count | ms | input-to-next-paint |');
  console.log('| --- | --- | --- | --- |');
  for (const [name, list] of Object.entries(figures)) {
    const all = list.map((f) => f.ms).filter((v) => !Number.isNaN(v));
    const inps = list.map((f) => f.inp).filter((v) => !Number.isNaN(v));
    const inp = inps.length ? median(inps) : NaN;
    const range = all.length ? `${ms(median(all))} (${ms(Math.min(...all))}–${ms(Math.max(...all))})` : '';
    const paint = Number.isNaN(inp) ? '' : `${inp <= 16 ? '≤16' : ms(inp)} (max ${ms(Math.max(...inps))})`;
    console.log(`| ${name} | ${list.length} | ${range} | ${paint} |`);
  }
}

await main();
