// The page's "Real model" with a GPT-2-small-shaped checkpoint (12 layers × 12 heads, d_model 768, vocabulary
// 50 257; random weights, bench/model/checkpoint.mjs) read by address over HTTP with Range from the page's own
// origin, in Debian's Chromium, headless, against the built page (web/dist): issue 25 §5's latencies, at 32 tokens.
//
//   node bench/real-model-latency.mjs [--rounds 5] [--cold 3] [--keys 5] [--only keys] [--width 1280] [--dist web/dist]
//
// Each figure is from the input (the click's or the key's event timeStamp) to the first animation frame at which the
// page shows the result (polled every frame), and, beside it, Event Timing's input-to-next-paint of that interaction
// (what INP is built on: it ends at the first paint after the input, not after asynchronous work):
//   first load       the folder URL submitted (Enter) to the model view drawn, the Cache Storage emptied first
//                    (#model-cache-clear): every range read over HTTP; the model's code and WebAssembly module
//                    are loaded already (the section was opened with the shipped model first)
//   first load, no Cache Storage   the same in a page without `caches` (the page then keeps nothing)
//   load again       the same, the ranges in Cache Storage (what the page keeps of a model read by address)
//   ablation         an "off" toggle to the model view and the prediction drawn again
//   new head         a head's number button (its layer run alone, and drawn in the walk of steps 1–8), in two
//                    figures: to the frame that shows it on screen (the walk's sentence names the head and the page
//                    has drawn it: what is near the screen is drawn in that frame; the steps are below the model
//                    view, off screen), and to every part drawn, off screen too (data-pending-grids 0: the grids
//                    away from the screen and the one-layer head view draw in idle time)
//   edit a number    in that walk, a number of X edited (Enter), in two figures: to the steps drawn again (the page's
//                    data-paint-ms: the edited layer runs alone first, and the walk's steps are drawn from it), and
//                    to the frame with the model view and the prediction drawn again (the later layers run after the
//                    steps are painted; both end equal to a whole run with the edit)
//   generation step  Step to the token shown: step 1 is the prefill of the 32 tokens, the others one token each
//   a key during a run   (--keys rounds; --only keys: this figure alone) a run started (an ablation toggled in
//                    the first layer: every layer runs) and, once 3 of its layers are computed, a space typed at the
//                    end of the sentence field: Event Timing's input-to-next-paint of that key press, and the longest
//                    task (Long Tasks API) from the key to the run's last layer, and from there to the run drawn;
//                    beside them a key typed at rest (the machine's load), and each round's longest animation frame
//                    while the layers ran with the script it ran (Long Animation Frames API).
//                    Two pages in the one browser, their rounds interleaved: the page as it loads the model (on
//                    workers: loadModel's workers 'auto'), and the same page served with a second CSP, worker-src
//                    'none', under which it loads the model on its own thread
// No tokenizer.json: the page takes the 32 token ids typed (benchIds). The machine may be shared: figures vary.
/* global document, window -- page.evaluate() callbacks run in the page */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/chromium.mjs';
import { benchIds, writeGpt2Checkpoint } from './model/checkpoint.mjs';
import { keyDuringRun, printKeys } from './key-during-run.mjs';
import { editorOnX, median, observe } from './page-driver.mjs';
import { serve } from './serve-dist.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const args = { rounds: 5, cold: 3, keys: 5, only: '', width: 1280, dist: `${ROOT}web/dist` };
for (let i = 2; i < process.argv.length; i++) {
  const key = process.argv[i].replace(/^--/, '');
  if (!(key in args)) throw new Error(`unknown argument ${process.argv[i]}`);
  args[key] = key === 'dist' || key === 'only' ? process.argv[++i] : Number(process.argv[++i]);
}
const CHECKPOINT = `${ROOT}build/bench-model/gpt2-12`;
const N = 32;

const runs = (page) => page.evaluate(() => Number(document.body.dataset.modelRuns ?? 0));

/** Waits for the page to be idle (no grids pending, an idle callback) and `ms` more. */
async function settle(page, ms = 400) {
  await page.waitForFunction(() => (document.documentElement.dataset.pendingGrids ?? '0') === '0', null, {
    timeout: 120000,
  });
  await page.evaluate(() => new Promise((resolve) => window.requestIdleCallback(resolve, { timeout: 2000 })));
  await page.waitForTimeout(ms);
}

/**
 * Runs `action` (one interaction) and returns { ms: from its input event's timeStamp to the first animation frame
 * at which `done(arg)` holds, inp: its Event Timing duration (16 when none was reported) }. The frames are watched by
 * a requestAnimationFrame loop of the page's own (installed by the tool, as `done`'s source): Playwright's 'raf'
 * polling was seen to skip the frames of a busy page, by 200 to 400 ms.
 */
async function timed(page, action, done, arg, early = null) {
  await page.evaluate(() => {
    window.__events.length = 0;
    window.__input = null;
    const first = (event) => {
      window.__input ??= event.timeStamp;
    };
    for (const type of ['pointerdown', 'keydown'])
      document.addEventListener(type, first, { capture: true, once: true });
  });
  await page.evaluate(`(() => {
    const done = ${done.toString()};
    const early = ${early ? early.toString() : 'null'};
    const arg = ${JSON.stringify(arg)};
    window.__at = window.__early = null;
    const frame = () => {
      const at = done(arg);
      if (early && window.__early === null) window.__early = early(arg) || at || null;
      if (at) window.__at = at;
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  })()`);
  await action();
  await page.waitForFunction(() => window.__at !== null, null, { timeout: 300000 });
  const [at, first] = await page.evaluate(() => [window.__at, window.__early]);
  await settle(page, 100);
  const { input, events, own } = await page.evaluate(() => ({
    input: window.__input,
    events: window.__events,
    // The page's own figures of the last run: model.run's ms and the model view's drawing, or the generation step's.
    own: {
      run: Number(document.body.dataset.modelRunMs),
      view: Number(document.body.dataset.modelViewMs),
      step: Number(/last step took (\d+) ms/u.exec(document.getElementById('gen-status')?.textContent ?? '')?.[1]),
    },
  }));
  const inp = events.length ? Math.max(...events.map((e) => e.duration)) : 16;
  return { ms: at - input, inp, own, ...(first ? { first: first - input } : {}) };
}

// The conditions, evaluated in the page every frame: each returns performance.now() once it holds.
const modelRunAfter = (n) => Number(document.body.dataset.modelRuns ?? 0) > n && performance.now();
const walkOf = ([text, renders]) =>
  document.getElementById('model-walk').textContent.includes(text) &&
  Number(document.body.dataset.renders ?? 0) > renders &&
  (document.documentElement.dataset.pendingGrids ?? '0') === '0' &&
  performance.now();
const walkNamed = ([text, renders]) =>
  document.getElementById('model-walk').textContent.includes(text) &&
  Number(document.body.dataset.renders ?? 0) > renders &&
  performance.now();
const genSteps = (n) => Number(document.body.dataset.genSteps ?? 0) >= n && performance.now();

async function loadByUrl(page, clear) {
  if (clear) {
    await page.click('#model-cache-clear');
    await page.waitForFunction(() => /Nothing is kept/u.test(document.getElementById('model-cache').textContent));
  }
  const n = await runs(page);
  await page.focus('#model-url');
  const figure = await timed(page, () => page.keyboard.press('Enter'), modelRunAfter, n);
  const status = await page.textContent('#model-status');
  if (!status.includes(`Ran ${N} tokens`)) throw new Error(`not a run of ${N} tokens: ${status}`);
  return figure;
}

/**
 * A number of the walk's X edited (as page-driver's 'edit a number'): timed's figure to the
 * frame with the model view and the prediction drawn again, and `steps`, the page's own figure to the steps drawn
 * again (data-paint-ms).
 */
async function editNumber(page, r) {
  const editor = await editorOnX(page, String(0.5 + r / 10));
  await page.evaluate(() => delete document.body.dataset.paintMs);
  const figure = await timed(page, () => editor.press('Enter'), modelRunAfter, await runs(page));
  await page.waitForFunction(() => document.body.dataset.paintMs !== undefined, null, { timeout: 30000 });
  return { ...figure, steps: await page.evaluate(() => Number(document.body.dataset.paintMs)) };
}

/** A page with the checkpoint open by its folder URL and the 32 ids typed (a new load of the folder keeps them). */
async function openCheckpoint(browser, url, withoutCaches) {
  const context = await browser.newContext({ viewport: { width: args.width, height: args.width > 600 ? 800 : 844 } });
  // The page's model cache is opt-in where the browser has Cache Storage: without `caches` it keeps nothing.
  if (withoutCaches) await context.addInitScript(() => Object.defineProperty(window, 'caches', { value: undefined }));
  const page = await context.newPage();
  await page.goto(url);
  await observe(page);
  // A narrow screen folds the settings, where the "Real model" button is: a reader opens them first.
  if (
    (await page.isVisible('#settings-toggle')) &&
    (await page.getAttribute('#settings-toggle', 'aria-expanded')) === 'false'
  )
    await page.click('#settings-toggle');
  await page.click('#real-model-button');
  await page.waitForFunction(() => Number(document.body.dataset.modelRuns ?? 0) > 0, null, { timeout: 60000 });
  await page.fill('#model-url', `${url}bench-model/`);
  let n = await runs(page);
  await page.click('#model-url-open');
  await page.waitForFunction(modelRunAfter, n, { timeout: 300000 });
  n = await runs(page);
  await page.fill('#model-text', benchIds(N, 50257).join(' '));
  await page.waitForFunction(modelRunAfter, n, { timeout: 60000 });
  await settle(page);
  return { context, page };
}

async function main() {
  writeGpt2Checkpoint(CHECKPOINT);
  const html = readFileSync(`${args.dist}/index.html`, 'utf8');
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)[1];
  const server = await serve(args.dist, CHECKPOINT, csp);
  const browser = await launchChromium();
  const figures = {};
  let wide;
  const add = (name, figure) => (figures[name] ??= []).push(figure);
  try {
    if (args.keys) await keysDuringRuns(browser, server.url, csp);
    if (args.only === 'keys') return;
    // Without Cache Storage (as in a browser that has none): every load reads the ranges over HTTP and keeps none.
    if (args.cold) {
      const bare = await openCheckpoint(browser, server.url, true);
      for (let r = 0; r < args.cold; r++) {
        add('first load, no Cache Storage', await loadByUrl(bare.page, false));
        await settle(bare.page);
      }
      await bare.context.close();
    }
    const { context, page } = await openCheckpoint(browser, server.url, false);
    for (let r = 0; r < args.cold; r++) {
      add('first load (ranges over HTTP)', await loadByUrl(page, true));
      // The ranges are written into Cache Storage after the run: the next load starts once they are.
      await page.waitForFunction(() => /MB of models/u.test(document.getElementById('model-cache').textContent), null, {
        timeout: 300000,
      });
      await settle(page);
    }
    for (let r = 0; r < args.rounds; r++) {
      add('load again (ranges in Cache Storage)', await loadByUrl(page, false));
      await settle(page);
    }
    for (let r = 0; r < args.rounds; r++) {
      const [layer, head] = [(r * 5) % 12, (r * 7 + 3) % 12];
      const text = `Layer ${layer + 1} head ${head + 1} is in the steps`;
      const renders = await page.evaluate(() => Number(document.body.dataset.renders ?? 0));
      const click = () => page.click(`.head-button[data-layer="${layer}"][data-head="${head}"]`);
      const opened = await timed(page, click, walkOf, [text, renders], walkNamed);
      add('new head: on screen', { ...opened, ms: opened.first });
      add('new head: every part drawn, off screen too', opened);
      await settle(page);
      const { steps, ...prediction } = await editNumber(page, r);
      add('edit a number: the steps drawn again', { ...prediction, ms: steps });
      add('edit a number: the prediction drawn again', prediction);
      await settle(page);
    }
    for (let r = 0; r < 2 * args.rounds; r++) {
      // Off and on again, one head of the last layer; the first "off" also runs once with every head on.
      const button = `.ablate-button[data-layer="11"][data-head="${Math.floor(r / 2) % 12}"]`;
      const before = await runs(page);
      add(`ablation ${r % 2 ? 'on again' : 'off'}`, await timed(page, () => page.click(button), modelRunAfter, before));
      await settle(page);
    }
    for (let r = 0; r < args.rounds + 1; r++) {
      const figure = await timed(page, () => page.click('#gen-step'), genSteps, r + 1);
      add(r === 0 ? 'generation step 1 (prefill, 32 tokens)' : 'generation step (one token, KV cache)', figure);
      await settle(page);
    }
    wide = await sideways(page, args.width);
    await context.close();
  } finally {
    await browser.close();
    await server.close();
  }
  print(figures);
  console.log(
    wide.length
      ? `At ${args.width} px, scrolling sideways: ${wide.join('; ')}`
      : `At ${args.width} px, neither the page nor a box of the real model's section scrolls sideways.`,
  );
}

/**
 * "A key during a run", rounds interleaved between the page on workers (its own server) and the page on its own
 * thread (a second server adding worker-src 'none' to its policy): printKeys' table.
 */
async function keysDuringRuns(browser, url, csp) {
  const refusing = await serve(args.dist, CHECKPOINT, `${csp}, worker-src 'none'`);
  const pages = {};
  try {
    for (const [label, at] of [
      ['on workers', url],
      ['on its own thread (worker-src none)', refusing.url],
    ]) {
      const { context, page } = await openCheckpoint(browser, at, false);
      const about = await page.textContent('#model-about');
      pages[`${label}: ${/runs on [^·]*/u.exec(about)?.[0].trim() ?? about}`] = { context, page };
    }
    const byPage = Object.fromEntries(Object.keys(pages).map((label) => [label, []]));
    for (let r = 0; r < args.keys; r++) {
      const order = r % 2 ? Object.keys(pages).reverse() : Object.keys(pages);
      for (const label of order) {
        byPage[label].push(await keyDuringRun(pages[label].page, r));
        await settle(pages[label].page);
      }
    }
    printKeys(byPage);
  } finally {
    await Promise.all(Object.values(pages).map(({ context }) => context.close()));
    await refusing.close();
  }
}

/** The page, and each box of the real model's section, that is wider than its room (it scrolls sideways). */
function sideways(page, width) {
  return page.evaluate((viewport) => {
    const found = [];
    if (document.documentElement.scrollWidth > viewport)
      found.push(`the page (${document.documentElement.scrollWidth} px)`);
    for (const node of document.querySelectorAll('#step-model *')) {
      const { overflowX } = window.getComputedStyle(node);
      if (node.scrollWidth > node.clientWidth + 1 && /auto|scroll/u.test(overflowX) && node.clientWidth > 0)
        found.push(
          `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}.${[...node.classList].join('.')} (${node.scrollWidth} px in ${node.clientWidth})`,
        );
    }
    return found;
  }, width);
}

function print(figures) {
  const ms = (v) => String(Math.round(v));
  console.log(
    `GPT-2-small-shaped checkpoint (random weights), ${N} tokens, ${args.width} px; ms from the input to the frame`,
    'that shows the result: median (min–max); Event Timing input-to-next-paint, median ("≤16": none reported).',
  );
  console.log('| interaction | rounds | to the result drawn | Event Timing | page: model.run · view drawn |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const [name, list] of Object.entries(figures)) {
    const all = list.map((f) => f.ms);
    const inp = median(list.map((f) => f.inp));
    const own = (key) => median(list.map((f) => f.own?.[key] ?? NaN));
    const page = name.startsWith('generation')
      ? `step ${ms(own('step'))}`
      : name.startsWith('new head') || name.startsWith('edit a number: the steps')
        ? ''
        : `${ms(own('run'))} · ${ms(own('view'))}`;
    console.log(
      `| ${name} | ${list.length} | ${ms(median(all))} (${ms(Math.min(...all))}–${ms(Math.max(...all))}) | ${inp <= 16 ? '≤16' : ms(inp)} | ${page} |`,
    );
  }
}

await main();
