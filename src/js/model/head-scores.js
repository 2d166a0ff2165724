// model.headScores(kind, { ids, excludeBos, excludeCurrentToken }): TransformerLens's head detectors
// (head_detector.detect_head with error_measure "mul"). Each kind is a pattern P [n, n] of 0 and 1 on the token ids:
//   previousToken   P[i][j] = 1 for j = i − 1 (the sub-diagonal)
//   duplicateToken  P[i][j] = 1 for j < i with ids[j] = ids[i] (earlier positions holding the same id)
//   induction       P[i][j] = 1 for 1 ≤ j ≤ i with ids[j − 1] = ids[i] (the duplicate pattern shifted one right)
// and a head's score is sum(A ⊙ P) / sum(A) over its attention weights A, after `excludeBos` zeroes column 0 and
// `excludeCurrentToken` the diagonal; averaged over the sequences given. A head with nothing left (sum(A) = 0) scores
// NaN. (detect_head drops the exclusions for a list of sequences; here they apply to each.) A decoder's sequences run
// side by side as cells (cells.js): one batch of rows per layer call.
import { AttentionError, describe } from '../errors.js';
import { readRecord } from '../read.js';
import { Tensor } from '../tensor.js';
import { forwardPass } from './forward-pass.js';
import { readRunPlan } from './run-plan.js';
import { batchesOf, runCells } from './cells.js';
import { checkCells, checkEmbed, checkForward } from './call-sizes.js';

/** The kinds of head scores. */
export const HEAD_SCORE_KINDS = Object.freeze(['previousToken', 'duplicateToken', 'induction']);

const RULES = {
  previousToken: (ids, i, j) => j === i - 1,
  duplicateToken: (ids, i, j) => j < i && ids[j] === ids[i],
  induction: (ids, i, j) => j >= 1 && j <= i && ids[j - 1] === ids[i],
};

const bad = (message) => new AttentionError('BAD_OPTION', message);

/** `ids`: number[] (one sequence) or number[][] (several), each read as run reads its input. */
function readSequences(ids, engine) {
  const many =
    Array.isArray(ids) && ids.length > 0 && ids.every((seq) => Array.isArray(seq) || ArrayBuffer.isView(seq));
  const sequences = many ? ids : [ids];
  return sequences.map((seq, s) => {
    const options = { attentions: true, hiddenStates: false, logits: false };
    try {
      return readRunPlan({ ids: seq }, options, engine.spec, null);
    } catch (error) {
      if (many && error instanceof AttentionError) error.message = `headScores: ids[${s}]: ${error.message}`;
      throw error;
    }
  });
}

/** Adds each head's score of one sequence (its layers' weights [H, n, n]) to `sums` [L, H]. */
function addScores(sums, attentions, ids, kind, { excludeBos, excludeCurrentToken }) {
  const n = ids.length;
  const rule = RULES[kind];
  attentions.forEach((weights, l) => {
    const H = weights.shape[0];
    for (let h = 0; h < H; h++) {
      let [hit, all] = [0, 0];
      for (let i = 0; i < n; i++) {
        const row = weights.data.subarray((h * n + i) * n, (h * n + i + 1) * n);
        for (let j = 0; j < n; j++) {
          if ((excludeBos && j === 0) || (excludeCurrentToken && i === j)) continue;
          all += row[j];
          if (rule(ids, i, j)) hit += row[j];
        }
      }
      sums[l * H + h] += hit / all;
    }
  });
}

/** Every call of the sequences' runs, sized before anything is read (call-sizes.js): as cells, or as forwards. */
function checkScores(engine, plans) {
  if (!engine.spec.choices.causal) {
    for (const plan of plans) checkForward(engine, plan);
    return;
  }
  const d = engine.spec.dModel;
  for (const plan of plans) checkEmbed(engine, plan.ids);
  const cells = plans.map((plan) => ({ first: 0, count: plan.n, rows: { length: plan.n * d } }));
  checkCells(engine, batchesOf(cells, d), { layer: 0, attentions: true, outputs: false, what: 'headScores' });
}

/**
 * model.headScores(kind, { ids, excludeBos?, excludeCurrentToken?, signal? }).
 *
 * | argument, result | shape                                              |
 * |------------------|----------------------------------------------------|
 * | ids              | number[] n, or number[][] of sequences              |
 * | result           | Tensor [L, H]: each head's score, averaged          |
 * @param {object} engine  the model's parts (model.js)
 * @param {'previousToken' | 'duplicateToken' | 'induction'} kind
 * @param {{ ids: number[] | number[][], excludeBos?: boolean, excludeCurrentToken?: boolean, signal?: AbortSignal }} options
 * @returns {Promise<Tensor>} [L, H]
 */
export async function headScores(engine, kind, options) {
  if (!HEAD_SCORE_KINDS.includes(kind)) {
    throw bad(`headScores: kind ${describe(kind)} is not one of ${HEAD_SCORE_KINDS.join(', ')}`);
  }
  const o = readRecord(options, 'headScores options', ['ids', 'excludeBos', 'excludeCurrentToken', 'signal'], 'option');
  for (const flag of ['excludeBos', 'excludeCurrentToken']) {
    if (o[flag] !== undefined && typeof o[flag] !== 'boolean') {
      throw bad(`headScores: ${flag} must be true or false, got ${describe(o[flag])}`);
    }
  }
  const plans = readSequences(o.ids, engine);
  const signal = readRunPlan({ ids: plans[0].ids }, { signal: o.signal }, engine.spec, null).signal;
  const { numLayers: L, numHeads: H } = engine.spec;
  const sums = new Float64Array(L * H);
  const exclude = { excludeBos: o.excludeBos, excludeCurrentToken: o.excludeCurrentToken };
  checkScores(engine, plans); // TOO_LARGE before anything is read
  if (engine.spec.choices.causal) {
    // a decoder's sequences as cells at position 0, in batches of rows (cells.js)
    const cells = [];
    for (const { ids } of plans) {
      cells.push({
        first: 0,
        rows: (await engine.embed(ids, undefined, 0, { signal: engine.signal(signal) })).data,
        ids,
      });
    }
    for (const batch of batchesOf(cells, engine.spec.dModel)) {
      const { attentions } = await runCells(engine, batch, {
        layer: 0,
        signal,
        attentions: true,
        outputs: false,
      });
      let at = 0;
      for (const { ids } of batch) {
        const size = H * ids.length ** 2;
        const layers = attentions.map((data) => new Tensor(data.subarray(at, at + size), [H, ids.length, ids.length]));
        addScores(sums, layers, ids, kind, exclude);
        at += size;
      }
    }
  } else {
    for (const plan of plans) {
      plan.signal = signal;
      addScores(sums, (await forwardPass(engine, plan)).attentions, plan.ids, kind, exclude);
    }
  }
  return new Tensor(
    Float32Array.from(sums, (sum) => sum / plans.length),
    [L, H],
  );
}
