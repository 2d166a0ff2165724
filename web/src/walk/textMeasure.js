// Text widths the grids size their columns by, measured once and cached.
import { el } from '../shared/dom.js';

let charWidth = 0;
let labelContext = null;
const labelWidths = new Map();

/** The width of a digit in the grid's monospace font, measured once. */
export function digitWidth() {
  if (!charWidth) {
    const probe = el('div', { class: 'grid-probe' }, el('span', { class: 'c', text: '0'.repeat(20) }));
    document.body.append(probe);
    charWidth = probe.firstChild.getBoundingClientRect().width / 20 || 7.5;
    probe.remove();
  }
  return charWidth;
}

/** The widest of the labels in the row-header font, in CSS pixels (no layout involved). */
export function labelWidth(labels) {
  const key = labels.join('\u0000');
  if (labelWidths.has(key)) return labelWidths.get(key);
  if (!labelContext) {
    labelContext = document.createElement('canvas').getContext('2d');
    labelContext.font = `600 12px ${getComputedStyle(document.body).fontFamily}`;
  }
  let widest = 0;
  for (const label of labels) widest = Math.max(widest, labelContext.measureText(label).width);
  if (labelWidths.size > 64) labelWidths.clear();
  labelWidths.set(key, Math.ceil(widest));
  return Math.ceil(widest);
}
