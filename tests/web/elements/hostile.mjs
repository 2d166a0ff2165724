// Bad input never throws into the host page: unknown attributes warn once, bad values get a polite message inside
// the element, text never becomes HTML, and a .wasm that cannot load shows a message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32, deflateRawSync } from 'node:zlib';
import { npyFile, zipFile } from '../../js/fixtures/io/writers.js';
import { add, assertClean, message, open, withoutWasm } from './env.mjs';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';

test('an unknown attribute warns once, naming the nearest valid one', async () => {
  const session = await open();
  const { page, problems } = session;
  try {
    await add(page, 'u1', 'attention-heatmap', { sead: '3', 'd-modle': '8', 'data-x': '1', 'aria-label': 'fig' });
    await add(page, 'u2', 'attention-heatmap', { sead: '4' });
    await add(page, 'u3', 'attention-explorer', { step: 'softmax' });
    const warnings = problems.warnings.filter((w) => w.includes('unknown attribute'));
    assert.deepEqual(warnings, [
      '<attention-heatmap>: unknown attribute "sead"; did you mean "seed"? It is ignored.',
      '<attention-heatmap>: unknown attribute "d-modle"; did you mean "d-model"? It is ignored.',
      '<attention-explorer>: unknown attribute "step"; did you mean "steps"? It is ignored.',
    ]);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('bad values show a polite message naming what to fix, and the page never sees an exception', async () => {
  const session = await open();
  const { page } = session;
  try {
    const cases = [
      [{ seed: 'banana' }, undefined, /seed="banana" should be a whole number from 0 to 4294967295/],
      [{ heads: '9' }, undefined, /heads="9" should be a whole number from 1 to 8/],
      [{ 'd-k': '40', heads: '2' }, undefined, /heads × d_k is 80, over 64/],
      [
        { sentence: Array.from({ length: 70 }, (_, i) => `w${i}`).join(' ') },
        undefined,
        /70 words, over the 64 tokens/,
      ],
      [{ temperature: '0' }, undefined, /temperature="0" should be a number from 0.05 to 5/],
      [
        { example: 'causel' },
        undefined,
        /example="causel" is not one of the page's examples: sentence, worked, causal/,
      ],
      [{}, '{"x": [[1, 2], [3, 4]', /not valid JSON/],
      [{}, '{"x": [[1, 2], [3]]}', /x row 1 has 1 numbers, but row 0 has 2/],
      [
        {},
        '{"x": [[1, 2], [3, 4]], "wq": [[1, 2, 3]]}',
        /wq is \[1, 3\], but with x's 2 columns .* it must be \[2, 3\]/,
      ],
      [{}, '{"x": [[1, "a"]]}', /x\[0\]\[1\] is "a"/],
      [
        {},
        `{"x": ${JSON.stringify(Array.from({ length: 65 }, () => [1]))}}`,
        /x has 65 rows: an element shows at most 64 tokens/,
      ],
      [{}, '{"x": [[1, 2]], "weights": 1}', /unknown key "weights"/],
      [{ src: 'missing.json' }, undefined, /src="missing.json" could not be fetched: HTTP 404/],
      [{ state: '#v=1&s=a+b&n=2&dm=2&dk=2&dv=2&x=1e30,1;2,3' }, undefined, /state: x=.* is not a 2×2 matrix/],
      // A layer the page can show (up to 16 heads) but an element cannot.
      [
        { state: '#v=2&h=12&dm=768&dk=64&dv=64' },
        undefined,
        /state: d_model must be a whole number from 1 to 64.*open it on the page/,
      ],
    ];
    let k = 0;
    for (const [attributes, json, expected] of cases) {
      const id = `bad${k++}`;
      await add(page, id, 'attention-heatmap', attributes, json);
      assert.match(await message(page, id), expected, JSON.stringify(attributes) + (json ?? ''));
      // The figure still shows (the defaults where the input was bad), never a blank box.
      assert.equal(await page.evaluate((e) => document.getElementById(e).status, id), 'ready', id);
    }
    const explorer = 'steps-bad';
    await add(page, explorer, 'attention-explorer', { steps: 'scores sofmax' });
    assert.match(await message(page, explorer), /"sofmax" is not a step \(did you mean "softmax"\?\)/);
    // The browser logs the missing src file itself; nothing else may be logged.
    session.problems.console = session.problems.console.filter((t) => !/status of 404/.test(t));
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('text from attributes and JSON never becomes HTML', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'x1', 'attention-heatmap', { sentence: `hello ${HOSTILE} world` });
    await add(
      page,
      'x2',
      'attention-explorer',
      { steps: 'x softmax output' },
      JSON.stringify({
        tokens: [HOSTILE, '<b>b</b>'],
        x: [
          [1, 2],
          [3, 4],
        ],
      }),
    );
    await add(page, 'x3', 'attention-heatmap', { example: HOSTILE, seed: HOSTILE });
    await page.locator('#x1').locator('[role="grid"]').focus();
    await page.keyboard.press('ArrowRight');
    const found = await page.evaluate(() => {
      const roots = ['x1', 'x2', 'x3'].map((id) => document.getElementById(id).shadowRoot);
      return {
        images: roots.reduce((n, root) => n + root.querySelectorAll('img, b').length, 0),
        text: roots.map((root) => root.textContent).join(' '),
        pwned: window.__pwned ?? null,
      };
    });
    assert.equal(found.images, 0);
    assert.equal(found.pwned, null);
    assert.ok(found.text.includes('<img'), 'the token is shown as text');
    assert.match(await message(page, 'x3'), /example="<img src=x onerror=/);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('a .wasm that cannot load shows a message in every element, not a blank box', async () => {
  const session = await open('post.html', {
    // Neither the .wasm files, nor their script modules, nor the inline entry (the elements' fallbacks) can be had.
    route: withoutWasm,
  });
  const { page } = session;
  try {
    await page.waitForFunction(() => document.getElementById('heatmap').status === 'error', null, { timeout: 20000 });
    assert.match(await message(page, 'heatmap'), /The WebAssembly module could not be loaded/);
    await page.evaluate(() => document.getElementById('explorer').scrollIntoView());
    await page.waitForFunction(() => document.getElementById('explorer').status === 'error', null, { timeout: 20000 });
    assert.match(await message(page, 'explorer'), /could not be loaded/);
    // The failed fetch itself is the browser's console error; nothing else may be.
    session.problems.console = session.problems.console.filter((t) => !/status of 404/.test(t));
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

/** A deflated .npz (numpy.savez_compressed) of float32 zeros: { name: shape }; 16.7 M zeros deflate to 65 kB. */
function zerosNpz(arrays) {
  const members = Object.entries(arrays).map(([name, shape]) => {
    const header = npyFile({ shape, values: [] });
    const data = new Uint8Array(header.length + 4 * shape.reduce((a, b) => a * b, 1));
    data.set(header);
    return { name: `${name}.npy`, data, method: 8, compressed: deflateRawSync(data), crc: crc32(data), zip64: true };
  });
  return Buffer.from(zipFile(members));
}

test("a .npz src is checked by its tensors' shapes before any value is inflated; unused tensors are never read", async () => {
  const files = {
    'wide.npz': zerosNpz({ x: [1, 16_777_216] }),
    'deep.npz': zerosNpz({ x: [2, 2, 2] }),
    'tall.npz': zerosNpz({ x: [2, 2], wq: [2, 2], mask: [3, 3] }),
    'extra.npz': zerosNpz({ x: [2, 2], wq: [2, 2], extra: [1, 16_777_216] }),
  };
  const session = await open('blank.html', {
    route: async (page) => {
      await page.route(/\/(wide|deep|tall|extra)\.npz$/, (route) =>
        route.fulfill({ body: files[new URL(route.request().url()).pathname.split('/').pop()] }),
      );
      // Counts every byte any DecompressionStream gives out (attention-wasm/io inflates .npz members with it).
      await page.addInitScript(() => {
        window.__inflated = 0;
        const count = () =>
          new TransformStream({
            transform(chunk, controller) {
              window.__inflated += chunk.length;
              controller.enqueue(chunk);
            },
          });
        window.DecompressionStream = class extends window.DecompressionStream {
          #readable;
          get readable() {
            this.#readable ??= super.readable.pipeThrough(count());
            return this.#readable;
          }
        };
      });
    },
  });
  const { page } = session;
  const inflated = () => page.evaluate(() => window.__inflated);
  try {
    await add(page, 'wide', 'attention-explorer', { src: 'wide.npz' });
    assert.match(await message(page, 'wide'), /d_model must be a whole number from 1 to 64/);
    assert.ok((await inflated()) < 2 ** 20, `${await inflated()} bytes were inflated for a refused x`);
    await add(page, 'deep', 'attention-explorer', { src: 'deep.npz' });
    assert.match(await message(page, 'deep'), /x in src="deep.npz" has shape \[2, 2, 2\], but it should be a matrix/);
    await add(page, 'tall', 'attention-explorer', { src: 'tall.npz' });
    assert.match(await message(page, 'tall'), /mask should be 2 rows of 2 booleans/);
    const before = await inflated();
    await add(page, 'extra', 'attention-explorer', { src: 'extra.npz', steps: 'x' });
    assert.equal(await message(page, 'extra'), '');
    assert.ok((await inflated()) - before < 2 ** 20, 'the unused 64 MiB member was inflated');
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});
