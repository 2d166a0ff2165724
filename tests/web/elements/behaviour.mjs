// Attributes, properties, keyboard, editing, sharing one instance, lazy compute, strict CSP, 320 px, dark mode,
// and the screenshots of a post-like page.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, add, assertClean, env, open, ready, serveFromCdn, shadowTexts, shownMatrix } from './env.mjs';

const wasmRequests = () => env.server.requests.filter((path) => path.endsWith('.wasm'));

test('two elements share one attention-wasm instance; the one below the fold computes only when scrolled to', async () => {
  const before = wasmRequests().length;
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'a', 'attention-heatmap', { sentence: 'one two' });
    await add(page, 'b', 'attention-explorer', { sentence: 'three four five', steps: 'softmax' });
    assert.equal(
      await page.evaluate(() => document.getElementById('a').attention === document.getElementById('b').attention),
      true,
    );
    assert.equal(wasmRequests().length - before, 1, 'the .wasm is fetched once for the page');
    assert.equal(await page.evaluate(() => document.getElementById('far').status), 'pending');
    assert.equal(await page.evaluate(() => document.getElementById('far').result), null);
    await page.evaluate(() => document.getElementById('far').scrollIntoView());
    await ready(page, 'far');
    assert.equal(
      await page.evaluate(() => document.getElementById('far').attention === document.getElementById('a').attention),
      true,
    );
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('properties read the values in use, writing them recomputes and fires attention-change', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'p', 'attention-heatmap', { sentence: 'a b c d', heads: '2', 'd-model': '8', head: '1' });
    const first = await page.evaluate(() => {
      const e = document.getElementById('p');
      const pressed = Array.from(e.shadowRoot.querySelectorAll('[part="head-picker"] button'), (b) =>
        b.getAttribute('aria-pressed'),
      );
      return { heads: e.heads, head: e.head, dModel: e.dModel, dK: e.dK, seed: e.seed, causal: e.causal, pressed };
    });
    assert.deepEqual(first, {
      heads: 2,
      head: 1,
      dModel: 8,
      dK: 4,
      seed: 42,
      causal: false,
      pressed: ['false', 'true'],
    });
    const detail = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const e = document.getElementById('p');
          e.addEventListener(
            'attention-change',
            (event) => resolve({ w: event.detail.weights, attr: e.getAttribute('causal') }),
            { once: true },
          );
          e.causal = true;
          e.seed = 3;
        }),
    );
    assert.equal(detail.attr, 'true');
    assert.equal(detail.w[0][0][1], 0);
    assert.equal(detail.w[1][2][3], 0);
    assert.equal(await page.evaluate(() => document.getElementById('p').seed), 3);
    // The head picker by keyboard: Tab to head 0, Enter.
    await page.evaluate(() =>
      document.getElementById('p').shadowRoot.querySelector('[part="head-picker"] button').focus(),
    );
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('p').head === 0);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('the heatmap reads each cell out by keyboard and by hover, with token labels', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'k', 'attention-heatmap', { sentence: 'time flies like an arrow', precision: '3' });
    const grid = page.locator('#k').locator('[role="grid"]');
    await grid.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    const readout = () => shadowTexts(page, 'k', '[part="readout"]').then((t) => t[0]);
    const weights = await page.evaluate(() => document.getElementById('k').result.weights.toArray()[0]);
    // The readout starts with the pair and the weight (the page's tooltip lines, which then explain the softmax).
    assert.ok((await readout()).startsWith(`query “flies” → key “flies”: weight ${weights[1][1].toFixed(3)}`));
    assert.equal(
      await page.evaluate(() => {
        const root = document.getElementById('k').shadowRoot;
        const grid = root.querySelector('[role="grid"]');
        return root.getElementById(grid.getAttribute('aria-activedescendant')).getAttribute('aria-label');
      }),
      await readout(),
    );
    await page.keyboard.press('End');
    assert.match(await readout(), /^query “flies” → key “arrow”/);
    await grid.locator('[data-i="4"][data-j="0"]').hover();
    assert.ok((await readout()).startsWith(`query “arrow” → key “time”: weight ${weights[4][0].toFixed(3)}`));
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('numbers are editable by keyboard unless readonly; a refused number says why', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'e', 'attention-explorer', { sentence: 'a b c', steps: 'x softmax', 'd-model': '4' });
    const before = await shownMatrix(page, 'e', 'weights');
    const x = page.locator('#e').locator('[data-matrix="x"] [role="grid"]');
    await x.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type('5');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.getElementById('e').currentState.x?.[0][0] === 5);
    assert.notDeepEqual(await shownMatrix(page, 'e', 'weights'), before);
    await x.focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type('abc');
    await page.keyboard.press('Enter');
    const error = await shadowTexts(page, 'e', '[data-matrix="x"] .error');
    assert.match(error[0], /“abc” is not a number/);
    await add(page, 'r', 'attention-explorer', { sentence: 'a b c', steps: 'x qkv', readonly: '' });
    assert.equal(
      await page.evaluate(() => document.getElementById('r').shadowRoot.querySelectorAll('td.edit').length),
      0,
    );
    await page.locator('#r').locator('[data-matrix="x"] [role="grid"]').focus();
    await page.keyboard.press('Enter');
    assert.equal(
      await page.evaluate(() => document.getElementById('r').shadowRoot.querySelectorAll('input').length),
      0,
    );
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('every step of the page and its lessons can be chosen, and each draws', async () => {
  const session = await open();
  const { page } = session;
  try {
    const all =
      'x positions qkv scores scale mask softmax output heads wo order kv designed-heads gqa cross-attention why-score';
    await add(page, 's', 'attention-explorer', { example: 'kv', steps: all, positions: '' });
    const shown = await page.evaluate(() =>
      Array.from(document.getElementById('s').shadowRoot.querySelectorAll('section'), (s) => [
        s.dataset.step,
        s.querySelector('h3').textContent,
      ]),
    );
    assert.deepEqual(
      shown.map(([step]) => step),
      all.split(' '),
    );
    for (const [step, title] of shown) assert.doesNotMatch(title, /could not be shown/, step);
    // The lessons' steps load their model on demand: wait until the word-order and KV-cache steps have drawn.
    await page.waitForFunction(() => {
      const root = document.getElementById('s').shadowRoot;
      return (
        root.querySelector('[data-matrix="orderWithout"] td[data-i]') &&
        /full causal/.test(root.querySelector('[data-step="kv"] p')?.textContent)
      );
    });
    // Word order without positions: float32 noise (about 1e-7) shows as 0.000 and must not be coloured as large.
    const noise = await page.evaluate(() =>
      Array.from(
        document.getElementById('s').shadowRoot.querySelectorAll('[data-matrix="orderWithout"] td[data-i]'),
        (td) => td.className,
      ),
    );
    assert.ok(noise.length > 0 && noise.every((c) => c.split(' ').includes('s128')), noise.join(' '));
    const kv = await shadowTexts(page, 's', '[data-step="kv"] p');
    assert.match(kv.join(' '), /last row of full causal attention/);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
  // Every step at 390 px, for a look: nothing wider than the phone.
  const phone = await open('lessons.html', { width: 390, height: 900 });
  try {
    await ready(phone.page, 'all');
    assert.ok((await phone.page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
    await phone.page.screenshot({ path: `${ARTIFACTS}/elements-all-steps-390.png`, fullPage: true });
    await assertClean(phone);
  } finally {
    await phone.context.close();
  }
});

test('strict CSP, 320 px, dark mode: styled by the adopted sheet, no overflow, dark colours; screenshots', async () => {
  for (const [width, colorScheme] of [
    [1280, 'light'],
    [1280, 'dark'],
    [390, 'dark'],
    [320, 'light'],
  ]) {
    const session = await open('post.html', { width, height: 900, colorScheme });
    const { page } = session;
    try {
      await ready(page, 'heatmap');
      await page.evaluate(() => document.getElementById('explorer').scrollIntoView());
      await ready(page, 'explorer');
      const look = await page.evaluate(() => {
        const box = document.getElementById('heatmap').shadowRoot.querySelector('[part="box"]');
        const style = getComputedStyle(box);
        return {
          bg: style.backgroundColor,
          radius: style.borderTopLeftRadius,
          overflow: document.documentElement.scrollWidth,
        };
      });
      assert.equal(look.radius, '8px', 'the adopted stylesheet applies under the CSP');
      assert.equal(look.bg, colorScheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
      assert.ok(look.overflow <= width, `the page is ${look.overflow} px wide at ${width} px`);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: `${ARTIFACTS}/elements-post-${width}-${colorScheme}.png`, fullPage: true });
      if (width === 1280 && colorScheme === 'light') {
        // The README's pictures: each element in the post, with the paragraph before it.
        for (const id of ['heatmap', 'explorer']) {
          const clip = await page.evaluate((elementId) => {
            const box = document.getElementById(elementId).getBoundingClientRect();
            const before = document.getElementById(elementId).previousElementSibling.getBoundingClientRect();
            return {
              x: box.x - 24,
              y: before.y + window.scrollY - 16,
              width: box.width + 48,
              height: box.bottom - before.y + 32,
            };
          }, id);
          await page.screenshot({ path: `${ARTIFACTS}/elements-readme-${id}.png`, clip, fullPage: true });
        }
      }
      await assertClean(session);
    } finally {
      await session.context.close();
    }
  }
});

test('from another origin (as from a CDN) under a CSP whose connect-src is self only: the SIMD build as a script module, no .wasm fetch', async () => {
  const { cdn, site, cdnPage, close } = await serveFromCdn();
  const context = await env.browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.addInitScript(() => {
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    await page.goto(cdnPage);
    await ready(page, 'c');
    assert.equal(await page.evaluate(() => document.getElementById('c').status), 'ready');
    assert.deepEqual(await page.evaluate(() => window.__csp), []);
    assert.deepEqual(errors, []);
    assert.ok(
      cdn.requests.includes('/src/js/wasm/attention-simd.wasm.js'),
      "the SIMD build's module came from the CDN",
    );
    assert.ok(
      !cdn.requests.some((p) => /scalar\.wasm|\/inline\.js$/.test(p)),
      'only the build it runs: no scalar, no inline.js',
    );
    assert.ok(!cdn.requests.some((p) => p.endsWith('.wasm')), 'no .wasm was fetched');
    assert.ok(!site.requests.some((p) => p.includes('/src/')), "nothing of the package came from the page's origin");
  } finally {
    await context.close();
    await close();
  }
});

test('themable from the page: CSS custom properties and ::part', async () => {
  const session = await open();
  const { page } = session;
  try {
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          const link = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: './theme.css' });
          link.onload = resolve;
          document.head.append(link);
        }),
    );
    await add(page, 't', 'attention-heatmap', { class: 'themed', sentence: 'a b' });
    const look = await page.evaluate(() => {
      const root = document.getElementById('t').shadowRoot;
      const box = getComputedStyle(root.querySelector('[part="box"]'));
      return {
        bg: box.backgroundColor,
        border: box.borderTopColor,
        title: getComputedStyle(root.querySelector('[part="title"]')).color,
      };
    });
    assert.deepEqual(look, { bg: 'rgb(250, 240, 230)', border: 'rgb(1, 2, 3)', title: 'rgb(200, 0, 0)' });
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});
