// Direct logit attribution (TransformerLens's decompose_resid + logit_attrs), shaped for the page: model.attribute's
// result as a layers × heads grid with its scale, the other parts (embeddings, each layer's attention bias and MLP,
// the final norm's bias) as a list beside, the check that the parts sum to the total, and its tables to copy.
// Pure: no DOM.
import { headName } from '../counting.js';
import { gridTable } from './table.js';

/**
 * @param {{ total: number, embeddings: number, heads: { data: Float32Array, shape: number[] }, attnBiases:
 *   Float32Array, mlps: Float32Array, finalBias: number }} a  model.attribute's result
 * @returns {{ L: number, H: number, heads: number[][], maxAbs: number, headsMaxAbs: number, parts: { key: string, label: string,
 *   value: number }[], total: number, sum: number, top: { layer: number, head: number, value: number }[] }}
 */
export function attributionView(a) {
  const [L, H] = a.heads.shape;
  const heads = Array.from({ length: L }, (_, l) => Array.from(a.heads.data.subarray(l * H, (l + 1) * H)));
  const parts = [
    { key: 'embeddings', label: 'embeddings (token + position)', value: a.embeddings },
    ...Array.from({ length: L }, (_, l) => [
      { key: `mlp${l}`, label: `L${l} MLP`, value: a.mlps[l] },
      { key: `bias${l}`, label: `L${l} attention bias`, value: a.attnBiases[l] },
    ]).flat(),
    { key: 'finalBias', label: 'final norm bias', value: a.finalBias },
  ];
  const all = [...heads.flat(), ...parts.map((p) => p.value)];
  const sum = all.reduce((s, v) => s + v, 0);
  const maxAbs = Math.max(0, ...all.map(Math.abs));
  const headsMaxAbs = Math.max(0, ...heads.flat().map(Math.abs)); // the heads' own scale: an MLP may dwarf them
  const top = heads
    .flatMap((row, layer) => row.map((value, head) => ({ layer, head, value })))
    .sort((x, y) => Math.abs(y.value) - Math.abs(x.value))
    .slice(0, 3);
  return { L, H, heads, maxAbs, headsMaxAbs, parts, total: a.total, sum, top };
}

/** The heads' grid as a table (rows L0…, columns H0…), and the other parts with the total as another. */
export function attributionTables(view, targetName) {
  const { L, H, heads } = view;
  const grid = gridTable(
    `direct logit attribution of ${targetName}: heads`,
    'layer',
    Array.from({ length: L }, (_, l) => `L${l}`),
    Array.from({ length: H }, (_, h) => `H${h}`),
    heads.flat(),
  );
  const parts = {
    title: `direct logit attribution of ${targetName}: every part`,
    labelName: 'part',
    columns: ['logit'],
    rows: [
      ...heads.flatMap((row, l) => row.map((v, h) => ({ label: headName(l, h), values: [v] }))),
      ...view.parts.map((p) => ({ label: p.label, values: [p.value] })),
      { label: 'total', values: [view.total] },
    ],
  };
  return { grid, parts };
}

/** What the grid says in one sentence: the largest heads, and the parts' sum against the run's total. */
export function attributionSummary(view, targetName) {
  const heads = view.top.map((t) => `${headName(t.layer, t.head)} ${signed(t.value)}`).join(', ');
  return `${targetName}: the run computes ${view.total.toFixed(3)}; the parts sum to ${view.sum.toFixed(3)}. Largest heads: ${heads}.`;
}

const signed = (v) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(2)}`;
