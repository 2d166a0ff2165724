// A layer's two calls (layer-call.js) are each given the weights of their half only, as the core lists them (abi.h's
// ATTENTION_LAYER_*_WEIGHTS, generated into model-abi.js; tests/native/model_halves_test.cc holds the lists to what
// forward.cc reads): read weights as inputs, resident ones as addresses in the descriptor, alike. When the resident
// path passed every address to both calls, a weight missing from a list failed for models read at every run only.
import { describe, expect, it } from 'vitest';
import { LAYER_ATTENTION_WEIGHTS, LAYER_MLP_WEIGHTS } from '../../../src/js/generated/model-abi.js';
import { halfWeights, runLayer } from '../../../src/js/model/layer-call.js';

const WEIGHTS = [...new Set([...Object.keys(LAYER_ATTENTION_WEIGHTS), ...Object.keys(LAYER_MLP_WEIGHTS)])];
const n = 2;
const d = 4;
const tensor = (name) => ({ data: new Float32Array(n * d), shape: [n, d], name });

/** The plans runLayer makes for a layer whose every weight is read (inputs) or resident (addresses in dims). */
function plansOf(placement, resident) {
  const plans = [];
  const run = (plan) => {
    plans.push(plan);
    return Object.fromEntries(Object.entries(plan.outputs).map(([key, shape]) => [key, tensor(key, shape)]));
  };
  const inputs = { x: tensor('x'), ropeCos: tensor('cos'), ropeSin: tensor('sin'), edits: tensor('edits') };
  const dims = { lenQ: n, dModel: d, editCount: 1 };
  WEIGHTS.forEach((slot, i) => {
    if (resident) dims[slot] = 1024 * (i + 1);
    else inputs[slot] = tensor(slot);
  });
  const spec = { dModel: d, choices: { placement } };
  runLayer(run, spec, n, { inputs, dims, outputs: { output: [n, d] }, causal: true });
  return plans;
}

/** The weights a plan gives its call, as inputs or as addresses. */
const weightsOf = (plan) =>
  [...Object.keys(plan.inputs), ...Object.keys(plan.dims)].filter((key) => WEIGHTS.includes(key)).sort();

describe.each(['preNorm', 'postNorm'])('a %s layer', (placement) => {
  const attention = [...halfWeights(LAYER_ATTENTION_WEIGHTS, placement)].sort();
  const mlp = [...halfWeights(LAYER_MLP_WEIGHTS, placement)].sort();

  it('splits its weights between the halves: each weight to one half', () => {
    expect([...attention, ...mlp].sort()).toEqual([...WEIGHTS].sort());
    expect(attention.includes('norm1Weight')).toBe(placement === 'preNorm');
    expect(mlp.includes('norm1Weight')).toBe(placement === 'postNorm');
  });

  it.each([
    ['read at every run (inputs)', false],
    ['resident (addresses)', true],
  ])('gives each call its own weights only, %s', (_, resident) => {
    const [first, second] = plansOf(placement, resident);
    expect(first.kind).toBe('modelAttention');
    expect(weightsOf(first)).toEqual(attention);
    expect(second.kind).toBe('modelMlp');
    expect(weightsOf(second)).toEqual(mlp);
    // the other inputs: RoPE's tables to the attention only, the edits to both, x as each half's input
    expect(Object.keys(first.inputs).filter((k) => !WEIGHTS.includes(k))).toEqual(['x', 'ropeCos', 'ropeSin', 'edits']);
    expect(
      Object.keys(second.inputs)
        .filter((k) => !WEIGHTS.includes(k))
        .sort(),
    ).toEqual(['edits', 'x']);
    expect(second.inputs.x.name).toBe('the residual sum');
  });
});
