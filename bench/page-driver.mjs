// How the page benches drive the demo page in Chromium: the sizes, the interactions, the Event Timing observer,
// waiting as a reader would, and the first numbers. Used by page-latency.mjs and first-interaction.mjs.
/* global document, window, requestAnimationFrame, requestIdleCallback -- page.evaluate() callbacks run in the page */

const words = (count) => Array.from({ length: count }, (_, i) => `w${i}`).join('+');

/** The sizes measured: the default example, the old caps (n = 64, 8 heads) and GPT-2's layer (n = 64). */
export const SIZES = {
  default: { label: 'default (n = 5, d_model = 8)', hash: '' },
  old: { label: 'n = 64, d_model = 64, 8 heads', hash: `#s=${words(64)}&n=64&dm=64&dk=8&dv=8&h=8` },
  gpt2: { label: 'GPT-2: n = 64, d_model = 768, 12 heads', hash: `#s=${words(64)}&n=64&dm=768&dk=64&dv=64&h=12` },
};

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

/** Installs the Event Timing observer: every entry with an interactionId, kept in window.__events. */
export async function observe(page) {
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
export async function measure(page, action) {
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

/**
 * As measure(), for an interaction that draws without a render of the layer (a zoomed block): waits until `shown`
 * holds in the page. Its result figure is NaN (the page reports none).
 */
async function measureView(page, action, shown) {
  await page.evaluate(() => {
    window.__events.length = 0;
  });
  await action();
  await page.waitForFunction(shown, null, { timeout: 30000 });
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50)))),
  );
  const events = await page.evaluate(() => window.__events);
  return { paint: events.length ? Math.max(...events.map((e) => e.duration)) : 16, result: NaN };
}

/** The editor opened on X's first cell with `text` typed (not yet committed): its locator. */
export async function editorOnX(page, text) {
  // A large X is a heatmap: a click on its first cell opens the numbers of its first block.
  const heatmap = page.locator('[data-matrix="x"] .cm-canvas');
  if ((await heatmap.count()) && !(await page.locator('[data-matrix="x"] .cm-zoom .c').count())) {
    await heatmap.click({ position: { x: 1, y: 1 } });
  }
  await page.locator('[data-matrix="x"] .c[data-i="0"][data-j="0"]').dblclick();
  const editor = page.locator('[data-matrix="x"] .cell-editor');
  await editor.fill(text);
  return editor;
}

/** The interactions measured, each a function of the page and the repetition number. */
export const INTERACTIONS = {
  'edit a number': async (page, r) => {
    const editor = await editorOnX(page, String(0.5 + r / 10));
    return measure(page, () => editor.press('Enter'));
  },
  // A click on X's heatmap opens the numbers of its first block (n/a where X is small enough to show its numbers).
  'open a block': async (page) => {
    const heatmap = page.locator('[data-matrix="x"] .cm-canvas');
    if (!(await heatmap.count())) return null;
    const zoomed = () => document.querySelector('[data-matrix="x"] .cm-zoom .c') !== null;
    if (await page.evaluate(zoomed)) await page.click('[data-matrix="x"] .cm-close');
    return measureView(page, () => heatmap.click({ position: { x: 1, y: 1 } }), zoomed);
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
  // One step of the slider with the keyboard: on a layer as large as GPT-2's, a preview of the weights (preview.js).
  'temperature step': async (page) => {
    await page.focus('#temperature');
    return measure(page, () => page.keyboard.press('ArrowRight'));
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
export async function dragTemperature(page) {
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
export async function pause(page, ms) {
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
export async function openSettings(page) {
  const toggle = page.locator('#settings-toggle');
  if ((await toggle.isVisible()) && (await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
}

/** Opens the page and returns the time from navigation to the first numbers on screen (ms). */
export async function firstNumbers(context, url) {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => Number(document.body.dataset.renders ?? 0) >= 1, null, { timeout: 30000 });
  // Written once the frame that shows the first render is painted (latency.js).
  await page.waitForFunction(() => document.body.dataset.firstPaintMs !== undefined, null, { timeout: 30000 });
  const ms = await page.evaluate(() => Number(document.body.dataset.firstPaintMs ?? NaN));
  return { page, ms };
}
