// Layers and heads count from 0, as the API and the literature do ("L0H2"); a layer or head written for an older
// version, which counted from 1, is told by the model's sizes. Pure: no DOM.

/** "L0H2": layer 0, head 2. */
export const headName = (layer, head) => `L${layer}H${head}`;

/** "L1H0, L1H2": [layer, head] pairs. */
export const headNames = (pairs) => pairs.map(([l, h]) => headName(l, h)).join(', ');

/**
 * A layer, head and heads switched off as written (null: not given) against a model's sizes (no numLayers: one
 * layer). As written when all fit counted from 0; else counted from 1 (`fromOne`) when all fit so, as an older
 * version's labels did; else what fits is kept and the rest named in `outside` ({ name: 'ablate', text: '3.1' }).
 * @returns {{ layer: number | null, head: number | null, ablate: number[][], fromOne: boolean,
 *   outside: { name: string, text: string }[] }}
 */
export function readCounts({ layer = null, head = null, ablate = [] }, { numLayers = 1, numHeads }) {
  const inL = (l, s) => l - s >= 0 && l - s < numLayers;
  const inH = (h, s) => h - s >= 0 && h - s < numHeads;
  const fits = (s) =>
    (layer === null || inL(layer, s)) &&
    (head === null || inH(head, s)) &&
    ablate.every(([l, h]) => inL(l, s) && inH(h, s));
  const less = (value) => (value === null ? null : value - 1);
  if (fits(0)) return { layer, head, ablate, fromOne: false, outside: [] };
  if (fits(1))
    return {
      layer: less(layer),
      head: less(head),
      ablate: ablate.map(([l, h]) => [l - 1, h - 1]),
      fromOne: true,
      outside: [],
    };
  const outside = [];
  const keep = (value, ok, name) => {
    if (value === null || ok) return value;
    outside.push({ name, text: String(value) });
    return null;
  };
  const kept = {
    layer: keep(layer, layer !== null && inL(layer, 0), 'layer'),
    head: keep(head, head !== null && inH(head, 0), 'head'),
  };
  const off = ablate.filter(([l, h]) => {
    const ok = inL(l, 0) && inH(h, 0);
    if (!ok) outside.push({ name: 'ablate', text: `${l}.${h}` });
    return ok;
  });
  return { ...kept, ablate: off, fromOne: false, outside };
}

/** "layers 0 to 1, heads 0 to 3" (no numLayers: the heads only). */
export function countsText({ numLayers, numHeads }) {
  const range = (count, word) => (count === 1 ? `${word} 0` : `${word}s 0 to ${count - 1}`);
  return numLayers === undefined ? range(numHeads, 'head') : `${range(numLayers, 'layer')}, ${range(numHeads, 'head')}`;
}
