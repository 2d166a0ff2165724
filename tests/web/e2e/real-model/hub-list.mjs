// Page test (run by run.mjs): the real English models the page offers by name (GPT-2 small, distilgpt2, Pythia-70m,
// SmolLM-135M, Qwen2.5-0.5B), one click each, under the page's own Content-Security-Policy. The Hub cannot be reached here: its
// addresses (https://huggingface.co/<id>/resolve/main/<file>) are answered by the test, as the Hub answers them
// (Range, CORS), with a tiny checkpoint of each model's family written in the Hub's layout. Each loads, and its
// predictions are attention-wasm/model's on the same files.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { gpt2Fixture, llamaFixture } from '../../../js/model/fixtures.js';
import { neoxFixture } from '../../../js/model/fixtures-families.js';
import { byteLevelTokenizer } from '../../../js/model/tokenizers.js';
import { ARTIFACTS, openPage } from '../helpers.mjs';
import { assertPredictions, openBuiltin, readPredictions, runs, waitForRun } from './helpers.mjs';
import { env } from '../session.mjs';

const MERGES = ['Ġ t', 'Ġt h', 'Ġth e', 'c a', 'ca t'];
const TOKENIZER = byteLevelTokenizer(MERGES);
const VOCAB = 257 + MERGES.length;
const TEXT = 'the cat saw the cat';

/** Each model offered, with a tiny checkpoint of its family in its place on the Hub. */
const OFFERED = {
  'openai-community/gpt2': gpt2Fixture({ vocab: VOCAB, positions: 32 }),
  'distilbert/distilgpt2': gpt2Fixture({ vocab: VOCAB, positions: 32, seed: 5, layers: 1 }),
  'EleutherAI/pythia-70m': neoxFixture({ vocab: VOCAB }),
  'HuggingFaceTB/SmolLM-135M': llamaFixture({ vocab: VOCAB, dtype: 'BF16', tied: true }),
  'Qwen/Qwen2.5-0.5B': llamaFixture({ type: 'qwen2', vocab: VOCAB, dtype: 'BF16' }),
};
const CONFIG = JSON.stringify({ tokenizer_class: 'GPT2Tokenizer', model_max_length: 32 });
const filesOf = (id) => ({ ...OFFERED[id].files, 'tokenizer.json': TOKENIZER, 'tokenizer_config.json': CONFIG });
/** A model of the Hub without tokenizer_config.json (optional: the page asks for it, and the Hub answers 404). */
const PLAIN = 'someone/plain-gpt2';
OFFERED[PLAIN] = gpt2Fixture({ vocab: VOCAB, positions: 32, seed: 9 });
const folderOf = (id) => {
  const files = filesOf(id);
  if (id === PLAIN) delete files['tokenizer_config.json'];
  return files;
};

/** Answers the Hub's addresses as the Hub does: 206 for a range, 200 for a whole file, 404 else; CORS for all. */
async function routeHub(page, asked) {
  await page.route('https://huggingface.co/**', (route) => {
    const request = route.request();
    const url = new URL(request.url());
    asked.push(`${request.method()} ${url.pathname} ${request.headers().range ?? ''}`.trim());
    const headers = {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges, ETag',
      'Accept-Ranges': 'bytes',
    };
    const match = /^\/(.+)\/resolve\/main\/([\w.]+)$/u.exec(url.pathname);
    const content = match && OFFERED[match[1]] ? folderOf(match[1])[match[2]] : undefined;
    if (content === undefined) return route.fulfill({ status: 404, headers, body: 'Entry not found' });
    const body = Buffer.from(content);
    const range = /^bytes=(\d+)-(\d+)$/u.exec(request.headers().range ?? '');
    if (!range) return route.fulfill({ status: 200, headers, body });
    const [begin, end] = [Number(range[1]), Math.min(Number(range[2]) + 1, body.length)];
    return route.fulfill({
      status: 206,
      headers: { ...headers, 'Content-Range': `bytes ${begin}-${end - 1}/${body.length}` },
      body: body.subarray(begin, end),
    });
  });
}

describe('real model: English models of the Hub, one click away', () => {
  test('the list names each model with its size and where it comes from; a click loads it and runs it', async () => {
    const asked = [];
    const session = await openPage(env, { route: (page) => routeHub(page, asked) });
    try {
      const { page, problems } = session;
      await openBuiltin(page);
      const list = page.locator('.hub-models');
      assert.ok(await list.isVisible(), 'the list is shown with the sources');
      const note = await list.locator('p').textContent();
      assert.match(note, /downloaded from the Hugging Face Hub \(https:\/\/huggingface\.co\) into this browser/u);
      const rows = await list
        .locator('li')
        .evaluateAll((items) =>
          items.map((li) => ({ button: li.querySelector('button').textContent, text: li.textContent })),
        );
      assert.deepEqual(
        rows.map((r) => r.button),
        ['GPT-2 small', 'distilgpt2', 'Pythia-70m', 'SmolLM-135M', 'Qwen2.5-0.5B'],
      );
      for (const [k, id] of Object.keys(OFFERED).slice(0, 5).entries()) {
        assert.ok(rows[k].text.includes(id), `${rows[k].button} names ${id}`);
        assert.match(rows[k].text, /· \d[\d.]* (MB|GB) ·/u, `${rows[k].button} says its download size`);
      }
      await list.screenshot({ path: `${ARTIFACTS}/real-model-hub-list.png` });
      for (const id of Object.keys(OFFERED).slice(0, 5)) {
        const model = await loadModel(filesOf(id));
        const expected = await model.run(TEXT, { topK: 10 });
        model.dispose();
        const before = await runs(page);
        await page.click(`.hub-model[data-model="${id}"]`);
        const folder = `https://huggingface.co/${id}/resolve/main/`;
        await page.waitForFunction((f) => document.getElementById('model-about').textContent.endsWith(f), folder);
        await waitForRun(page, before);
        assert.equal(await page.inputValue('#model-url'), id, 'the field shows the id');
        const n = await runs(page);
        await page.fill('#model-text', TEXT);
        await waitForRun(page, n);
        assertPredictions(await readPredictions(page), expected.next, id);
        assert.equal(await page.textContent('#model-error'), '');
        assert.equal(await page.isVisible('#model-files-note'), false, 'every file asked for is there');
        assert.ok(asked.some((a) => a.startsWith(`GET /${id}/resolve/main/model.safetensors bytes=`)));
      }
      assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'the page’s CSP allows the Hub');
      assert.deepEqual(problems.pageErrors, []);
      assert.deepEqual(problems.console, []);
      const elsewhere = problems.foreignRequests.filter((u) => !u.startsWith('https://huggingface.co/'));
      assert.deepEqual(elsewhere, [], 'nothing but the Hub’s files is asked of another origin');
    } finally {
      await session.context.close();
    }
  });

  test('a folder without the optional tokenizer_config.json: the page says once why the console shows a 404', async () => {
    const asked = [];
    const session = await openPage(env, { route: (page) => routeHub(page, asked) });
    try {
      const { page, problems } = session;
      await openBuiltin(page);
      const before = await runs(page);
      await page.fill('#model-url', PLAIN);
      await page.press('#model-url', 'Enter');
      await waitForRun(page, before);
      assert.ok(asked.includes(`GET /${PLAIN}/resolve/main/tokenizer_config.json`));
      assert.equal(
        await page.textContent('#model-files-note'),
        "tokenizer_config.json, which is optional, is not in this folder: the page asked for it, and the 404 the browser's console shows is its answer.",
      );
      assert.equal(problems.console.length, 1, problems.console.join('\n'));
      assert.match(problems.console[0], /404/u);
      assert.equal(await page.textContent('#model-error'), '');
    } finally {
      await session.context.close();
    }
  });
});
