// An element's figure as a picture: the heatmap with its title, token labels, highlight, colour scale and caption,
// laid out once as a list of shapes, then written as SVG (every text escaped, never markup) or drawn on a canvas for a
// PNG by pictureDraw.js. Loaded only when a picture is asked for.
import { signedColor, weightColor } from '../shared/colors.js';
import { headName } from '../shared/counting.js';
import { wrapText } from '../shared/format.js';
import { shortLabel } from '../shared/tokens.js';
import { TITLES, largest, legendTexts, weightsView } from './heatmapGrid.js';
import { MUTED, PAD, font, measure, pngBlob, svgText } from './pictureDraw.js';

export { download } from './pictureDraw.js';

/** A label cut with an ellipsis to fit `room` px. */
function fit(label, size, room) {
  let max = Array.from(label).length;
  while (max > 2 && measure(shortLabel(label, max), font(size)) > room) max--;
  return shortLabel(label, max);
}

/**
 * The figure an element exports: its heatmap (for an explorer, the weights' of the head shown), its title, caption
 * and highlight.
 * @param {import('./base.js').AttentionElement} element  ready
 */
export function figureOf(element) {
  const { currentState: state, result, display, marks } = element;
  if (!state && element.modelFigure?.shown) return modelFigureOf(element);
  const values = element.localName === 'attention-heatmap' ? display.values : 'weights';
  const head = state.numHeads > 1 ? `, head ${state.head} of ${state.numHeads}` : '';
  const sentence = element.localName === 'attention-heatmap' ? ` of “${state.sentence}”` : '';
  return {
    ...weightsView(state, result[values], state.head),
    values,
    title: `${TITLES[values]}${sentence}${head}`,
    caption: display.caption,
    marked: marks?.marked ?? null,
  };
}

/** The figure of an element on a real model (modelFigure.js): the head shown, or the first of the model view. */
function modelFigureOf({ result, display, modelFigure, marks }) {
  const { settings, labels, causal } = modelFigure.shown;
  const values = display.values;
  const n = labels.length;
  const head = settings.modelView ? 0 : settings.head;
  const layer = settings.modelView ? result.attentions.length - 1 : settings.layer;
  const data = (settings.modelView ? result.attentions[layer] : result[values]).data;
  return {
    data: data.subarray(head * n * n, (head + 1) * n * n),
    rows: n,
    cols: n,
    rowLabels: labels,
    colLabels: labels,
    blocked: (i, j) => causal && j > i,
    values: settings.modelView ? 'weights' : values,
    title: `${TITLES[values]} of ${settings.name}, ${headName(layer, head)}`,
    caption: display.caption,
    marked: settings.modelView ? null : (marks?.marked ?? null),
  };
}

/**
 * The shapes of a figure, in CSS pixels.
 * @param {{ data: ArrayLike<number>, rows: number, cols: number, rowLabels: string[], colLabels: string[],
 *   blocked?: (i: number, j: number) => boolean, values: 'weights' | 'scores', title: string, caption: string,
 *   marked: ((i: number, j: number) => boolean) | null }} figure
 * @returns {{ width: number, height: number, shapes: object[] }}
 */
export function layout(figure) {
  const { data, rows, cols, rowLabels, colLabels, blocked, values, marked } = figure;
  const cell = Math.max(10, Math.min(44, Math.floor(480 / Math.max(rows, cols))));
  const labelSize = Math.max(9, Math.min(13, Math.round(cell * 0.55)));
  const widest = Math.max(...[...rowLabels, ...colLabels].map((l) => measure(l, font(labelSize))));
  const labels = Math.min(110, Math.ceil(widest)) + 8;
  const [low, high, what] = legendTexts(figure, largest(figure));
  // Wide enough for the grid and for the colour scale's line (a 160 px bar, then what it shows).
  const width = Math.max(PAD * 2 + labels + cell * cols, PAD * 2 + labels + 170 + measure(what, font(11)), 360);
  const shapes = [];
  const text = (x, y, value, size, extra = {}) => shapes.push({ type: 'text', x, y, text: value, size, ...extra });
  let y = PAD;
  for (const line of wrapText(figure.title, width - 2 * PAD, (t) => measure(t, font(16, 600)))) {
    text(PAD, y + 10, line, 16, { weight: 600 });
    y += 22;
  }
  text(PAD, y + 8, 'rows: queries · columns: keys', 12, { fill: MUTED });
  y += 22;
  const left = PAD + labels;
  const top = y + labels;
  rowLabels.forEach((label, i) =>
    text(left - 6, top + (i + 0.5) * cell, fit(label, labelSize, labels - 8), labelSize, { anchor: 'end' }),
  );
  colLabels.forEach((label, j) =>
    text(left + (j + 0.5) * cell, top - 6, fit(label, labelSize, labels - 8), labelSize, { rotate: true }),
  );
  const max = largest(figure);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const v = data[i * cols + j];
      const box = { x: left + j * cell, y: top + i * cell, w: cell, h: cell };
      if (blocked?.(i, j)) shapes.push({ type: 'hatch', ...box });
      else
        shapes.push({
          type: 'rect',
          ...box,
          fill: (values === 'scores' ? signedColor(v, max) : weightColor(v)).css,
          cell: true,
        });
    }
  }
  // The highlight: the outline of each marked region (an edge where a marked cell meets an unmarked one).
  const on = (i, j) => Boolean(marked) && i >= 0 && j >= 0 && i < rows && j < cols && marked(i, j);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      if (!on(i, j)) continue;
      const [x0, y0, x1, y1] = [left + j * cell, top + i * cell, left + (j + 1) * cell, top + (i + 1) * cell];
      const edges = [
        [!on(i - 1, j), x0, y0, x1, y0],
        [!on(i + 1, j), x0, y1, x1, y1],
        [!on(i, j - 1), x0, y0, x0, y1],
        [!on(i, j + 1), x1, y0, x1, y1],
      ];
      for (const [drawn, ...line] of edges) if (drawn) shapes.push({ type: 'line', line });
    }
  }
  y = top + rows * cell + 14;
  const stops =
    values === 'scores'
      ? [-1, -0.5, 0, 0.5, 1].map((t) => signedColor(t, 1).css)
      : [0, 0.25, 0.5, 0.75, 1].map((t) => weightColor(t).css);
  shapes.push({ type: 'gradient', x: left, y, w: 160, h: 10, stops });
  text(left, y + 22, low, 11, { fill: MUTED });
  text(left + 160, y + 22, high, 11, { fill: MUTED, anchor: 'end' });
  text(left + 170, y + 5, what, 11, { fill: MUTED });
  y += 36;
  if (figure.caption) {
    y += 4;
    for (const line of wrapText(figure.caption, width - 2 * PAD, (t) => measure(t, font(13)))) {
      text(PAD, y + 8, line, 13);
      y += 18;
    }
  }
  return { width: Math.ceil(width), height: Math.ceil(y + PAD), shapes };
}

/**
 * The figure as SVG text or a PNG Blob.
 * @param {'svg' | 'png'} kind
 * @param {number} [scale]  the PNG's pixels per CSS pixel, 0.5 to 4 (default 2)
 * @returns {Promise<string | Blob>}
 */
export async function picture(figure, kind, scale) {
  return kind === 'svg' ? svgText(layout(figure)) : pngBlob(layout(figure), scale);
}
