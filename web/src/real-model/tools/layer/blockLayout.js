// The block around attention, without the DOM: one layer of a model as its steps in order with their real sizes
// (pre-norm GPT-2 and LLaMA: norm → attention → + residual → norm → MLP → + residual; post-norm BERT: attention →
// + residual → norm → MLP → + residual → norm), each tensor named as a capture names it; and the residual stream's
// norm per layer from hiddenStates. The model's choices and labels come from its spec (model.spec).
// blockView.js draws it.

const size = (shape) => `[${shape.join(' × ')}]`;

/**
 * One layer's parts in order: tensors ({ kind: 'tensor', key, label, shape }, key a capture's) and the operations
 * between them ({ kind: 'norm' | 'attention' | 'add' | 'mlp', label, detail }).
 * @param {{ dModel: number, numHeads: number, numKvHeads: number, headDim: number, dFf: number,
 *   activation: string, mlpBias: boolean, choices: { placement: string }, labels: { activation: string,
 *   norms: string[] } }} spec  model.spec
 * @param {number} n tokens
 */
export function blockParts(spec, n) {
  const { dModel: d, numHeads: H, numKvHeads: Hkv, headDim: dK, dFf: ff } = spec;
  const [norm1, norm2] = spec.labels.norms;
  const tensor = (key, label, cols = d) => ({ kind: 'tensor', key, label, shape: [n, cols] });
  const kv = Hkv === H ? `${H}·${dK}` : `${Hkv}·${dK}, ${Hkv} key-value head${Hkv > 1 ? 's' : ''}`;
  const attention = {
    kind: 'attention',
    label: `attention: ${H} heads of d_k = ${dK}`,
    detail: `W_q ${size([d, H * dK])}, W_k and W_v ${size([d, Hkv * dK])} (${kv}), softmax(q·kᵀ/√${dK})·v per head, W_o ${size([H * dK, d])}`,
  };
  const gate = { siluGated: 'SiLU', geluTanhGated: 'GELU (tanh)' }[spec.activation];
  const up = gate
    ? `${gate}(x·W_gate)·(x·W_up), W_gate and W_up ${size([d, ff])}`
    : `${spec.labels.activation}(x·W_up${spec.mlpBias ? ' + b' : ''}), W_up ${size([d, ff])}`;
  const mlp = [
    { kind: 'mlp', label: 'MLP up', detail: up },
    tensor('mlpHidden', 'the MLP’s activation', ff),
    { kind: 'mlp', label: 'MLP down', detail: `·W_down ${size([ff, d])}` },
    tensor('mlpOutput', 'the MLP’s output'),
  ];
  const norm = (label) => ({ kind: 'norm', label, detail: `over d_model = ${d}` });
  const input = tensor('input', 'the layer’s input (residual stream)');
  // attention, its output and the residual sum: the same in both placements
  const attend = [
    attention,
    tensor('output', 'attention’s output'),
    { kind: 'add', label: '+ residual', detail: 'the layer’s input added' },
    tensor('residual', 'input + attention (residual stream)'),
  ];
  const mlpInput = tensor('mlpInput', 'the MLP’s input');
  const { placement } = spec.choices;
  if (placement === 'sandwich' || placement === 'postBranch') {
    // a norm after each half inside the residual branch (Gemma 2 and 3: before it too; OLMo-2: only after)
    const sandwich = placement === 'sandwich';
    const [before1, after1, before2, after2] = sandwich ? spec.labels.norms : [null, norm1, null, norm2];
    return [
      input,
      ...(sandwich ? [norm(before1), tensor('x', 'attention’s input')] : []),
      attention,
      norm(after1),
      tensor('output', 'attention’s output, normed'),
      { kind: 'add', label: '+ residual', detail: 'the layer’s input added' },
      tensor('residual', 'input + attention (residual stream)'),
      ...(sandwich ? [norm(before2)] : []),
      mlpInput,
      ...mlp.slice(0, 3),
      norm(after2),
      tensor('mlpOutput', 'the MLP’s output, normed'),
      { kind: 'add', label: '+ residual', detail: 'the residual stream added' },
      tensor('hidden', 'the layer’s output (residual stream)'),
    ];
  }
  if (placement === 'postNorm') {
    const last = { kind: 'add', label: `+ residual, then ${norm2}`, detail: 'the MLP’s input added, then normed' };
    return [input, ...attend, norm(norm1), mlpInput, ...mlp, last, tensor('hidden', 'the layer’s output')];
  }
  return [
    input,
    norm(norm1),
    tensor('x', 'attention’s input'),
    ...attend,
    norm(norm2),
    mlpInput,
    ...mlp,
    { kind: 'add', label: '+ residual', detail: 'the residual stream added' },
    tensor('hidden', 'the layer’s output (residual stream)'),
  ];
}

/**
 * The residual stream's size per layer: the mean over tokens of each row's L2 norm, for each of hiddenStates
 * ([n, d] each: the embeddings, then each layer's output).
 * @param {{ data: ArrayLike<number>, shape: number[] }[]} hiddenStates
 * @returns {number[]}
 */
export function residualNorms(hiddenStates) {
  return hiddenStates.map(({ data, shape: [n, d] }) => {
    let total = 0;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let c = 0; c < d; c++) sum += data[i * d + c] ** 2;
      total += Math.sqrt(sum);
    }
    return total / n;
  });
}

/** The mean over rows of each row's L2 norm, of one [n, d] tensor. */
const meanNorm = (tensor) => residualNorms([tensor])[0];

/**
 * The bars of the residual stream's chart, each labelled as what it is: the embeddings (layer 0's input), then each
 * layer's output, layers counted from 0. With `normed` (the run's last hidden state is after the model's final norm,
 * as model.run returns it when it computes the logits), the last bar is that norm's output, and the last layer's own
 * output comes before it from `lastOutput` (its capture's [n, d] `hidden`) when given, or is left out. `current`
 * marks layer `layer`'s input and output.
 * @param {{ data: ArrayLike<number>, shape: number[] }[]} hiddenStates  a run's (num_layers + 1)
 * @param {{ layer: number, normed: boolean, lastOutput?: { data: ArrayLike<number>, shape: number[] } | null }} how
 * @returns {{ value: number, label: string, what: string, current: boolean }[]}
 */
export function normBars(hiddenStates, { layer, normed, lastOutput = null }) {
  const L = hiddenStates.length - 1;
  const norms = residualNorms(hiddenStates);
  const output = (l, value) => ({ value, label: `L${l}`, what: `layer ${l}'s output`, current: l === layer });
  const bars = [{ value: norms[0], label: 'emb', what: "the embeddings (layer 0's input)", current: layer === 0 }];
  for (let i = 1; i < L; i++) bars.push({ ...output(i - 1, norms[i]), current: i - 1 === layer || i === layer });
  if (!normed) return [...bars, output(L - 1, norms[L])];
  if (lastOutput) bars.push(output(L - 1, meanNorm(lastOutput)));
  const what = `after the final norm: layer ${L - 1}'s output normed, as the LM head reads it`;
  return [...bars, { value: norms[L], label: 'final', what, current: false }];
}

/**
 * The first `cols` columns of a [n, width] tensor's rows, for a compact table; `more` counts the columns left out.
 * @returns {{ rows: number[][], more: number }}
 */
export function tensorPreview({ data, shape: [n, width] }, cols = 8) {
  const shown = Math.min(cols, width);
  const rows = Array.from({ length: n }, (_, i) => Array.from({ length: shown }, (_, c) => data[i * width + c]));
  return { rows, more: width - shown };
}
