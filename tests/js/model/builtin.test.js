// BUILTIN_MODEL, the folder of the model shipped in the package: beside the package's files where they are read as
// they are (Node's file: URL, a CDN, a dev server of node_modules), the page's models/induction/ in a bundle (where
// the docs' recipe copies it); and loadModel reads it here (Node: a file: URL; Chromium: the test server's URL).
import { describe, expect, it } from 'vitest';
import { BUILTIN_MODEL, loadModel } from '../../../src/js/model/index.js';
import { builtinModelUrl } from '../../../src/js/model/builtin.js';

const FOLDER = 'web/public/models/induction/';

describe('BUILTIN_MODEL', () => {
  it('is beside the package’s files where they are read as they are', () => {
    const cases = [
      // Node (and Bun, Deno): the installed file, no page
      [
        'file:///app/node_modules/attention-wasm/src/js/model/builtin.js',
        undefined,
        `file:///app/node_modules/attention-wasm/${FOLDER}`,
      ],
      // a CDN, from a post on another origin
      [
        'https://cdn.jsdelivr.net/npm/attention-wasm@0.2.0/src/js/model/builtin.js',
        'https://blog.example.org/2026/post.html',
        `https://cdn.jsdelivr.net/npm/attention-wasm@0.2.0/${FOLDER}`,
      ],
      // a dev server of node_modules (Vite's, with its version query)
      [
        'http://localhost:5173/node_modules/attention-wasm/src/js/model/builtin.js?v=1a2b3c',
        'http://localhost:5173/',
        `http://localhost:5173/node_modules/attention-wasm/${FOLDER}`,
      ],
    ];
    for (const [moduleUrl, page, folder] of cases) expect(builtinModelUrl(moduleUrl, page).href).toBe(folder);
  });

  it('in a bundle, is the copy a page serves at models/induction/ under its base URL', () => {
    const cases = [
      // Vite's build: a chunk of its own name
      [
        'https://app.example.org/assets/index-B2x9.js',
        'https://app.example.org/',
        'https://app.example.org/models/induction/',
      ],
      // Vite's dev server with the package pre-bundled, a page in a subfolder
      [
        'http://localhost:5173/node_modules/.vite/deps/attention-wasm_model.js?v=9f8e',
        'http://localhost:5173/lessons/one.html',
        'http://localhost:5173/lessons/models/induction/',
      ],
      // webpack, which writes the source's file: URL into the bundle
      [
        'file:///home/me/app/node_modules/attention-wasm/src/js/model/builtin.js',
        'https://app.example.org/',
        'https://app.example.org/models/induction/',
      ],
    ];
    for (const [moduleUrl, page, folder] of cases) expect(builtinModelUrl(moduleUrl, page).href).toBe(folder);
  });

  it('is a URL of the shipped folder that loadModel reads here', async () => {
    expect(BUILTIN_MODEL).toBeInstanceOf(URL);
    expect(BUILTIN_MODEL.href.endsWith(`/${FOLDER}`)).toBe(true);
    // In Node, the Node entry (its `node` condition) reads file: URLs; the browser entry, http(s) ones.
    const isNode = typeof window === 'undefined';
    const load = isNode ? (await import('../../../src/js/model/index.node.js')).loadModel : loadModel;
    const model = await load(BUILTIN_MODEL);
    try {
      const r = await model.run('the cat saw a red ball near the old tree . the cat saw a red');
      expect([model.family, r.next[0].token]).toEqual(['gpt2', 'ball']);
    } finally {
      await model.dispose();
    }
  });
});
