// The output projection W_o: its shape, its edits, its place in the link, and the layer output the library gives.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { pastedMatrix, typedCell } from '../../../../web/src/shared/cellEdits.js';
import { EXAMPLES } from '../../../../web/src/shared/examples.js';
import { attentionCall } from '../../../../web/src/shared/inputs.js';
import { projectionText } from '../../../../web/src/shared/explanations.js';
import { currentMatrix, matrixShape } from '../../../../web/src/shared/matrices.js';
import { decodeState, encodeState } from '../../../../web/src/shared/link.js';
import { defaultState, withSizes } from '../../../../web/src/shared/state.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const example = () => EXAMPLES.find((e) => e.id === 'projection').state();
const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((sum, v, k) => sum + v * b[k][j], 0)));

describe('W_o', () => {
  it('is [H·d_v, d_model], random with standard deviation about 1/√(H·d_v)', () => {
    const state = example();
    expect(matrixShape(state, 'wo')).toEqual([6, 8]);
    const big = { ...defaultState(), dModel: 64, dV: 16, numHeads: 4 };
    const values = currentMatrix(big, 'wo').flat();
    const variance = values.reduce((s, v) => s + v * v, 0) / values.length;
    expect(Math.sqrt(variance)).toBeGreaterThan(0.1);
    expect(Math.sqrt(variance)).toBeLessThan(0.15);
  });

  it("the library's output is concat · W_o, to float32 precision", () => {
    const state = example();
    const call = attentionCall(state);
    const result = attn.selfAttention(call.x, call.weights, call.options);
    expect(result.output.shape).toEqual([5, 8]);
    const concat = result.concat.toArray();
    const want = matmul(concat, currentMatrix(state, 'wo'));
    result.output.toArray().forEach((row, i) => row.forEach((v, j) => expect(v).toBeCloseTo(want[i][j], 5)));
  });

  it('a typed cell edits the whole matrix (not a head block), and a paste must have its shape', () => {
    const state = example();
    expect(typedCell(state, 'wo', 5, 7, '2.5').state.wo[5][7]).toBe(2.5);
    expect(typedCell(state, 'wo', 0, 0, 'x').error).toMatch(/^W_o, row 0, column 0: “x” is not a number/u);
    const rows = Array.from({ length: 6 }, () => '1 2 3 4 5 6 7 8').join('\n');
    expect(pastedMatrix(state, 'wo', rows).state.wo[3]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(pastedMatrix(state, 'wo', '1 2\n3 4').error).toBe(
      'W_o needs heads × d_v = 6 rows and d_model = 8 columns, but this matrix is 2×2. Nothing was changed.',
    );
  });

  it('typed rows move with their head when d_v changes', () => {
    const state = typedCell(example(), 'wo', 3, 1, '9').state; // head 2, row 0
    const wider = withSizes(state, { n: 5, dModel: 8, dK: 4, dV: 4, numHeads: 2 });
    expect(wider.wo[4][1]).toBe(9);
    expect(wider.wo).toHaveLength(8);
  });

  it('is in the link when typed, and a link without it (an older one) draws it from the seed', () => {
    const state = typedCell(example(), 'wo', 0, 2, '-1.25').state;
    const hash = encodeState(state);
    expect(hash).toMatch(/&wo=/u);
    expect(decodeState(hash).state.wo).toEqual(state.wo);
    const old = decodeState('#v=1&s=a+b&n=2&dm=2&dk=2&dv=2&x=1,0;0,1');
    expect(old.warnings).toEqual([]);
    expect(old.state.wo).toBeNull();
    expect(decodeState(`${hash.replace(/wo=[^&]*/u, 'wo=1,2')}`).warnings.join(' ')).toMatch(
      /wo=1,2 is not a 6×8 matrix/u,
    );
  });

  it('the text gives the shapes of the state', () => {
    expect(projectionText(example())).toContain('W_o has shape [H·d_v, d_model] = [6, 8]');
    expect(projectionText(example())).toContain("[5, 6] · [6, 8] gives the layer's output [5, 8]");
    expect(projectionText(defaultState())).toMatch(/^With one head, the concatenation is just its output, \[5, 4\]\./u);
  });
});
