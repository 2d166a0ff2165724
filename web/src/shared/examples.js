// The examples a person can start from.
import { encodeState } from './link.js';
import { defaultState } from './state.js';

const identity = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));

/**
 * @typedef {{ id: string, title: string, about: string, state: () => import('./state.js').State }} Example
 * @type {Example[]}
 */
export const EXAMPLES = [
  {
    id: 'sentence',
    title: 'Sentence',
    about: '“time flies like an arrow”: five tokens, each with a random 8-number embedding from seed 42.',
    state: defaultState,
  },
  {
    id: 'worked',
    title: '2×2 by hand',
    about:
      'X = I, W_q = W_k = I, W_v = [[1, 2], [3, 4]] and W_o = I, small enough to check on paper: ' +
      'the scores are [[1, 0], [0, 1]] ÷ √2, and the output is [[1.6604769, 2.6604769], [2.3395231, 3.3395231]] ' +
      'in float64, as NumPy gives it. attention-wasm computes in float32, which keeps about 7 significant digits: ' +
      'at 7 decimals it shows 2.3395228 for 2.3395231, one float32 rounding step (2.4e-7) away.',
    state: () => ({
      ...defaultState(),
      sentence: 'A B',
      n: 2,
      dModel: 2,
      dK: 2,
      dV: 2,
      precision: 6,
      x: identity(2),
      wq: identity(2),
      wk: identity(2),
      wv: [
        [1, 2],
        [3, 4],
      ],
      wo: identity(2),
    }),
  },
  {
    id: 'causal',
    title: 'Causal',
    about: 'A causal mask, as in GPT: each token may attend only to itself and the tokens before it.',
    state: () => ({ ...defaultState(), sentence: 'the cat sat on the mat', n: 6, seed: 7, causal: true }),
  },
  {
    id: 'heads',
    title: '4 heads',
    about:
      'Four heads, each with its own W_q, W_k and W_v blocks of width 4, so each head has its own pattern. ' +
      'Compare their heatmaps below. The blocks are random, so the patterns differ only by chance: ' +
      'training is what would teach each head to look for something different.',
    state: () => ({ ...defaultState(), dModel: 16, numHeads: 4 }),
  },
  {
    id: 'projection',
    title: 'W_o',
    about:
      'Two heads with d_v = 3: side by side their outputs are [5, 6]. The output projection W_o, [6, 8], ' +
      'brings them back to d_model = 8, the width of X, and mixes the heads. See step 8; W_o is editable.',
    state: () => ({ ...defaultState(), numHeads: 2, dV: 3 }),
  },
  {
    id: 'order',
    title: 'Word order',
    about:
      'Positional encodings on, for “the cat sat on the mat”: both “the” have the same embedding but, ' +
      'after P is added, different inputs. Step 9 shuffles the sentence: without P each output only moves with ' +
      'its token; with P the outputs change.',
    state: () => ({ ...defaultState(), sentence: 'the cat sat on the mat', n: 6, seed: 7, positions: true }),
  },
  {
    id: 'rope',
    title: 'RoPE',
    about:
      'Rotary position embeddings, as in LLaMA: “the cat sat on the mat” with d_k = 8, so q and k have 4 pairs of ' +
      'dimensions. Step 10 turns each pair by position × frequency and shifts the whole sentence by 3 positions: ' +
      'the scores stay the same, while with P added to X they change.',
    state: () => ({ ...defaultState(), sentence: 'the cat sat on the mat', n: 6, seed: 7, dK: 8 }),
  },
  {
    id: 'kv',
    title: 'KV cache',
    about:
      'Two heads, causal, “the cat sat on the mat”: step 11 generates “mat” from the cached keys and values ' +
      'of the five earlier tokens, and checks it against recomputing everything.',
    state: () => ({ ...defaultState(), sentence: 'the cat sat on the mat', n: 6, seed: 7, causal: true, numHeads: 2 }),
  },
  {
    id: 'designed',
    title: 'Designed heads',
    about:
      'Four heads whose X, W_q and W_k are built by hand, not drawn at random: the previous token, the first token ' +
      '(an attention sink), the same word elsewhere and a local window. Step 12 shows how each W_q and W_k makes its ' +
      'pattern; edit a weight in step 2 to break it.',
    state: () => ({
      ...defaultState(),
      sentence: 'the cat saw the dog chase the cat',
      n: 8,
      dModel: 16,
      dK: 16,
      dV: 4,
      numHeads: 4,
      design: true,
    }),
  },
  {
    id: 'gqa',
    title: 'Grouped-query',
    about:
      'Four query heads sharing two key and value heads (kv heads = 2), as LLaMA 2 70B and Mistral 7B do at a larger ' +
      'size: step 13 colours each head by the K and V it uses and counts the KV-cache memory saved.',
    state: () => ({ ...defaultState(), dModel: 16, numHeads: 4, kvHeads: 2 }),
  },
  {
    id: 'cross',
    title: 'Cross-attention',
    about:
      'Translation, as in the original transformer: “the cat sat on the mat” (decoder side) asks, “le chat est assis ' +
      'sur le tapis” (encoder side) answers. Step 14 shows the 6 × 7 weights: one row per query, one column per key.',
    state: () => ({
      ...defaultState(),
      sentence: 'the cat sat on the mat',
      n: 6,
      seed: 7,
      source: 'le chat est assis sur le tapis',
    }),
  },
  {
    id: 'gemma',
    title: 'Gemma 2 layers',
    about:
      'Causal, as Gemma 2, on “once upon a time a fox”: step 15 runs the layer as a global layer and as a ' +
      'sliding-window one (w = 3: each token sees itself and the two before it), then caps its scores at c = 1 ' +
      '(tanh(s / c)·c): the sharpest row flattens.',
    state: () => ({ ...defaultState(), sentence: 'once upon a time a fox', n: 6, seed: 23, causal: true }),
  },
  {
    id: 'shared',
    title: 'W_q = W_k',
    about:
      'With W_k = W_q, K = Q, so QKᵀ is symmetric: score(a → b) = score(b → a). ' +
      'The weights are not symmetric, because softmax normalizes each row on its own.',
    state: () => ({ ...defaultState(), shareQK: true }),
  },
];

// Settings that change only what is shown, not the example itself.
const VIEW_ONLY = new Set(['p', 'head']);
const exampleKey = (state) =>
  encodeState(state)
    .split('&')
    .filter((pair) => !VIEW_ONLY.has(pair.split('=')[0]))
    .join('&');

/**
 * The example the state still is (up to the decimals shown and the head followed), or null once it was edited.
 * @returns {Example | null}
 */
export function activeExample(state) {
  // Sizes first: encoding a large state (every typed number) for nothing cost ~50 ms per change at GPT-2 size.
  const sized = EXAMPLES.filter((example) => {
    const s = example.state();
    return s.n === state.n && s.dModel === state.dModel && s.numHeads === state.numHeads && s.dK === state.dK;
  });
  if (sized.length === 0) return null;
  const key = exampleKey(state);
  return sized.find((example) => exampleKey(example.state()) === key) ?? null;
}

/** What the examples panel says about the state: the active example's description, or that it was changed. */
export function exampleAbout(state) {
  const example = activeExample(state);
  if (example) return example.about;
  return "Your own example: the sentence, sizes, numbers or settings differ from every preset above, so no preset's description applies. Click an example to start again from it.";
}
