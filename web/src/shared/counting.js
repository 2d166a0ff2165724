// How the page and the elements count layers and heads: from 0, as the API, TransformerLens, CircuitsVis and the
// literature do ("L0H2"). Also how a layer, head or list of heads written for an older version, which counted from
// 1, is recognised: one that does not fit a model counted from 0 but fits counted from 1. Pure: no DOM.

/** "L0H2": layer 0, head 2. */
export const headName = (layer, head) => `L${layer}H${head}`;

/** "layer 0 head 2". */
export const headWords = (layer, head) => `layer ${layer} head ${head}`;

/** "L1H0, L1H2": a list of [layer, head] pairs (heads switched off). */
export const headNames = (pairs) => pairs.map(([layer, head]) => headName(layer, head)).join(', ');

/**
 * A layer, head and heads switched off as someone wrote them (a link, an element's attributes), against the counts
 * of a model: used as written when every one fits counted from 0; read counted from 1 (`fromOne`) when some do not
 * fit that way but all fit counted from 1, as the labels of the page's older versions did; else what fits from 0 is
 * kept and the rest is named in `outside` (as written: { name: 'layer', text: '7' }, { name: 'ablate', text: '3.1' }).
 * @param {{ layer?: number | null, head?: number | null, ablate?: number[][] }} written  null or absent: not given
 * @param {{ numLayers?: number, numHeads: number }} counts  numLayers absent: no layer (a figure of one layer)
 * @returns {{ layer: number | null, head: number | null, ablate: number[][], fromOne: boolean,
 *   outside: { name: 'layer' | 'head' | 'ablate', text: string }[] }}
 */
export function readCounts({ layer = null, head = null, ablate = [] }, { numLayers = 1, numHeads }) {
  const inLayers = (l, shift) => l - shift >= 0 && l - shift < numLayers;
  const inHeads = (h, shift) => h - shift >= 0 && h - shift < numHeads;
  const fits = (shift) =>
    (layer === null || inLayers(layer, shift)) &&
    (head === null || inHeads(head, shift)) &&
    ablate.every(([l, h]) => inLayers(l, shift) && inHeads(h, shift));
  const less = (value) => (value === null ? null : value - 1);
  if (fits(0)) return { layer, head, ablate, fromOne: false, outside: [] };
  if (fits(1)) {
    const shifted = ablate.map(([l, h]) => [l - 1, h - 1]);
    return { layer: less(layer), head: less(head), ablate: shifted, fromOne: true, outside: [] };
  }
  const outside = [];
  if (layer !== null && !inLayers(layer, 0)) outside.push({ name: 'layer', text: String(layer) });
  if (head !== null && !inHeads(head, 0)) outside.push({ name: 'head', text: String(head) });
  const kept = ablate.filter(([l, h]) => {
    const ok = inLayers(l, 0) && inHeads(h, 0);
    if (!ok) outside.push({ name: 'ablate', text: `${l}.${h}` });
    return ok;
  });
  return {
    layer: layer !== null && inLayers(layer, 0) ? layer : null,
    head: head !== null && inHeads(head, 0) ? head : null,
    ablate: kept,
    fromOne: false,
    outside,
  };
}

/** "layers 0 to 1, heads 0 to 3": what a model's counts allow, for messages. */
export function countsText({ numLayers, numHeads }) {
  const range = (count, word) => (count === 1 ? `${word} 0` : `${word}s 0 to ${count - 1}`);
  return numLayers === undefined ? range(numHeads, 'head') : `${range(numLayers, 'layer')}, ${range(numHeads, 'head')}`;
}
