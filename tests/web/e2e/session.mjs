// What every page test shares: the served page and Chromium (started once for all tests), the library in Node,
// and the comparison of what the page shows with what the library computes.
import { after, before } from 'node:test';
import { createAttention } from '../../../src/js/index.node.js';
import { assertShown, readNumbers, startBrowser } from './helpers.mjs';

/** Decimals the page shows by default. */
export const PRECISION = 3;
/** The server and browser, and the library in Node; set before the first test. */
export let env;
export let attn;

before(async () => {
  env = await startBrowser();
  attn = await createAttention();
});

after(async () => {
  await env?.close();
});

export const toRows = (tensor) => tensor.toArray();

/** Computes, with the library in Node, what the page should show for the inputs it shows. */
export async function libraryResult(page, options = {}) {
  const x = await readNumbers(page, 'x');
  const wq = await readNumbers(page, 'wq');
  const wk = await readNumbers(page, 'wk');
  const wv = await readNumbers(page, 'wv');
  return attn.selfAttention(x, { wq, wk, wv }, options);
}

export async function expectMatchesLibrary(page, options, precision = PRECISION) {
  const result = await libraryResult(page, options);
  const steps = {
    q: 'q',
    k: 'k',
    v: 'v',
    rawScores: 'rawScores',
    scaledScores: 'scaledScores',
    scores: 'scores',
    weights: 'weights',
    output: 'output',
  };
  for (const [matrix, key] of Object.entries(steps)) {
    assertShown(await readNumbers(page, matrix), toRows(result[key]), precision, matrix);
  }
  return result;
}
