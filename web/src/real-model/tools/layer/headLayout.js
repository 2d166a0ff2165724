// The head view's layout (bertviz's head view), without the DOM: one layer's weights [H, n, n] as lines from each
// query token (left column) to the keys it attends to (right column), one colour per head, and what a hovered or
// focused token keeps. headView.js draws it.

// Tableau 10: distinct for most colour-vision deficiencies, and readable on the page's light and dark panels.
const HEAD_COLORS = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];

/** Head h's colour: Tableau 10, then hues a golden angle apart. */
export function headColor(h) {
  return h < HEAD_COLORS.length ? HEAD_COLORS[h] : `hsl(${Math.round((h * 137.508) % 360)} 60% 55%)`;
}

/** Lines lighter than this are left out (they would draw as nothing, and a layer of GPT-2 has H·n² of them). */
export const MIN_WEIGHT = 0.02;

/**
 * The lines to draw: head h's weight w[h, i, j] as a line from query i to key j, for the chosen heads; with a focus,
 * only the lines from that query (side 'left') or into that key (side 'right'). Sorted lightest first, so that the
 * heaviest are drawn on top.
 * @param {{ data: ArrayLike<number>, shape: number[] }} weights  [H, n, n]
 * @param {{ heads: Iterable<number>, focus?: { side: 'left' | 'right', token: number } | null, minWeight?: number }} o
 * @returns {{ head: number, i: number, j: number, weight: number }[]}
 */
export function headLines(weights, { heads, focus = null, minWeight = MIN_WEIGHT }) {
  const [, n] = weights.shape;
  const lines = [];
  for (const h of heads) {
    for (let i = 0; i < n; i++) {
      if (focus?.side === 'left' && focus.token !== i) continue;
      for (let j = 0; j < n; j++) {
        if (focus?.side === 'right' && focus.token !== j) continue;
        const weight = weights.data[(h * n + i) * n + j];
        if (weight >= minWeight) lines.push({ head: h, i, j, weight });
      }
    }
  }
  return lines.sort((a, b) => a.weight - b.weight || a.head - b.head);
}

/**
 * With a focus, how much each token of the other column takes part: the mean over the chosen heads of the focused
 * query's weight on each key (or each query's weight on the focused key), in [0, 1]; null without a focus.
 * @returns {Float64Array | null}  [n]
 */
export function focusShares(weights, { heads, focus }) {
  if (!focus) return null;
  const [, n] = weights.shape;
  const chosen = [...heads];
  const shares = new Float64Array(n);
  if (!chosen.length) return shares;
  for (const h of chosen) {
    for (let t = 0; t < n; t++) {
      const [i, j] = focus.side === 'left' ? [focus.token, t] : [t, focus.token];
      shares[t] += weights.data[(h * n + i) * n + j] / chosen.length;
    }
  }
  return shares;
}

/**
 * The focused token's strongest links, for the screen-reader readout: up to `count` { head, token, weight }, the
 * heaviest first, over the chosen heads.
 */
export function strongestLinks(weights, { heads, focus, count = 3 }) {
  if (!focus) return [];
  return headLines(weights, { heads, focus, minWeight: 0 })
    .reverse()
    .slice(0, count)
    .map(({ head, i, j, weight }) => ({ head, token: focus.side === 'left' ? j : i, weight }));
}
