// Interaction latency of the demo page, as a user waits for it: for each interaction, the Event Timing API's
// duration from the input to the next paint (what INP is built on), in Debian's Chromium, headless.
//
//   node bench/page-latency.mjs [--repeat 5] [--sizes default,old,gpt2] [--widths 1280,390] [--pause 500]
//                               [--compare <another built dist folder>] [--dist <this build's folder>]
//   node bench/page-latency.mjs --first 12 [--compare <dist>] [--sizes default] [--widths 1280]
//   node bench/page-latency.mjs --fresh 3 [--compare <dist>] [--sizes old,gpt2] [--widths 1280,390]
//                               [--kinds 'open a block,temperature step']
//
// --fresh N measures the first interaction of each kind, each on a fresh page (first-interaction.mjs), N pages per
// kind, build, size and width; --kinds names some of the kinds only.
//
// --first N measures only the first numbers: N fresh loads of each build at the first size and width, the builds
// interleaved round by round (their order alternating), and prints the median, the spread and how many loads were
// within 1 s.
//
// Needs the built page (bash scripts/build.sh). Prints one Markdown table of medians (and maxima) per size and
// width, the temperature drag's frames per second, and the time from navigation to the first numbers on screen.
// Between two interactions it waits as a reader would: until the page is idle, and `--pause` ms at least; one
// column clicks "New seed" twice at once, the case where the next seed is not made ahead yet. On a narrow screen
// it opens the folded settings with a click first. "open a block" (a click on X's heatmap, where X is one) has only
// its Event Timing figure: it draws the block's numbers, no new result of the layer.
// Event Timing reports only durations of 16 ms or more (rounded to 8 ms): "≤16" means no entry was reported.
// The machine may be shared: figures are medians of `--repeat` interactions, and vary from run to run.
/* global document, requestAnimationFrame -- page.evaluate() callbacks run in the page */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/chromium.mjs';
import { serveStatic } from '../tests/serve-static.mjs';
import { freshInteractions } from './first-interaction.mjs';
import {
  INTERACTIONS,
  SIZES,
  dragTemperature,
  firstNumbers,
  median,
  observe,
  openSettings,
  pause,
} from './page-driver.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
let DIST = `${ROOT}web/dist`;

function parseArgs(argv) {
  const args = { repeat: 5, pause: 500, sizes: ['default', 'old', 'gpt2'], widths: [1280, 390] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--repeat') args.repeat = Number(argv[++i]);
    else if (argv[i] === '--pause') args.pause = Number(argv[++i]);
    else if (argv[i] === '--compare') args.compare = argv[++i];
    else if (argv[i] === '--dist') DIST = argv[++i];
    else if (argv[i] === '--first') args.first = Number(argv[++i]);
    else if (argv[i] === '--fresh') args.fresh = Number(argv[++i]);
    else if (argv[i] === '--sizes') args.sizes = argv[++i].split(',');
    else if (argv[i] === '--widths') args.widths = argv[++i].split(',').map(Number);
    else if (argv[i] === '--kinds') args.kinds = argv[++i].split(',');
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return args;
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
    if (args.fresh) {
      await freshInteractions(browser, servers, args, (dist) => (dist === DIST ? 'this build' : dist));
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
    const result = Math.round(median(values.map((v) => v.result)));
    const tail = Number.isFinite(result) ? ` · ${result}` : ''; // a zoomed block: no render of the layer
    return `${show(median(paints))} (max ${show(Math.max(...paints))})${tail}`;
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
