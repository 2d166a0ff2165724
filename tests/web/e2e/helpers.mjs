// Shared pieces of the page tests: the browser, a page with its problems recorded, and readers for the
// matrices the page shows.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../chromium.mjs';
import { serveStatic } from '../../serve-static.mjs';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DIST = `${ROOT}web/dist`;
export const ARTIFACTS = `${ROOT}tests/artifacts`;

/** The Content-Security-Policy of the built page: its <meta> (the product's one copy), sent as a header too. */
export function pageCsp(html) {
  const csp = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html)?.[1];
  if (!csp) throw new Error('the built page has no Content-Security-Policy <meta>');
  return csp;
}

/** Starts the static server (sending the page's CSP) and Chromium. */
export async function startBrowser() {
  if (!existsSync(`${DIST}/index.html`)) {
    throw new Error('web/dist/index.html is missing: run `bash scripts/build.sh` first');
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  const csp = pageCsp(readFileSync(`${DIST}/index.html`, 'utf8'));
  const server = await serveStatic(DIST, { headers: { 'Content-Security-Policy': csp } });
  const browser = await launchChromium();
  return {
    server,
    browser,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * Opens the page in a fresh context and records everything that should not happen: console errors and
 * warnings, uncaught exceptions, CSP violations, dialogs and requests to other origins.
 */
export async function openPage(
  env,
  {
    hash = '',
    viewport = { width: 1280, height: 800 },
    hasTouch = false,
    route,
    waitForRender = true,
    foldedSettings = false,
  } = {},
) {
  const context = await env.browser.newContext({ viewport, hasTouch, acceptDownloads: true });
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url.slice(0, -1) });
    const page = await context.newPage();
    const problems = { console: [], pageErrors: [], dialogs: [], foreignRequests: [], requests: [] };
    const origin = new URL(env.server.url).origin;
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        problems.console.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.pageErrors.push(error.message));
    page.on('dialog', async (dialog) => {
      problems.dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    page.on('request', (request) => {
      const url = request.url();
      problems.requests.push(url);
      if (new URL(url).origin !== origin) problems.foreignRequests.push(url);
    });
    await page.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (event) => {
        window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI}`);
      });
    });
    if (route) await route(page);
    await page.goto(`${env.server.url}${hash}`);
    if (waitForRender) await waitForRenders(page, 1);
    // Narrow screens fold the settings; tests open them unless they test the folding itself.
    if (waitForRender && !foldedSettings && (await page.isVisible('#settings-toggle'))) {
      // Clicked from the script: no pointer moves, no focus changes, as if the page had opened with them shown.
      await page.evaluate(() => document.getElementById('settings-toggle').click());
    }
    return { page, context, problems };
  } catch (error) {
    await context.close();
    throw error;
  }
}

/**
 * Clicks an example's button. On a narrow screen, an example with a lesson folds the settings as it takes the reader
 * to its step: they are opened again first, as a reader would, without moving the focus.
 */
export async function chooseExample(page, example) {
  await openSettings(page);
  await afterChange(page, () => page.click(`button[data-example="${example}"]`));
}

/** Opens the settings when a narrow screen folded them. */
export async function openSettings(page) {
  if ((await page.getAttribute('#settings-toggle', 'aria-expanded')) === 'false')
    await page.evaluate(() => document.getElementById('settings-toggle').click());
}

/**
 * Opens the page (options as for openPage), runs `use` on the session, then checks the page stayed clean
 * (assertClean, with `allowConsole`). The context is closed whatever happens.
 */
export async function withPage(env, options, use) {
  const session = await openPage(env, options);
  try {
    await use(session);
    await assertClean(session, options);
  } finally {
    await session.context.close();
  }
}

async function waitForRenders(page, count) {
  await page.waitForFunction((n) => Number(document.body.dataset.renders ?? 0) >= n, count, { timeout: 20000 });
  await settle(page);
}

/** Waits until every matrix has drawn its latest values. */
export async function settle(page) {
  await page.waitForFunction(() => (document.documentElement.dataset.pendingGrids ?? '0') === '0', null, {
    timeout: 20000,
  });
}

/** Scrolls a lesson drawn only on screen (step-order, step-kv) into view and waits until it shows the last render. */
export async function showLesson(page, id) {
  await page.evaluate((sectionId) => document.getElementById(sectionId).scrollIntoView(), id);
  await page.waitForFunction(
    (sectionId) => document.getElementById(sectionId).dataset.drawn === document.body.dataset.renders,
    id,
    { timeout: 20000 },
  );
  await settle(page);
}

/**
 * Scrolls the element into view and waits until its box stays put for three frames: steps far from the screen are
 * laid out only when they scroll near it (content-visibility), so scrolling to an element can move it again a frame
 * or two later.
 */
export async function scrollSteady(page, selector) {
  await page.locator(selector).scrollIntoViewIfNeeded();
  await page.waitForFunction(
    (sel) =>
      new Promise((resolve) => {
        const box = () => JSON.stringify(document.querySelector(sel).getBoundingClientRect());
        const first = box();
        const frames = (n) => (n ? requestAnimationFrame(() => frames(n - 1)) : resolve(box() === first));
        frames(3);
      }),
    selector,
    { timeout: 20000 },
  );
}

/** Hovers the element once its box stays put (scrollSteady), not under a pointer placed before the page moved it. */
export async function hoverSteady(page, selector) {
  await scrollSteady(page, selector);
  await page.hover(selector);
}

/** Runs `action` and waits for the page to recompute and redraw. */
export async function afterChange(page, action) {
  const before = await page.evaluate(() => Number(document.body.dataset.renders));
  await action();
  await page.waitForFunction((n) => Number(document.body.dataset.renders) > n, before, { timeout: 20000 });
  await settle(page);
}

/** Fails with a list when the page logged errors, threw, broke its CSP, opened a dialog or left its origin. */
export async function assertClean({ page, problems }, { allowConsole = [] } = {}) {
  const csp = await page.evaluate(() => window.__cspViolations);
  const consoleProblems = problems.console.filter((text) => !allowConsole.some((pattern) => pattern.test(text)));
  const all = [
    ...consoleProblems.map((t) => `console ${t}`),
    ...problems.pageErrors.map((t) => `exception ${t}`),
    ...csp.map((t) => `CSP violation ${t}`),
    ...problems.dialogs.map((t) => `dialog ${t}`),
    ...problems.foreignRequests.map((t) => `request to another origin ${t}`),
  ];
  if (all.length) throw new Error(`the page misbehaved:\n${all.join('\n')}`);
}

/**
 * The matrix named `name` as shown: labels and cell texts of the drawn window (the whole matrix when it is
 * small enough to fit its box).
 * @returns {Promise<{ title: string, shape: string, rowLabels: string[], colLabels: string[], cells: string[][] }>}
 */
export async function readMatrix(page, name) {
  return page.evaluate((matrixName) => {
    const figure = document.querySelector(`[data-matrix="${matrixName}"]`);
    if (!figure) throw new Error(`no matrix ${matrixName}`);
    const rows = [...figure.querySelectorAll('.gwin .gr')];
    return {
      title: figure.querySelector('.matrix-title').textContent,
      shape: figure.querySelector('.matrix-shape').textContent,
      rowLabels: rows.map((row) => row.querySelector('.sr-only').textContent),
      colLabels: [...figure.querySelectorAll('.gwin-cols .ch')].map((node) => node.title || node.textContent),
      cells: rows.map((row) => [...row.querySelectorAll('.c')].map((cell) => cell.firstChild.nodeValue)),
    };
  }, name);
}

/** The cell texts of a matrix as numbers ("-∞" as -Infinity). */
export async function readNumbers(page, name) {
  const { cells } = await readMatrix(page, name);
  return cells.map((row) => row.map((text) => (text === '-∞' ? -Infinity : Number(text))));
}

/** Types into a cell of an editable matrix with the keyboard, as a person would. */
export async function typeInCell(page, name, i, j, text) {
  const cell = page.locator(`[data-matrix="${name}"] .c[data-i="${i}"][data-j="${j}"]`);
  await cell.dblclick();
  const editor = page.locator(`[data-matrix="${name}"] .cell-editor`);
  await editor.fill(text);
  await editor.press('Enter');
}

/** Asserts that every shown number is the expected value at `precision` decimals (within half a unit). */
export function assertShown(shown, expected, precision, what) {
  const tolerance = 0.5 * 10 ** -precision + 1e-6;
  if (shown.length !== expected.length)
    throw new Error(`${what}: ${shown.length} rows shown, ${expected.length} expected`);
  shown.forEach((row, i) => {
    if (row.length !== expected[i].length)
      throw new Error(`${what}: row ${i} has ${row.length} cells, ${expected[i].length} expected`);
    row.forEach((value, j) => {
      const want = expected[i][j];
      const same = value === want || Math.abs(value - want) <= tolerance;
      if (!same) throw new Error(`${what}[${i}][${j}] shows ${value} but the library gives ${want}`);
    });
  });
}

/**
 * The whole W_q, W_k and W_v, read head by head (the page shows one head's block at a time), and X and W_o. With
 * grouped-query attention (W_k titled "kv head g"), W_k and W_v are the G blocks the layer uses, and numKvHeads G.
 */
export async function readInputs(page) {
  const heads = Number(await page.inputValue('#size-numHeads'));
  const blocks = { wq: [], wk: [], wv: [] };
  for (let h = 0; h < heads; h++) {
    if (heads > 1) await afterChange(page, () => page.selectOption('#head', String(h)));
    const kv = /kv head (\d+)/u.exec((await readMatrix(page, 'wk')).title);
    const g = kv ? Number(kv[1]) : h; // kv heads count from 0
    blocks.wq.push(await readNumbers(page, 'wq'));
    for (const name of ['wk', 'wv']) blocks[name][g] ??= await readNumbers(page, name);
  }
  const side = (parts) => parts[0].map((_, i) => parts.flatMap((part) => part[i]));
  return {
    x: await readNumbers(page, 'x'),
    wq: side(blocks.wq),
    wk: side(blocks.wk),
    wv: side(blocks.wv),
    wo: await readNumbers(page, 'wo'),
    numHeads: heads,
    numKvHeads: blocks.wk.length,
  };
}
