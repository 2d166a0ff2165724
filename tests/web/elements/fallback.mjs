// Content placed inside an element is its fallback: it shows where JavaScript is off or the module cannot load (the
// browser shows an unknown element's content), while the figure waits to scroll into view, and with the message
// when the WebAssembly cannot load; the figure replaces it once ready.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ARTIFACTS, CSP, FIXTURES, ROOT, assertClean, env, open, ready, withoutWasm } from './env.mjs';

/** Whether each node is laid out (has a box) and, for an image, loaded. */
const shown = (page, ids) =>
  page.evaluate(
    (list) =>
      Object.fromEntries(
        list.map((id) => {
          const node = document.getElementById(id);
          const laidOut = node.getClientRects().length > 0 && node.getBoundingClientRect().height > 0;
          return [id, laidOut && (node.localName !== 'img' || (node.complete && node.naturalWidth > 0))];
        }),
      ),
    ids,
  );

const FALLBACKS = ['near-img', 'numbers-text', 'far-img'];

for (const [name, options] of [
  ['JavaScript is off', { javaScriptEnabled: false }],
  ['the module cannot load', { route: /\/web\/src\/elements\/index\.js$/ }],
]) {
  test(`fallback content shows when ${name}`, async () => {
    const context = await env.browser.newContext({ javaScriptEnabled: options.javaScriptEnabled ?? true });
    try {
      const page = await context.newPage();
      if (options.route) await page.route(options.route, (route) => route.fulfill({ status: 404, body: 'gone' }));
      await page.goto(`${env.server.url}${FIXTURES}fallback.html`, { waitUntil: 'load' });
      await page.waitForTimeout(300); // no timers in the page without JavaScript
      assert.equal(await page.evaluate(() => customElements.get('attention-heatmap') ?? null), null);
      await page.evaluate(() => document.getElementById('far').scrollIntoView());
      assert.deepEqual(await shown(page, FALLBACKS), { 'near-img': true, 'numbers-text': true, 'far-img': true });
      await page.screenshot({ path: `${ARTIFACTS}/elements-fallback-${options.route ? 'no-module' : 'no-js'}.png` });
    } finally {
      await context.close();
    }
  });
}

test('fallback content shows until the figure is ready, and the figure replaces it', async () => {
  // The .wasm arrives late, as on a slow network: the elements in view wait for it with their fallback shown.
  let release;
  const arrived = new Promise((resolve) => (release = resolve));
  const session = await open('fallback.html', {
    route: (page) =>
      page.route(/\.wasm$/, async (route) => {
        await arrived;
        await route.continue();
      }),
  });
  const { page } = session;
  try {
    await page.waitForFunction(() => document.getElementById('near').status === 'loading');
    assert.deepEqual(await shown(page, FALLBACKS), { 'near-img': true, 'numbers-text': true, 'far-img': true });
    const placeholders = () =>
      page.evaluate(
        (ids) =>
          ids.map((id) =>
            Array.from(
              document.getElementById(id).shadowRoot.querySelectorAll('.pending > span'),
              (s) => s.getClientRects().length,
            ).join(),
          ),
        ['near', 'numbers', 'far'],
      );
    assert.deepEqual(await placeholders(), ['0', '0', '0'], 'the fallback, not the "Loading…" text');
    await page.locator('#near').screenshot({ path: `${ARTIFACTS}/elements-fallback-loading.png` });
    release();
    await ready(page, 'near');
    await ready(page, 'numbers');
    // Near the top: computed, the fallback gone. Far below the fold: still waiting, its fallback in its place.
    assert.equal(await page.evaluate(() => document.getElementById('far').status), 'pending');
    assert.deepEqual(await shown(page, FALLBACKS), { 'near-img': false, 'numbers-text': false, 'far-img': true });
    assert.deepEqual(
      await page.evaluate(() =>
        document
          .getElementById('far')
          .shadowRoot.querySelector('slot')
          .assignedElements()
          .map((n) => n.id),
      ),
      ['far-img'],
    );
    await page.evaluate(() => document.getElementById('far').scrollIntoView());
    await ready(page, 'far');
    assert.deepEqual(await shown(page, FALLBACKS), { 'near-img': false, 'numbers-text': false, 'far-img': false });
    assert.ok(
      await page.evaluate(() => document.getElementById('far').shadowRoot.querySelector('[role="grid"]').clientHeight),
    );
    // Without fallback content, the element says what it waits for.
    assert.equal(
      await page.evaluate(() => {
        const e = document.createElement('attention-heatmap');
        document.body.append(e);
        return e.shadowRoot.querySelector('.pending > span').getClientRects().length;
      }),
      1,
    );
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('fallback content stays, under the message, when the WebAssembly cannot load', async () => {
  const session = await open('fallback.html', {
    route: withoutWasm,
  });
  const { page } = session;
  try {
    await page.waitForFunction(() => document.getElementById('near').status === 'error');
    const near = await page.evaluate(() => {
      const root = document.getElementById('near').shadowRoot;
      return {
        message: root.querySelector('[part="message"]').textContent,
        loading: Array.from(root.querySelectorAll('.pending span'), (s) => s.getClientRects().length).join(),
      };
    });
    assert.match(near.message, /could not be loaded/);
    assert.equal(near.loading, '0');
    assert.equal((await shown(page, ['near-img']))['near-img'], true);
    await page.locator('#near').screenshot({ path: `${ARTIFACTS}/elements-fallback-error.png` });
    session.problems.console = session.problems.console.filter((t) => !/status of 404/.test(t));
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test("the README's snippet: its <img> shows without the module and gives way to the live figure", async () => {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('## In a post'));
  const snippet = /```html\n([\s\S]*?)```/.exec(section)[1];
  const tag = /<(attention-[a-z]+)[^>]*>\s*<img [^>]*alt="[^"]+"/.exec(snippet)?.[1];
  assert.ok(tag, 'the snippet shows a fallback image');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>README snippet</title></head>
    <body>${snippet.replace(/src="https:\/\/cdn[^"]+"/, 'src="/web/src/elements/index.js"')}</body></html>`;
  const image = readFileSync(`${ROOT}docs/elements-heatmap.png`);
  for (const moduleLoads of [false, true]) {
    const context = await env.browser.newContext();
    try {
      const page = await context.newPage();
      await page.route('**/snippet.html', (route) =>
        route.fulfill({ contentType: 'text/html', body: html, headers: { 'Content-Security-Policy': CSP } }),
      );
      await page.route(/\/[\w-]+\.png$/, (route) => route.fulfill({ contentType: 'image/png', body: image }));
      if (!moduleLoads) await page.route('**/elements/index.js', (route) => route.fulfill({ status: 404 }));
      await page.goto(`${env.server.url}snippet.html`);
      const img = page.locator(`${tag} img`);
      if (moduleLoads) {
        await page.waitForFunction((name) => document.querySelector(name).status === 'ready', tag);
        assert.equal(await img.evaluate((node) => node.getClientRects().length), 0);
      } else {
        await img.evaluate((node) => node.decode());
        assert.ok((await img.boundingBox()).height > 100);
      }
    } finally {
      await context.close();
    }
  }
});
