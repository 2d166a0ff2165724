// Interaction latency of the demo page, as a user waits for it: for each interaction, the Event Timing API's
// duration from the input to the next paint (what INP is built on), in Debian's Chromium, headless.
//
//   node bench/page-latency.mjs [--repeat 5] [--sizes default,old,gpt2] [--widths 1280,390] [--pause 500]
//                               [--compare <another built dist folder>]
//   node bench/page-latency.mjs --first 12 [--compare <dist>] [--sizes default] [--widths 1280]
//
// --first N measures only the first numbers: N fresh loads of each build at the first size and width, the builds
// interleaved round by round (their order alternating), and prints the median, the spread and how many loads were
// within 1 s.
//
// Needs the built page (bash scripts/build.sh). Prints one Markdown table of medians (and maxima) per size and
// width, the temperature drag's frames per second, and the time from navigation to the first numbers on screen.
// Between two interactions it waits as a reader would: until the page is idle, and `--pause` ms at least; one
// column clicks "New seed" twice at once, the case where the next seed is not made ahead yet. On a narrow screen
// it opens the folded settings with a click first.
// Event Timing reports only durations of 16 ms or more (rounded to 8 ms): "≤16" means no entry was reported.
// The machine may be shared: figures are medians of `--repeat` interactions, and vary from run to run.
/* global document, window, requestAnimationFrame, requestIdleCallback -- page.evaluate() callbacks run in the page */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/chromium.mjs';
import { serveStatic } from '../tests/serve-static.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = `${ROOT}web/dist`;

function parseArgs(argv) {
  const args = { repeat: 5, pause: 500, sizes: ['default', 'old', 'gpt2'], widths: [1280, 390] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--repeat') args.repeat = Number(argv[++i]);
    else if (argv[i] === '--pause') args.pause = Number(argv[++i]);
    else if (argv[i] === '--compare') args.compare = argv[++i];
    else if (argv[i] === '--first') args.first = Number(argv[++i]);
    else if (argv[i] === '--sizes') args.sizes = argv[++i].split(',');
    else if (argv[i] === '--widths') args.widths = argv[++i].split(',').map(Number);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return args;
}

const words = (count) => Array.from({ length: count }, (_, i) => `w${i}`).join('+');

/** The sizes measured: the default example, the old caps (n = 64, 8 heads) and GPT-2's layer (n = 64). */
const SIZES = {
  default: { label: 'default (n = 5, d_model = 8)', hash: '' },
  old: { label: 'n = 64, d_model = 64, 8 heads', hash: `#s=${words(64)}&n=64&dm=64&dk=8&dv=8&h=8` },
  gpt2: { label: 'GPT-2: n = 64, d_model = 768, 12 heads', hash: `#s=${words(64)}&n=64&dm=768&dk=64&dv=64&h=12` },
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

/** Installs the Event Timing observer: every entry with an interactionId, kept in window.__events. */
async function observe(page) {
  await page.evaluate(() => {
    window.__events = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.interactionId) window.__events.push({ id: entry.interactionId, duration: entry.duration });
      }
    }).observe({ type: 'event', durationThreshold: 16, buffered: false });
  });
}

const renders = (page) => page.evaluate(() => Number(document.body.dataset.renders ?? 0));

/**
 * Runs `action` (one interaction), waits for the page to have drawn its result, and returns the longest
 * Event Timing duration of that interaction (16 when none was reported), and the page's own figure from the
 * input to its result on screen (the status line's, data-paint-ms).
 */
async function measure(page, action) {
  await page.evaluate(() => {
    window.__events.length = 0;
    delete document.body.dataset.paintMs;
  });
  const before = await renders(page);
  await action();
  await page.waitForFunction((n) => Number(document.body.dataset.renders) > n, before, { timeout: 30000 });
  await page.waitForFunction(() => document.body.dataset.paintMs !== undefined, null, { timeout: 30000 });
  // Event Timing entries arrive after the paint; two frames and a pause let them in.
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50)))),
  );
  const events = await page.evaluate(() => window.__events);
  const result = await page.evaluate(() => Number(document.body.dataset.paintMs));
  return { paint: events.length ? Math.max(...events.map((e) => e.duration)) : 16, result };
}

/** The interactions measured, each a function of the page and the repetition number. */
const INTERACTIONS = {
  'edit a number': async (page, r) => {
    // A large X is a heatmap: a click on its first cell opens the numbers of its first block.
    const heatmap = page.locator('[data-matrix="x"] .cm-canvas');
    if ((await heatmap.count()) && !(await page.locator('[data-matrix="x"] .cm-zoom .c').count())) {
      await heatmap.click({ position: { x: 1, y: 1 } });
    }
    const cell = page.locator('[data-matrix="x"] .c[data-i="0"][data-j="0"]');
    await cell.dblclick();
    const editor = page.locator('[data-matrix="x"] .cell-editor');
    await editor.fill(String(0.5 + r / 10));
    return measure(page, () => editor.press('Enter'));
  },
  'toggle causal': (page) => measure(page, () => page.click('#causal')),
  'new seed': (page) => measure(page, () => page.click('#new-seed')),
  // A second click as soon as the first one's result is on screen: on a large layer the next seed is still
  // being made ahead (seedAhead.js), so this is the slow case.
  'new seed, twice at once': async (page) => {
    await measure(page, () => page.click('#new-seed'));
    return measure(page, () => page.click('#new-seed'));
  },
  'type in the sentence': async (page) => {
    await page.focus('#sentence');
    await page.keyboard.press('End');
    return measure(page, () => page.keyboard.press('z'));
  },
  'switch head': async (page) => {
    if (!(await page.isVisible('#head'))) return null;
    await page.focus('#head');
    const last = await page.evaluate(() => document.getElementById('head').selectedIndex);
    const count = await page.evaluate(() => document.getElementById('head').options.length);
    return measure(page, () => page.keyboard.press(last + 1 < count ? 'ArrowDown' : 'ArrowUp'));
  },
};

/**
 * Drags the temperature slider as a pointer would at 60 Hz, but without the tool's own latency: one input event
 * per animation frame, dispatched in the page, for 90 frames. Returns the frames per second that showed a new
 * drawing (what the eye sees), and the median script time of one update's render (data-script-ms), against a
 * frame's 16.7 ms.
 */
async function dragTemperature(page) {
  await page.locator('#temperature').scrollIntoViewIfNeeded();
  return page
    .evaluate(
      () =>
        new Promise((resolve) => {
          const input = document.getElementById('temperature');
          const renders = () => Number(document.body.dataset.renders);
          const before = renders();
          const updates = [];
          let seen = before;
          let frame = 0;
          let start = 0;
          const step = (now) => {
            if (frame === 0) start = now;
            const count = renders();
            // data-script-ms; builds before it had data-update-ms only (which also counts the wait for the frame).
            const body = document.body.dataset;
            if (count > seen) updates.push(Number(body.scriptMs ?? body.updateMs));
            seen = count;
            if (frame === 90) {
              resolve({ fps: (count - before) / ((now - start) / 1000), updates });
              return;
            }
            // 0.5 → 2.0 and back in the slider's steps of 0.05: every frame a new temperature.
            const k = frame % 60 < 30 ? frame % 60 : 60 - (frame % 60);
            input.value = (0.5 + 0.05 * k).toFixed(2);
            input.dispatchEvent(new Event('input', { bubbles: true }));
            frame++;
            requestAnimationFrame(step);
          };
          requestAnimationFrame(step);
        }),
    )
    .then(({ fps, updates }) => ({ fps, updateMs: updates.length ? median(updates) : NaN }));
}

/** Waits as a reader would between two interactions: until the page is idle, the next seed made, and `ms` at least. */
async function pause(page, ms) {
  const started = Date.now();
  await page.waitForFunction(() => (document.documentElement.dataset.pendingGrids ?? '0') === '0', null, {
    timeout: 30000,
  });
  await page
    .waitForFunction(() => document.documentElement.dataset.seedAhead !== 'making', null, { timeout: 10000 })
    .catch(() => {});
  await page.evaluate(() => new Promise((resolve) => requestIdleCallback(resolve, { timeout: 1000 })));
  const left = ms - (Date.now() - started);
  if (left > 0) await page.waitForTimeout(left);
}

/** On a narrow screen the settings fold into one button: opens them as a user would, with a click. */
async function openSettings(page) {
  const toggle = page.locator('#settings-toggle');
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
}

/** Opens the page and returns the time from navigation to the first numbers on screen (ms). */
async function firstNumbers(context, url) {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => Number(document.body.dataset.renders ?? 0) >= 1, null, { timeout: 30000 });
  // Written once the frame that shows the first render is painted (latency.js).
  await page.waitForFunction(() => document.body.dataset.firstPaintMs !== undefined, null, { timeout: 30000 });
  const ms = await page.evaluate(() => Number(document.body.dataset.firstPaintMs ?? NaN));
  return { page, ms };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const servers = [];
  for (const dist of [DIST, ...(args.compare ? [args.compare] : [])]) {
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(
      readFileSync(`${dist}/index.html`, 'utf8'),
    )[1];
    servers.push({ dist, server: await serveStatic(dist, { headers: { 'Content-Security-Policy': csp } }) });
  }
  const browser = await launchChromium();
  // A user's browser is already running: one page with text first, so the first row's "first numbers" does not
  // include starting the browser's renderer and GPU processes and loading its fonts.
  const warm = await browser.newContext();
  const blank = await warm.newPage();
  await blank.setContent('<p>Warm-up <code>0.5</code></p>');
  await blank.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
  await warm.close();
  let printed = 0;
  try {
    if (args.first) {
      await firstNumbersOnly(browser, servers, args);
      return;
    }
    for (const width of args.widths) {
      for (const size of args.sizes) {
        // With --compare, the two builds alternate, size by size, in the same browser: an A/B of one run.
        // The two builds swap places from one size to the next: neither always loads first.
        const order = printed % 4 === 2 ? [...servers].reverse() : servers;
        for (const { dist, server } of order) {
          const row = await measureSize(browser, server.url, width, size, args);
          if (args.compare) row.size = `${row.size} (${dist === DIST ? 'this build' : dist})`;
          printRow(row, printed++ === 0);
        }
      }
    }
  } finally {
    await browser.close();
    for (const { server } of servers) await server.close();
  }
}

/**
 * --first: `args.first` fresh loads of each build at the first size and width, interleaved (round r opens the builds
 * in turn, starting with build r mod the number of builds), and one table row per build.
 */
async function firstNumbersOnly(browser, servers, args) {
  const [size] = args.sizes;
  const [width] = args.widths;
  const times = servers.map(() => []);
  for (let round = 0; round < args.first; round++) {
    for (let k = 0; k < servers.length; k++) {
      const index = (round + k) % servers.length;
      const context = await browser.newContext({ viewport: { width, height: width > 600 ? 800 : 844 } });
      try {
        const { ms } = await firstNumbers(context, `${servers[index].server.url}${SIZES[size].hash}`);
        times[index].push(ms);
      } finally {
        await context.close();
      }
    }
  }
  console.log(
    `First numbers on screen after navigation (ms), ${SIZES[size].label}, ${width} px, ${args.first} loads each:`,
  );
  console.log('| build | median | min | max | within 1 s | all, sorted |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  servers.forEach(({ dist }, k) => {
    const sorted = [...times[k]].sort((a, b) => a - b);
    const within = sorted.filter((ms) => ms <= 1000).length;
    const name = dist === DIST ? 'this build' : dist;
    console.log(
      `| ${name} | ${Math.round(median(sorted))} | ${Math.round(sorted[0])} | ${Math.round(sorted.at(-1))} | ${within}/${sorted.length} | ${sorted.map(Math.round).join(' ')} |`,
    );
  });
}

/** Opens the page at one size and width, and measures every interaction `args.repeat` times. */
async function measureSize(browser, url, width, size, args) {
  const context = await browser.newContext({ viewport: { width, height: width > 600 ? 800 : 844 } });
  try {
    const { page, ms } = await firstNumbers(context, `${url}${SIZES[size].hash}`);
    await page.waitForFunction(() => (document.documentElement.dataset.pendingGrids ?? '0') === '0');
    await openSettings(page);
    await observe(page);
    const row = { width, size: SIZES[size].label, first: ms, figures: {} };
    for (const [name, run] of Object.entries(INTERACTIONS)) {
      const values = [];
      for (let r = 0; r < args.repeat; r++) {
        await pause(page, args.pause);
        const value = await run(page, r);
        if (value !== null) values.push(value);
      }
      row.figures[name] = values;
    }
    row.drag = await dragTemperature(page);
    return row;
  } finally {
    await context.close();
  }
}

function printRow(row, header) {
  const names = Object.keys(INTERACTIONS);
  const show = (v) => (v <= 16 ? '≤16' : String(Math.round(v)));
  const cell = (values) => {
    if (!values.length) return 'n/a';
    const paints = values.map((v) => v.paint);
    const results = values.map((v) => v.result);
    return `${show(median(paints))} (max ${show(Math.max(...paints))}) · ${Math.round(median(results))}`;
  };
  if (header) {
    console.log(
      'Each cell, ms: Event Timing input to next paint, median (max) · input to the result on screen, median.',
      'Temperature drag: frames per second that drew a new result with one input per frame, and the script time',
      'of one update (a frame is 16.7 ms).',
    );
    console.log(`| width | size | first numbers | ${names.join(' | ')} | temperature drag |`);
    console.log(`|${' --- |'.repeat(names.length + 4)}`);
  }
  const first = Number.isFinite(row.first) ? `${Math.round(row.first)} ms` : 'n/a';
  const drag = `${row.drag.fps.toFixed(0)} fps; ${row.drag.updateMs.toFixed(1)} ms/update`;
  console.log(
    `| ${row.width} | ${row.size} | ${first} | ${names.map((n) => cell(row.figures[n])).join(' | ')} | ${drag} |`,
  );
}

await main();
