// An instrument's figure as a picture (an element's `export` buttons, toSVG() and toPNG()): read off the view as it is
// drawn (its grids' cells with their texts and colours, the lens's line, the scores in the order shown, the loss per
// token), laid out by instrumentLayout.js and written by pictureDraw.js. The page's Investigate tabs use it too. Loaded
// only when a picture is asked for.
import { signedColor, weightColor } from '../../shared/colors.js';
import { formatValue } from '../../shared/format.js';
import { SCORE_KINDS, sortRows } from '../../shared/instruments/headScores.js';
import { own } from '../modelFigureState.js';
import { measure, pngBlob, svgText } from '../pictureDraw.js';
import { instrumentLayout } from './instrumentLayout.js';
import { VIEW_TITLES } from './instrumentSettings.js';

/** A GridView's drawn grid as a panel. */
const gridPanel = (heading, { rowLabels, columns, cells }) => ({
  type: 'grid',
  heading,
  rowLabels,
  columns,
  cells: cells.map((row) =>
    row.map((c) => ({ text: c.text, sub: c.sub, fill: c.color?.css ?? null, light: c.color?.light })),
  ),
});

/** A colour scale's ends and stops: signed (−max … max) or from 0 to max. */
function legend(signed, max, what, digits = 2) {
  const ts = signed ? [-1, -0.5, 0, 0.5, 1] : [0, 0.25, 0.5, 0.75, 1];
  const stops = ts.map((t) => (signed ? signedColor(t, 1) : weightColor(t)).css);
  return { low: signed ? formatValue(-max, digits) : '0', high: formatValue(max, digits), what, stops };
}

const text = (node) => node?.textContent ?? '';

/** What each view draws, as an InstrumentFigure's lines, panels and legend (instrumentLayout.js). */
const READ = {
  lens: (view) => ({
    lines: [text(view.caption)],
    panels: [
      gridPanel('Top token of each residual at each position', view.grid.shown),
      {
        type: 'line',
        heading: 'p of the token followed, residual by residual',
        values: view.shown.line,
        labels: view.rowLabels.map((l) => l.replace(' (final)', '')),
      },
    ],
    legend: legend(false, 1, 'probability of the top token'),
  }),
  attribution: (view) => {
    const shaped = view.shown;
    const parts = [...shaped.parts, { key: 'total', label: 'total (the run’s logit)', value: shaped.total }];
    const cell = (p) => {
      const c = p.key === 'total' ? null : signedColor(p.value, shaped.maxAbs);
      return [{ text: formatValue(p.value, 3), fill: c?.css ?? '#ffffff', light: c?.light }];
    };
    return {
      lines: [text(view.summary)],
      panels: [
        gridPanel('Heads: layers × heads', view.grid.shown),
        {
          type: 'grid',
          heading: 'The other parts',
          rowLabels: parts.map((p) => p.label),
          columns: ['logit'],
          cells: parts.map(cell),
        },
      ],
      legend: legend(true, shaped.headsMaxAbs, 'the heads’ part of the logit (the other parts: their own scale)'),
    };
  },
  patching: (view) => ({
    lines: [text(view.status)],
    panels: [
      ...(view.grids.input.shown ? [gridPanel('Residual stream: layers × positions', view.grids.input.shown)] : []),
      ...(view.grids.headOutput.shown ? [gridPanel('Head outputs: layers × heads', view.grids.headOutput.shown)] : []),
    ],
    legend: legend(true, 1, 'share of the clean run’s metric restored'),
  }),
  'head-scores': (view) => {
    const rows = sortRows(view.rows, view.sort.key, view.sort.descending);
    const cell = (v) =>
      Number.isNaN(v)
        ? { text: '–', fill: null }
        : { text: v.toFixed(3), fill: weightColor(v).css, light: weightColor(v).light };
    return {
      lines: [text(view.summary)],
      panels: [
        {
          type: 'grid',
          heading: '',
          rowLabels: rows.map((r) => r.name),
          columns: SCORE_KINDS.map((k) => k.name),
          cells: rows.map((r) => SCORE_KINDS.map(({ kind }) => cell(r[kind]))),
        },
      ],
      legend: legend(false, 1, 'score'),
    };
  },
  loss: (view) => {
    const { rows, first, scale } = view.shown;
    const cell = (r) => {
      const c = weightColor(r.loss / scale);
      return { text: r.loss.toFixed(2), fill: c.css, light: c.light };
    };
    return {
      lines: [text(view.summary)],
      panels: [
        {
          type: 'grid',
          heading: 'Each token: −log p(token | the tokens before), nats',
          rowLabels: ['loss'],
          columns: [first, ...rows.map((r) => r.next)],
          cells: [[{ text: '–', fill: null }, ...rows.map(cell)]],
        },
      ],
      legend: legend(false, scale, 'loss (nats)'),
    };
  },
};

/** Whether a view has drawn anything to picture (the page's tabs before they are computed have not). */
const DRAWN = {
  lens: (view) => Boolean(view.shown && view.grid.shown),
  attribution: (view) => Boolean(view.shown && view.grid.shown),
  patching: (view) => Boolean(view.grids.input.shown || view.grids.headOutput.shown),
  'head-scores': (view) => view.rows.length > 0,
  loss: (view) => Boolean(view.shown),
};

/**
 * The figure a view (lensView.js, …) shows, as instrumentLayout.js lays it out, or null before it drew any.
 * @param {'lens' | 'attribution' | 'patching' | 'head-scores' | 'loss'} name
 * @param {object} view  the view object
 * @param {{ sub?: string, caption?: string }} [texts]  the line under the title (the model), the caption
 * @returns {import('./instrumentLayout.js').InstrumentFigure | null}
 */
export function viewFigure(name, view, { sub = '', caption = '' } = {}) {
  if (!DRAWN[name](view)) return null;
  const read = READ[name](view);
  return { title: VIEW_TITLES[name], caption, ...read, lines: [sub, ...read.lines] };
}

/**
 * A figure as SVG text or a PNG Blob (`scale` pixels per CSS pixel).
 * @param {'svg' | 'png'} kind
 */
export function viewPicture(figure, kind, scale) {
  const laid = instrumentLayout(figure, measure);
  return kind === 'svg' ? Promise.resolve(svgText(laid)) : pngBlob(laid, scale);
}

/** The element's instrument (`view`) as SVG text or a PNG Blob: the view as drawn, its caption. */
export async function instrumentPicture(element, kind, scale) {
  const { view, name } = own(element).instrument;
  const sub = text(element.shadowRoot.querySelector('.inv-figure > .sub'));
  return viewPicture(viewFigure(name, view, { sub, caption: element.display.caption }), kind, scale);
}
