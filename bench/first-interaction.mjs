// --fresh N of page-latency.mjs: the first interaction of each kind, each on a page of its own. A fresh page is opened
// for every measurement, the reader waits as in the other columns (the page idle, --pause ms at least), then acts once:
// no interaction of the page ran before it, so it pays for whatever code has not run yet. With --compare, the builds
// take turns page by page, their order alternating from round to round.
/* global document -- page.evaluate() callbacks run in the page */
import { INTERACTIONS, SIZES, firstNumbers, median, observe, openSettings, pause } from './page-driver.mjs';

/** The interactions measured fresh: each is the first of the page. */
export const FRESH_KINDS = [
  'toggle causal',
  'new seed',
  'type in the sentence',
  'open a block',
  'edit a number',
  'switch head',
  'temperature step',
];

/** Opens a fresh page, waits as a reader would, and measures one interaction: { paint, result } or null (n/a). */
async function once(browser, url, width, size, kind, args) {
  const context = await browser.newContext({ viewport: { width, height: width > 600 ? 800 : 844 } });
  try {
    const { page } = await firstNumbers(context, `${url}${SIZES[size].hash}`);
    await page.waitForFunction(() => (document.documentElement.dataset.pendingGrids ?? '0') === '0');
    await openSettings(page);
    await observe(page);
    await pause(page, args.pause);
    // The page's warm-up (warmUp.js), where it has one: done before the click, and its longest rehearsal's task.
    const warm = await page.evaluate(() => ({ ...document.documentElement.dataset }));
    const value = await INTERACTIONS[kind](page, 0);
    return value && { ...value, warmed: warm.warm === 'done', rehearsalMs: Number(warm.rehearsalMs ?? NaN) };
  } finally {
    await context.close();
  }
}

const show = (v) => (v <= 16 ? '≤16' : String(Math.round(v)));

/**
 * Measures FRESH_KINDS (or some of them, `args.kinds`) `args.fresh` times per build, width and size, and prints one
 * Markdown row per build, width and size: Event Timing median (max) · the page's input-to-result figure (median), ms.
 * @param {{ dist: string, server: { url: string } }[]} servers  the builds
 * @param {(dist: string) => string} name  a build's name in the table
 */
export async function freshInteractions(browser, servers, args, name) {
  const kinds = args.kinds ?? FRESH_KINDS;
  console.log(
    `The first interaction of each kind, each on a fresh page (${args.fresh} pages per cell, --pause ${args.pause} ms);`,
    'ms: Event Timing input to next paint, median (max) · input to the result on screen, median.',
  );
  console.log(`| width | size | build | ${kinds.join(' | ')} | warm-up done before the click; longest rehearsal |`);
  console.log(`|${' --- |'.repeat(kinds.length + 4)}`);
  for (const width of args.widths) {
    for (const size of args.sizes) {
      const figures = servers.map(() => Object.fromEntries(kinds.map((kind) => [kind, []])));
      for (let round = 0; round < args.fresh; round++) {
        for (const kind of kinds) {
          for (let k = 0; k < servers.length; k++) {
            const index = (round + k) % servers.length;
            const value = await once(browser, servers[index].server.url, width, size, kind, args);
            if (value !== null) figures[index][kind].push(value);
          }
        }
      }
      servers.forEach(({ dist }, index) => {
        const cells = kinds.map((kind) => {
          const values = figures[index][kind];
          if (!values.length) return 'n/a';
          const paints = values.map((v) => v.paint);
          const result = Math.round(median(values.map((v) => v.result)));
          const tail = Number.isFinite(result) ? ` · ${result}` : ''; // a zoomed block: no render of the layer
          return `${show(median(paints))} (max ${show(Math.max(...paints))})${tail}`;
        });
        const all = kinds.flatMap((kind) => figures[index][kind]);
        const rehearsals = all.map((v) => v.rehearsalMs).filter(Number.isFinite);
        const warm = rehearsals.length
          ? `${all.filter((v) => v.warmed).length}/${all.length}; ${Math.round(median(rehearsals))} ms (max ${Math.round(Math.max(...rehearsals))})`
          : 'no warm-up';
        console.log(`| ${width} | ${SIZES[size].label} | ${name(dist)} | ${cells.join(' | ')} | ${warm} |`);
      });
    }
  }
}
