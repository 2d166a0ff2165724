// real-model-latency.mjs's "a key during a run": a run of the page's real model started, and a key typed into the
// sentence field while it computes; its Event Timing input-to-next-paint and the longest tasks while the layers run
// and while the run is drawn.
/* global document, window, MutationObserver -- page.evaluate() callbacks run in the page */
import { median } from './page-driver.mjs';

const LAYERS_FIRST = 3; // layers computed before the key: the run is under way
const TIMEOUT = 300000;

const count = (page, key) => page.evaluate((k) => Number(document.body.dataset[k] ?? 0), key);

/** Installs, once, the observers of the key's Event Timing entries and of long tasks (with their start times). */
async function install(page) {
  await page.evaluate(() => {
    if (window.__keyRun) return;
    window.__keyRun = { events: [], long: [], frames: [], layers: [], runs: [] };
    // when each layer's progress and each run's end are written on the page (data-model-layers-run, data-model-runs)
    new MutationObserver((list) => {
      for (const m of list)
        window.__keyRun[m.attributeName === 'data-model-runs' ? 'runs' : 'layers'].push(performance.now());
    }).observe(document.body, { attributes: true, attributeFilter: ['data-model-layers-run', 'data-model-runs'] });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        if (e.interactionId) window.__keyRun.events.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'event', durationThreshold: 16 });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__keyRun.long.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask' });
    // Long animation frames, with the script that took longest in each: what the long tasks ran
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const [top] = [...e.scripts].sort((a, b) => b.duration - a.duration);
        const file = top?.sourceURL
          .split('/')
          .pop()
          .replace(/-[\w-]{8}\.js$/u, '.js');
        const script = top ? `${top.invoker} → ${top.sourceFunctionName || '?'} (${file})` : 'no script: layout, paint';
        window.__keyRun.frames.push({ start: e.startTime, duration: e.duration, script });
      }
    }).observe({ type: 'long-animation-frame' });
  });
}

/**
 * One round on `page` (the 32 ids typed, settled): a space typed at rest; an ablation toggled in the first layer
 * (head r / 2, off then on again: the run goes through every layer), then, once LAYERS_FIRST layers of that run are
 * computed, a space typed at the end of the sentence field.
 * @returns {{ rest: number, inp: number, frame?: string, longest: number, drawing: number, underWay: boolean,
 *   run: number }}  rest: a key typed at rest first (its run waited for), inp: the key during the run (Event Timing's
 *   duration; 16: none reported, ≤ 16 ms); frame: the longest animation frame while the layers ran and its script;
 *   longest: the longest task from the key to the run's last layer; drawing: from there to the run drawn (0: no task
 *   over 50 ms); underWay: a layer of the run was computed after the key
 */
export async function keyDuringRun(page, r) {
  await install(page);
  // First a key at rest (its sentence's run waited for): what the machine's load makes of a key alone
  const rest = await typeSpace(page);
  await page.waitForFunction((n) => Number(document.body.dataset.modelRuns) > n, rest.runs, { timeout: TIMEOUT });
  await idle(page);
  const atRest = await page.evaluate(
    (at) => window.__keyRun.events.filter((e) => Math.abs(e.start - at) <= 1).map((e) => e.duration),
    rest.at,
  );
  await clear(page);
  const [runs, layers] = [await count(page, 'modelRuns'), await count(page, 'modelLayersRun')];
  await page.click(`.ablate-button[data-layer="0"][data-head="${Math.floor(r / 2) % 12}"]`);
  await page.waitForFunction(
    ([n, l]) => Number(document.body.dataset.modelLayersRun ?? 0) >= l || Number(document.body.dataset.modelRuns) > n,
    [runs, layers + LAYERS_FIRST],
    { polling: 5, timeout: TIMEOUT },
  );
  const { at } = await typeSpace(page);
  await page.waitForFunction((n) => Number(document.body.dataset.modelRuns) > n, runs, { timeout: TIMEOUT });
  await idle(page); // the run the key started (the sentence runs 200 ms after its last key) ends too
  const {
    events,
    long,
    frames,
    layers: layerAt,
    runs: runAt,
    runMs,
  } = await page.evaluate(() => ({ ...window.__keyRun, runMs: Number(document.body.dataset.modelRunMs) }));
  const ofKey = events.filter((e) => Math.abs(e.start - at) <= 1);
  // the run's layers: from the key to its last layer before the run was drawn (its data-model-runs written)
  const drawn = Math.min(...runAt.filter((t) => t >= at));
  const last = Math.max(at, ...layerAt.filter((t) => t <= drawn));
  const underWay = layerAt.some((t) => t > at && t <= drawn); // a layer of the run was computed after the key
  const during = long.filter((t) => t.start + t.duration >= at && t.start <= last);
  const after = long.filter((t) => t.start > last && t.start <= drawn);
  const [frame] = frames
    .filter((f) => f.start + f.duration >= at && f.start <= last)
    .sort((a, b) => b.duration - a.duration);
  await clear(page);
  return {
    rest: atRest.length ? Math.max(...atRest) : 16,
    inp: ofKey.length ? Math.max(...ofKey.map((e) => e.duration)) : 16,
    frame: frame && `${Math.round(frame.duration)} ms: ${frame.script}`,
    longest: during.length ? Math.max(...during.map((t) => t.duration)) : 0,
    drawing: after.length ? Math.max(...after.map((t) => t.duration)) : 0,
    underWay,
    run: runMs,
  };
}

/** A space typed at the end of the sentence field (the caret put there first, not an interaction): its timeStamp. */
async function typeSpace(page) {
  const runs = await count(page, 'modelRuns');
  await page.evaluate(() => {
    const field = document.getElementById('model-text');
    field.focus();
    field.setSelectionRange(field.value.length, field.value.length);
    window.__keyAt = null;
    document.addEventListener('keydown', (e) => (window.__keyAt = e.timeStamp), { capture: true, once: true });
  });
  await page.keyboard.type(' ');
  return { at: await page.evaluate(() => window.__keyAt), runs };
}

/** Waits for the page to be drawn and its entries reported. */
async function idle(page) {
  await page.waitForTimeout(1500);
  await page.waitForFunction(() => (document.documentElement.dataset.pendingGrids ?? '0') === '0', null, {
    timeout: TIMEOUT,
  });
}

const clear = (page) => page.evaluate(() => Object.values(window.__keyRun).forEach((list) => (list.length = 0)));

/** The table of keyDuringRun's figures by page: { label: [figure] }. */
export function printKeys(byPage) {
  const ms = (v) => String(Math.round(v));
  console.log('A key typed into the sentence field while a run computes (3 layers in): ms, median (min–max).');
  console.log(
    '| the page | rounds | Event Timing of the key | a key at rest | longest task, key to the last layer | then, to the run drawn | model.run |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const [label, list] of Object.entries(byPage)) {
    const inp = list.map((f) => f.inp);
    const range = (v) => `${ms(median(v))} (${ms(Math.min(...v))}–${ms(Math.max(...v))})`;
    const shown = (v) => (Math.max(...v) <= 16 ? '≤16' : range(v).replaceAll(/\b16\b/gu, '≤16'));
    const under = list.filter((f) => f.underWay).length;
    console.log(
      `| ${label} | ${list.length} (${under} mid-run) | ${shown(inp)} | ${shown(list.map((f) => f.rest))} | ${range(list.map((f) => f.longest))} | ${range(list.map((f) => f.drawing))} | ${ms(median(list.map((f) => f.run)))} |`,
    );
  }
  for (const [label, list] of Object.entries(byPage)) {
    const frames = list.map((f) => f.frame ?? 'none over 50 ms').sort((a, b) => parseInt(b, 10) - parseInt(a, 10));
    console.log(`${label}: the longest animation frame while the layers ran, each round: ${frames.join('; ')}`);
  }
}
