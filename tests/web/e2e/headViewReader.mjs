// Reading the head view (web/src/real-model/tools/layer/headView.js) in a page test: the lines drawn, and the opacities a layer's
// weights give them.

const MIN_WEIGHT = 0.02; // web/src/real-model/tools/layer/headLayout.js

/** The lines shown under `root` (hidden groups left out): { y1, y2, opacity, stroke } each. */
export const readLines = (page, root = '') =>
  page.$$eval(`${root} .head-view-lines line`, (lines) =>
    lines
      .filter((l) => l.parentNode.style.display !== 'none')
      .map((l) => ({
        y1: Number(l.getAttribute('y1')),
        y2: Number(l.getAttribute('y2')),
        opacity: Number(l.getAttribute('stroke-opacity')),
        stroke: l.getAttribute('stroke'),
      })),
  );

/** How many of the weights [H, n, n] (a flat array) the view draws. */
export const drawnCount = (weights) => Array.from(weights).filter((w) => w >= MIN_WEIGHT).length;

/** The opacities of the lines from query `token` (side 'left') or into key `token` ('right'), sorted. */
export function expectedOpacities(weights, [H, n], { side, token }, heads = [...Array(H).keys()]) {
  const values = [];
  for (const h of heads) {
    for (let t = 0; t < n; t++) {
      const w = side === 'left' ? weights[(h * n + token) * n + t] : weights[(h * n + t) * n + token];
      if (w >= MIN_WEIGHT) values.push(Number(Math.min(1, w).toFixed(3)));
    }
  }
  return values.sort((a, b) => a - b);
}

/** The sorted opacities of lines. */
export const opacitiesOf = (lines) => lines.map((l) => l.opacity).sort((a, b) => a - b);
