// The demo page's Embed button and embed mode (the built page in web/dist, served under the strict CSP).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { ARTIFACTS, ROOT, assertClean, env, open, ready } from './env.mjs';

const built = existsSync(`${ROOT}web/dist/index.html`);

async function openPage(path, options = {}) {
  const context = await env.browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.server.url.slice(0, -1) });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${env.server.url}web/dist/index.html${path}`);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 20000 });
  return { page, context, errors };
}

test(
  'the Embed button gives an element snippet that shows the same example, and an iframe snippet',
  { skip: !built && 'run scripts/build.sh first' },
  async () => {
    const hash =
      'v=3&s=the+cat+sat+on+the+mat&n=6&dm=8&dk=4&dv=4&h=2&seed=7&dist=normal&p=3&causal=1&scale=1&t=1&tie=0&pos=0&head=1';
    const { page, context, errors } = await openPage(`#${hash}`);
    let snippets;
    try {
      await page.click('#embed-button');
      await page.getByLabel('scale', { exact: true }).uncheck(); // scores, mask (the example is causal), softmax, output
      snippets = {
        element: await page.inputValue('#embed-element'),
        iframe: await page.inputValue('#embed-iframe'),
      };
      await page.click('text=Copy element snippet');
      await page
        .locator('.controls section', { has: page.locator('#embed-panel') })
        .screenshot({ path: `${ARTIFACTS}/elements-embed-panel.png` });
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), snippets.element);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
    assert.match(
      snippets.element,
      /^<script type="module" src="https:\/\/cdn\.jsdelivr\.net\/npm\/attention-wasm@\d+\.\d+\.\d+\/web\/src\/elements\/index\.js"><\/script>\n/,
    );
    assert.match(snippets.element, /<attention-explorer steps="scores mask softmax output" state="v=3&amp;s=the\+cat/);
    const src = /src="([^"]+)"/.exec(snippets.iframe)[1].replaceAll('&amp;', '&');
    assert.match(src, /\?embed&steps=scores\+mask\+softmax\+output#v=3&/);

    // The element snippet on a post (its script tag swapped for the local file): the same state, decoded.
    const session = await open();
    try {
      const markup = snippets.element
        .split('\n')[1]
        .replace('<attention-explorer ', '<attention-explorer id="snippet" ');
      await session.page.evaluate(
        (html) => document.getElementById('main').insertAdjacentHTML('afterbegin', html),
        markup,
      );
      await ready(session.page, 'snippet');
      const shown = await session.page.evaluate(async () => {
        const e = document.getElementById('snippet');
        return {
          state: await e.permalink(),
          steps: Array.from(e.shadowRoot.querySelectorAll('section'), (s) => s.dataset.step),
          head: e.head,
        };
      });
      assert.equal(shown.state, hash);
      assert.deepEqual(shown.steps, ['scores', 'mask', 'softmax', 'output']);
      assert.equal(shown.head, 1);
      await assertClean(session);
    } finally {
      await session.context.close();
    }

    // The iframe's address: only the chosen steps, none of the page's chrome.
    for (const width of [1280, 390]) {
      const embedded = await openPage(src.slice(src.indexOf('?')), { width });
      try {
        const visible = await embedded.page.evaluate(() =>
          Object.fromEntries(
            [
              '.page-header',
              '.controls',
              '.page-footer',
              '#step-scores',
              '#step-scale',
              '#step-mask',
              '#step-softmax',
              '#step-output',
              '#step-kv',
            ].map((s) => [s, document.querySelector(s).getClientRects().length > 0]),
          ),
        );
        assert.deepEqual(visible, {
          '.page-header': false,
          '.controls': false,
          '.page-footer': false,
          '#step-scores': true,
          '#step-scale': false,
          '#step-mask': true,
          '#step-softmax': true,
          '#step-output': true,
          '#step-kv': false,
        });
        await embedded.page.screenshot({ path: `${ARTIFACTS}/elements-embed-mode-${width}.png` });
        assert.deepEqual(embedded.errors, []);
      } finally {
        await embedded.context.close();
      }
    }
  },
);

test(
  "the Embed snippet of the Causal example shows the mask step; other examples' do not, and the reader's choice stays",
  { skip: !built && 'run scripts/build.sh first' },
  async () => {
    const { page, context, errors } = await openPage('');
    const steps = async () => /steps="([^"]*)"/.exec(await page.inputValue('#embed-element'))[1];
    try {
      await page.click('#embed-button');
      assert.equal(await steps(), 'scores scale softmax output');
      await page.click('#examples [data-example="causal"]');
      await page.hover('#embed-panel');
      assert.equal(await steps(), 'scores scale mask softmax output');
      assert.equal(await page.getByLabel('mask', { exact: true }).isChecked(), true);
      await page.click('#examples [data-example="sentence"]');
      await page.hover('#embed-panel');
      assert.equal(await steps(), 'scores scale softmax output');
      // Once the reader ticks or unticks mask, the example no longer changes it.
      await page.click('#examples [data-example="causal"]');
      await page.hover('#embed-panel');
      await page.getByLabel('mask', { exact: true }).uncheck();
      await page.click('#examples [data-example="heads"]');
      await page.click('#examples [data-example="causal"]');
      await page.hover('#embed-panel');
      assert.equal(await steps(), 'scores scale softmax output');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  },
);
