// What the elements' tests share: the repository served as raw files (no bundler: the elements must need nothing
// but relative imports) under a strict CSP, Chromium, and a page opened with its problems recorded.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../../chromium.mjs';
import { serveStatic } from '../../serve-static.mjs';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const ARTIFACTS = `${ROOT}tests/artifacts`;
/** The CSP of issue 11 (no CDN here: everything is same-origin). No 'unsafe-inline', no 'unsafe-eval'. */
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
export const FIXTURES = 'tests/web/elements/fixtures/';

export let env;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  const server = await serveStatic(ROOT, { headers: { 'Content-Security-Policy': CSP } });
  env = { server, browser: await launchChromium() };
});

after(async () => {
  await env?.browser.close();
  await env?.server.close();
});

/**
 * The repository served twice: from a "CDN" origin with CORS, and as the site under the CSP, which names the
 * CDN for scripts and styles only (connect-src stays 'self'). `cdnPage` is fixtures/cdn.html importing the elements
 * from the CDN; `close()` stops both servers.
 */
export async function serveFromCdn() {
  const cdn = await serveStatic(ROOT, { headers: { 'Access-Control-Allow-Origin': '*' } });
  const origin = cdn.url.slice(0, -1);
  const csp = `default-src 'self'; script-src 'self' ${origin} 'wasm-unsafe-eval'; style-src 'self' ${origin}`;
  const site = await serveStatic(ROOT, { headers: { 'Content-Security-Policy': csp } });
  const cdnPage = `${site.url}${FIXTURES}cdn.html?cdn=${encodeURIComponent(origin)}`;
  return { cdn, site, cdnPage, close: () => Promise.all([site.close(), cdn.close()]) };
}

/**
 * Opens a fixture page; `problems` records console errors and warnings, exceptions and CSP violations.
 * @returns {Promise<{ page: import('playwright-core').Page, context: object, problems: object }>}
 */
export async function open(file = 'blank.html', { width = 1280, height = 800, colorScheme = 'light', route } = {}) {
  const context = await env.browser.newContext({ viewport: { width, height }, colorScheme });
  const page = await context.newPage();
  const problems = { console: [], errors: [], warnings: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') problems.console.push(m.text());
    if (m.type() === 'warning') problems.warnings.push(m.text());
  });
  page.on('pageerror', (e) => problems.errors.push(e.message));
  await page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  if (route) await route(page);
  await page.goto(`${env.server.url}${FIXTURES}${file}`);
  await page.waitForFunction(() => customElements.get('attention-heatmap') !== undefined);
  return { page, context, problems };
}

/** Waits until the element with this id has computed (status 'ready' or 'error'). */
export async function ready(page, id) {
  await page.waitForFunction(
    (elementId) => ['ready', 'error'].includes(document.getElementById(elementId)?.status),
    id,
    { timeout: 20000 },
  );
}

/** Adds an element built from a tag, attributes and (optional) JSON numbers, and waits until it computed. */
export async function add(page, id, tag, attributes = {}, json) {
  await page.evaluate(
    ({ id: elementId, tag: name, attributes: attrs, json: text }) => {
      const element = document.createElement(name);
      element.id = elementId;
      for (const [key, value] of Object.entries(attrs)) element.setAttribute(key, value);
      if (text !== undefined) {
        const script = document.createElement('script');
        script.type = 'application/json';
        script.textContent = text;
        element.append(script);
      }
      document.getElementById('main').prepend(element);
    },
    { id, tag, attributes, json },
  );
  await ready(page, id);
}

/** The text of the nodes matching `selector` inside an element's shadow root. */
export function shadowTexts(page, id, selector) {
  return page.evaluate(
    ({ elementId, css }) =>
      Array.from(document.getElementById(elementId).shadowRoot.querySelectorAll(css), (n) => n.textContent),
    { elementId: id, css: selector },
  );
}

/** The numbers a matrix of an explorer shows, row by row. */
export function shownMatrix(page, id, matrix) {
  return page.evaluate(
    ({ elementId, name }) =>
      Array.from(
        document.getElementById(elementId).shadowRoot.querySelectorAll(`[data-matrix="${name}"] tbody tr`),
        (tr) => Array.from(tr.querySelectorAll('td'), (td) => Number(td.textContent.replace('−', '-'))),
      ),
    { elementId: id, name: matrix },
  );
}

/** Fails unless every number shown is within `tolerance` of the float64 reference `expected`. */
export function assertClose(shown, expected, tolerance, what) {
  assert.equal(shown.length, expected.length, `${what}: rows`);
  shown.forEach((row, i) =>
    row.forEach((value, j) =>
      assert.ok(
        Math.abs(value - expected[i][j]) <= tolerance,
        `${what}[${i}][${j}]: shown ${value}, float64 ${expected[i][j]}`,
      ),
    ),
  );
}

/** Fails when the page threw, logged an error or broke its CSP. */
export async function assertClean({ page, problems }) {
  const csp = await page.evaluate(() => window.__csp);
  const all = [...problems.errors.map((e) => `exception ${e}`), ...problems.console, ...csp.map((c) => `CSP ${c}`)];
  if (all.length) throw new Error(`the page misbehaved:\n${all.join('\n')}`);
}

/** The text of an element's message, when shown ('' when hidden). */
export const message = async (page, id) => (await shadowTexts(page, id, '[part="message"]:not([hidden])')).join(' ');

/** A route for open(): neither the .wasm files, nor their script modules, nor the inline entry can be had. */
export const withoutWasm = (page) =>
  page.route(/\.wasm$|\.wasm\.js$|\/inline\.js$/, (route) => route.fulfill({ status: 404, body: 'gone' }));
