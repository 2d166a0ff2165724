// The Investigate part's pure shaping (web/src/shared/instruments/): the logit lens's grid against a softmax written
// here in float64, the attribution's parts and sum, the patching grid, the head scores' rows, sort and marks, the loss
// rows, and the tokens typed read as ids.
import { describe, expect, it } from 'vitest';
import { lensGrid, lensRowLabels, softmaxRow } from '../../../../../web/src/shared/instruments/lens.js';
import { attributionSummary, attributionView } from '../../../../../web/src/shared/instruments/attribution.js';
import { lengthProblem, restoringCells, sweepGrid } from '../../../../../web/src/shared/instruments/patching.js';
import {
  headMarks,
  repeatedSequences,
  scoreRows,
  scoresSummary,
  sortRows,
  topHeads,
} from '../../../../../web/src/shared/instruments/headScores.js';
import { lossRows, lossScale } from '../../../../../web/src/shared/instruments/loss.js';
import { readTarget, readToken, targetText, tokenIndex } from '../../../../../web/src/shared/instruments/targets.js';

const tensor = (values, shape) => ({ data: Float32Array.from(values), shape });

/** Softmax of a row in float64, written apart from lens.js. */
function softmax(row) {
  const exps = row.map((x) => Math.exp(x));
  const sum = exps.reduce((s, e) => s + e, 0);
  return exps.map((e) => e / sum);
}

describe('logit lens', () => {
  it('labels the residuals from the embeddings to the final one', () => {
    expect(lensRowLabels(2)).toEqual(['embeddings', 'after L0', 'after L1 (final)']);
  });

  it('gives each cell its top token and probability, and the chosen token per residual at one position', () => {
    const rows = [
      [
        [1, 2, 0.5],
        [0, -1, 3],
      ],
      [
        [2, 0, 0],
        [0.1, 0.2, 0.3],
      ],
    ];
    const logits = rows.map((r) => tensor(r.flat(), [2, 3]));
    const grid = lensGrid(logits, { name: (id) => `t${id}`, chosen: 2, position: 1 });
    expect(grid.rows.map((r) => r.label)).toEqual(['embeddings', 'after L0 (final)']);
    rows.forEach((r, l) =>
      r.forEach((row, i) => {
        const p = softmax(row);
        const top = p.indexOf(Math.max(...p));
        expect(grid.rows[l].cells[i].id).toBe(top);
        expect(grid.rows[l].cells[i].token).toBe(`t${top}`);
        expect(grid.rows[l].cells[i].p).toBeCloseTo(p[top], 6);
      }),
    );
    expect(grid.line[0]).toBeCloseTo(softmax(rows[0][1])[2], 6);
    expect(grid.line[1]).toBeCloseTo(softmax(rows[1][1])[2], 6);
    expect(softmaxRow(logits[0], 0, 7).chosenP).toBeNaN(); // an id outside the vocabulary
  });
});

describe('attribution', () => {
  const a = {
    total: 1.5,
    embeddings: 0.25,
    heads: tensor([0.5, -0.25, 0.1, 0.9], [2, 2]),
    attnBiases: Float32Array.from([0, -0.1]),
    mlps: Float32Array.from([0.2, -0.1]),
    finalBias: 0,
  };

  it('lays the heads out as layers × heads, the other parts beside, and sums every part', () => {
    const view = attributionView(a);
    expect(view.heads.map((row) => row.map((v) => Math.fround(v)))).toEqual([
      [0.5, -0.25].map(Math.fround),
      [0.1, 0.9].map(Math.fround),
    ]);
    expect(view.parts.map((p) => p.label)).toEqual([
      'embeddings (token + position)',
      'L0 MLP',
      'L0 attention bias',
      'L1 MLP',
      'L1 attention bias',
      'final norm bias',
    ]);
    expect(view.sum).toBeCloseTo(0.25 + 0.5 - 0.25 + 0.1 + 0.9 + 0.2 - 0.1 - 0.1, 6);
    expect(view.maxAbs).toBeCloseTo(0.9, 6);
    expect(attributionView({ ...a, mlps: Float32Array.from([3, 0]) })).toMatchObject({ maxAbs: 3 });
    expect(attributionView({ ...a, mlps: Float32Array.from([3, 0]) }).headsMaxAbs).toBeCloseTo(0.9, 6);
    expect(view.top.map((t) => [t.layer, t.head])).toEqual([
      [1, 1],
      [0, 0],
      [0, 1],
    ]);
    expect(attributionSummary(view, '“ball”')).toMatch(
      /computes 1\.500; the parts sum to 1\.500\. Largest heads: L1H1 \+0\.90, L0H0 \+0\.50, L0H1 −0\.25/u,
    );
  });
});

describe('patching', () => {
  it('says plainly when the prompts have different numbers of tokens', () => {
    expect(lengthProblem(['a', 'b'], ['a', 'c'])).toBeNull();
    expect(lengthProblem([], [])).toMatch(/^The clean prompt has no tokens/u);
    expect(lengthProblem(['a'], [])).toMatch(/^The corrupted prompt has no tokens/u);
    expect(lengthProblem(['a', 'b'], ['a', 'b', 'c'])).toMatch(
      /^The clean prompt has 2 tokens and the corrupted one 3/u,
    );
  });

  it('makes the grid so far (NaN: to come) and names the cells that restore the metric', () => {
    const scores = tensor([0, 1, 0.05, NaN, NaN, NaN], [2, 3]);
    const grid = sweepGrid(scores, 'input', ['the', 'red', 'ball']);
    expect(grid).toMatchObject({ rowLabels: ['L0', 'L1'], columns: ['the', 'red', 'ball'], done: 3, total: 6 });
    expect(restoringCells(grid, 'input')).toEqual(['L0 at 1 “red” 1.00']);
    const heads = sweepGrid(tensor([0.72, 0.1, 0.4, 0.2], [2, 2]), 'headOutput', []);
    expect(heads.columns).toEqual(['H0', 'H1']);
    expect(restoringCells(heads, 'headOutput')).toEqual(['L0H0 0.72', 'L1H0 0.40']);
  });
});

describe('head scores', () => {
  const scores = {
    previousToken: tensor([0.1, 0.6, 0.05, NaN], [2, 2]),
    duplicateToken: tensor([0.02, 0.01, 0.4, 0.02], [2, 2]),
    induction: tensor([0.01, 0.0, 0.35, 0.8], [2, 2]),
  };
  const rows = scoreRows(scores);

  it('makes one row per head named from 0, sorts by any column (NaN last), and marks the heads that score', () => {
    expect(rows.map((r) => r.name)).toEqual(['L0H0', 'L0H1', 'L1H0', 'L1H1']);
    expect(sortRows(rows, 'previousToken', true).map((r) => r.name)).toEqual(['L0H1', 'L0H0', 'L1H0', 'L1H1']);
    expect(sortRows(rows, 'previousToken', false).map((r) => r.name)).toEqual(['L1H0', 'L0H0', 'L0H1', 'L1H1']);
    expect(sortRows(rows, 'name', true).map((r) => r.name)).toEqual(['L1H1', 'L1H0', 'L0H1', 'L0H0']);
    expect(topHeads(rows, 'induction', 1)[0].name).toBe('L1H1');
    const marks = headMarks(rows);
    expect([...marks.keys()]).toEqual(['0.1', '1.0', '1.1']);
    expect(marks.get('1.0')).toMatchObject({ kind: 'duplicateToken', score: Math.fround(0.4) });
    // each kind on its own scale: half its highest score, and at least the floor
    const low = scoreRows({ ...scores, induction: tensor([0.04, 0.25, 0.16, 0.1], [2, 2]) });
    expect([...headMarks(low).entries()].map(([k, m]) => `${k} ${m.kind}`)).toEqual([
      '0.1 previousToken',
      '1.0 duplicateToken',
    ]);
    const faint = scoreRows({
      previousToken: tensor([0.1, 0.12], [1, 2]),
      duplicateToken: tensor([0, 0], [1, 2]),
      induction: tensor([0, 0], [1, 2]),
    });
    expect(headMarks(faint).size).toBe(0); // under the floor: nothing stands out
    expect(scoresSummary(rows)).toBe(
      'previous token: L0H1 (0.60); duplicate token: L1H0 (0.40); induction: L1H1 (0.80)',
    );
  });

  it('makes random sequences written twice, past the first ids, the same for the same seed', () => {
    const seqs = repeatedSequences(320);
    expect(seqs).toHaveLength(4);
    for (const s of seqs) {
      expect(s).toHaveLength(24);
      expect(s.slice(12)).toEqual(s.slice(0, 12));
      expect(new Set(s.slice(0, 12)).size).toBe(12);
      expect(Math.min(...s)).toBeGreaterThanOrEqual(10);
      expect(Math.max(...s)).toBeLessThan(320);
    }
    expect(repeatedSequences(320)).toEqual(seqs);
    expect(repeatedSequences(8, { half: 4 })[0].every((id) => id >= 4 && id < 8)).toBe(true);
  });
});

describe('loss', () => {
  it('pairs each prediction with the token it predicts, with p = exp(−loss)', () => {
    const rows = lossRows(['the', 'cat', 'sat'], Float32Array.from([2, 0.5]));
    expect(rows).toEqual([
      { position: 0, token: 'the', next: 'cat', loss: 2, p: Math.exp(-2) },
      { position: 1, token: 'cat', next: 'sat', loss: 0.5, p: Math.exp(-0.5) },
    ]);
    expect(lossScale(rows)).toBe(2);
    expect(lossScale([{ loss: 0.1 }])).toBe(Math.LN2);
  });
});

describe('tokens typed', () => {
  const index = tokenIndex(['<|endoftext|>', 'ĠMary', 'ĠJohn', 'mary', 'Mary']);

  it('reads an id, a word as the vocabulary spells it, with a leading space, or lower-cased', () => {
    expect(readToken('3', index, 5)).toEqual({ id: 3 });
    expect(readToken(' Mary', index, 5)).toEqual({ id: 1 });
    expect(readToken('Mary', index, 5)).toEqual({ id: 4 });
    expect(readToken('John', index, 5)).toEqual({ id: 2 });
    expect(readToken('MARY', index, 5)).toEqual({ id: 3 });
  });

  it('says why a token typed is none', () => {
    expect(readToken('9', index, 5).problem).toMatch(/Token id 9 is not in this vocabulary \(ids 0 to 4\)/u);
    expect(readToken('Bob', index, 5).problem).toMatch(/“Bob” is not one token of this vocabulary/u);
    expect(readToken('Bob', tokenIndex([]), 5).problem).toMatch(/no tokenizer\.json/u);
    expect(readToken('  ', index, 5).problem).toMatch(/Type a token/u);
  });

  it('reads a target: a alone, a − b, the predicted token when a is empty', () => {
    expect(readTarget('', '', index, 5, 2)).toEqual({ target: [2] });
    expect(readTarget(' Mary', ' John', index, 5, 0)).toEqual({ target: [1, 2] });
    expect(readTarget('Mary', 'Mary', index, 5, 0).problem).toMatch(/the same token/u);
    expect(readTarget('Bob', '', index, 5, 0).problem).toMatch(/^Token a: /u);
    expect(readTarget('', 'Bob', index, 5, 0).problem).toMatch(/^Token b: /u);
    expect(targetText([1, 2], (id) => ['x', 'Mary', 'John'][id])).toBe('“Mary” − “John”');
  });
});
