// One floating tooltip for the whole page, placed with CSSOM (allowed under a strict CSP).
import { el } from '../shared/dom.js';

let tip = null;

function node() {
  if (!tip) {
    tip = el('div', { class: 'tooltip', attrs: { role: 'tooltip', 'aria-hidden': 'true' } });
    tip.hidden = true;
    document.body.append(tip);
  }
  return tip;
}

/**
 * Shows lines of text next to a point (client coordinates) or below an element.
 * @param {string[]} lines
 * @param {{ x: number, y: number } | Element} at
 */
export function showTooltip(lines, at) {
  const t = node();
  t.replaceChildren(
    ...lines.map((line, i) => el('div', { class: i === 0 ? 'tooltip-head' : 'tooltip-line', text: line })),
  );
  t.hidden = false;
  let x;
  let y;
  if (at instanceof Element) {
    const box = at.getBoundingClientRect();
    x = box.left;
    y = box.bottom + 6;
  } else {
    x = at.x + 14;
    y = at.y + 16;
  }
  const width = t.offsetWidth;
  const height = t.offsetHeight;
  const maxX = document.documentElement.clientWidth - width - 8;
  if (y + height > window.innerHeight - 8) y = Math.max(8, y - height - 36);
  t.style.left = `${Math.max(8, Math.min(x, maxX))}px`;
  t.style.top = `${y}px`;
}

/** Hides the tooltip. */
export function hideTooltip() {
  if (tip) tip.hidden = true;
}
