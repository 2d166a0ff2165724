// The explorer gives one answer per question: grouped-query attention in every step it shows, and a random-weights
// note that calls chance only what is chance.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { columns, exampleReference } from '../e2e/reference64.mjs';
import { add, assertClean, assertClose, open, shadowTexts, shownMatrix } from './env.mjs';

const assertNear = (shown, expected, what) => assertClose(shown, expected, 0.5e-3 + 1e-6, what);

test('example="gqa" head 2: W_k, K, V and the weights are those of kv head 1, labelled as shared', async () => {
  const { m, state, ref } = exampleReference('gqa');
  const { dK } = state;
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'g', 'attention-explorer', { example: 'gqa', steps: 'qkv softmax output heads gqa', head: '2' });
    assertNear(await shownMatrix(page, 'g', 'wk'), columns(m.wk, dK, dK), 'W_k');
    assertNear(await shownMatrix(page, 'g', 'k'), ref.keys[1], 'K');
    assertNear(await shownMatrix(page, 'g', 'vOut'), ref.values[1], 'V');
    assertNear(await shownMatrix(page, 'g', 'weights'), ref.weights[2], 'weights');
    const titles = await shadowTexts(page, 'g', '[data-matrix="wk"] figcaption, [data-matrix="k"] figcaption');
    assert.deepEqual(titles, ['W_k (kv head 1)[16, 4]', 'K (kv head 1)[5, 4]']);
    const notes = await shadowTexts(page, 'g', '[data-matrix="wk"] .sub, [data-matrix="k"] .sub');
    assert.deepEqual(notes, ['shared by heads 2 and 3 · weights', 'shared by heads 2 and 3 · keys']);
    const captions = await shadowTexts(page, 'g', '[data-step="heads"] figcaption');
    assert.deepEqual(captions, ['head 0 · K, V 0', 'head 1 · K, V 0', 'head 2 · K, V 1', 'head 3 · K, V 1']);
    const [heads] = await shadowTexts(page, 'g', '[data-step="heads"] > p');
    assert.match(heads, /each group of 2 heads shares one block of W_k and W_v/u);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('the random-weights note: the causal first token and the W_q = W_k diagonal are forced, not chance', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'c', 'attention-explorer', { example: 'causal', steps: 'softmax' });
    const causal = (await shadowTexts(page, 'c', '[data-step="softmax"] > p')).join(' ');
    assert.doesNotMatch(causal, /1\.00 of its attention to itself is chance/u);
    assert.match(causal, /Not chance: under the causal mask the first token, “the”, can only attend to itself/u);
    await add(page, 's', 'attention-explorer', { example: 'shared', steps: 'softmax' });
    const shared = (await shadowTexts(page, 's', '[data-step="softmax"] > p')).join(' ');
    assert.doesNotMatch(shared, /of its attention to itself is chance/u);
    assert.match(shared, /The bright diagonal is built in/u);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});
