// The word-order demo: the sentence shuffled, run through the same layer without and with positional encodings.
import { attentionCall, labelsFor } from '../../shared/inputs.js';
import { currentMatrix } from '../../shared/matrices.js';
import { addMatrices, shuffleOrder, sinusoidalPositions } from '../../shared/positions.js';

/**
 * Runs the layer (W_q, W_k, W_v, W_o of the state, no mask) on the sentence and on its shuffle, each token keeping
 * its embedding, once without and once with positional encodings. The change of token t's output is its output in
 * the shuffled sentence minus its output in the original one.
 *
 * | result                  | shape          |
 * |-------------------------|----------------|
 * | perm                    | [n]            | perm[p]: the original position of the token now at p
 * | cases[c].change         | [n, d_model]   | row p: the change of the output of the token now at p
 * @param {{ selfAttention: Function }} attn  an instance from createAttention()
 * @returns {{ perm: number[], labels: string[], cases: { positions: boolean, change: number[][], largest: number }[] }}
 */
export function wordOrderDemo(attn, state) {
  const perm = shuffleOrder(state.n, state.shuffle, state.seed);
  const labels = labelsFor(state);
  const embeddings = currentMatrix(state, 'x');
  const positions = sinusoidalPositions(state.n, state.dModel);
  // One call's weights and options for all four runs: only X changes.
  const base = attentionCall({ ...state, positions: false, causal: false, mask: null });
  const options = { ...base.options, returnSteps: false };
  const layer = (x) => {
    const input = { data: Float64Array.from(x.flat()), shape: [x.length, x[0].length] };
    return attn.selfAttention(input, base.weights, options).output.toArray();
  };
  const cases = [false, true].map((withPositions) => {
    const add = (x) => (withPositions ? addMatrices(x, positions) : x);
    const original = layer(add(embeddings));
    const shuffled = layer(add(perm.map((p) => embeddings[p])));
    const change = shuffled.map((row, p) => row.map((v, j) => v - original[perm[p]][j]));
    const largest = Math.max(...change.flat().map(Math.abs));
    return { positions: withPositions, change, largest };
  });
  return { perm, labels: perm.map((p) => labels[p]), cases };
}

/** What the demo found, in words. */
export function wordOrderText(state, demo) {
  const [without, withPositions] = demo.cases;
  const tiny = without.largest < 1e-4;
  const mask =
    state.causal || state.mask ? ' The demo leaves out the mask: a causal mask itself depends on the order.' : '';
  return (
    `Shuffled: “${demo.labels.join(' ')}”. Without positions, each token's output only moves with its token: ` +
    `the largest change is ${without.largest === 0 ? '0' : without.largest.toExponential(1)}${tiny ? ', float32 rounding from adding the same terms in another order' : ''}. ` +
    `With positional encodings, the outputs change: the largest change is ${withPositions.largest.toFixed(3)}.${mask}`
  );
}
