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
    window.__keyRun = { events: [], long: [], layers: [], runs: [] };
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
  });
}

/**
 * One round on `page` (the 32 ids typed, settled): an ablation toggled in the first layer (head r / 2, off then on
 * again: the run goes through every layer), then, once LAYERS_FIRST layers of that run are computed, a space typed at the end of the sentence field.
 * @returns {{ inp: number, longest: number, drawing: number, underWay: boolean, run: number }}  inp 16: none
 *   reported (≤ 16 ms); longest: the longest task from the key to the run's last layer; drawing: from there to the
 *   run drawn (0: no task over 50 ms)
 */
export async function keyDuringRun(page, r) {
  await install(page);
  const [runs, layers] = [await count(page, 'modelRuns'), await count(page, 'modelLayersRun')];
  await page.click(`.ablate-button[data-layer="0"][data-head="${Math.floor(r / 2) % 12}"]`);
  await page.waitForFunction(
    ([n, l]) => Number(document.body.dataset.modelLayersRun ?? 0) >= l || Number(document.body.dataset.modelRuns) > n,
    [runs, layers + LAYERS_FIRST],
    { polling: 5, timeout: TIMEOUT },
  );
  // The caret at the end (not an interaction), then the key, its timeStamp kept
  await page.evaluate(() => {
    const field = document.getElementById('model-text');
    field.focus();
    field.setSelectionRange(field.value.length, field.value.length);
    window.__keyAt = null;
    document.addEventListener('keydown', (e) => (window.__keyAt = e.timeStamp), { capture: true, once: true });
  });
  await page.keyboard.type(' ');
  const underWay = (await count(page, 'modelRuns')) === runs; // read after the key: the run had not ended before it
  await page.waitForFunction((n) => Number(document.body.dataset.modelRuns) > n, runs, { timeout: TIMEOUT });
  // the run the key started (the sentence runs 200 ms after its last key) ends too; then the entries are in
  await page.waitForTimeout(1500);
  await page.waitForFunction(() => (document.documentElement.dataset.pendingGrids ?? '0') === '0', null, {
    timeout: TIMEOUT,
  });
  const {
    events,
    long,
    layers: layerAt,
    runs: runAt,
    at,
    runMs,
  } = await page.evaluate(() => ({
    ...window.__keyRun,
    at: window.__keyAt,
    runMs: Number(document.body.dataset.modelRunMs),
  }));
  const ofKey = events.filter((e) => e.start >= at - 1 && e.start <= at + 1);
  // the run's layers: from the key to its last layer before the run was drawn (its data-model-runs written)
  const drawn = Math.min(...runAt.filter((t) => t >= at));
  const last = Math.max(at, ...layerAt.filter((t) => t <= drawn));
  const during = long.filter((t) => t.start + t.duration >= at && t.start <= last);
  const after = long.filter((t) => t.start > last && t.start <= drawn);
  await page.evaluate(() => {
    window.__keyRun.events.length = 0;
    window.__keyRun.long.length = 0;
    window.__keyRun.layers.length = 0;
    window.__keyRun.runs.length = 0;
  });
  return {
    inp: ofKey.length ? Math.max(...ofKey.map((e) => e.duration)) : 16,
    longest: during.length ? Math.max(...during.map((t) => t.duration)) : 0,
    drawing: after.length ? Math.max(...after.map((t) => t.duration)) : 0,
    underWay,
    run: runMs,
  };
}

/** The table of keyDuringRun's figures by page: { label: [figure] }. */
export function printKeys(byPage) {
  const ms = (v) => String(Math.round(v));
  console.log('A key typed into the sentence field while a run computes (3 layers in): ms, median (min–max).');
  console.log(
    '| the page | rounds | Event Timing of the key | longest task, key to the last layer | then, to the run drawn | model.run |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const [label, list] of Object.entries(byPage)) {
    const inp = list.map((f) => f.inp);
    const range = (v) => `${ms(median(v))} (${ms(Math.min(...v))}–${ms(Math.max(...v))})`;
    const shown = (v) => (Math.max(...v) <= 16 ? '≤16' : range(v).replaceAll(/\b16\b/gu, '≤16'));
    const under = list.filter((f) => f.underWay).length;
    console.log(
      `| ${label} | ${list.length} (${under} mid-run) | ${shown(inp)} | ${range(list.map((f) => f.longest))} | ${range(list.map((f) => f.drawing))} | ${ms(median(list.map((f) => f.run)))} |`,
    );
  }
}
