// The parts of an element's figure on a real model that the examples' figures lack: a row of numbered buttons (the
// layer and head pickers), the model view (every layer × head as a small heatmap, as bertviz's model view, with one
// readout for all), the next-token list, and their stylesheet (constructable, so a strict style-src allows it).
import { el } from '../view/dom.js';
import { HeatmapGrid } from './heatmapGrid.js';

const RULES = `
.mv { display: grid; gap: 0.35rem 0.5rem; align-items: start; overflow-x: auto; }
.mv .corner, .mv .lh, .mv .ll { font-size: 0.75rem; color: var(--aw-muted); }
.mv .lh { text-align: center; }
.mv .ll { align-self: center; white-space: nowrap; }
.mv .hm { max-width: none; min-width: 3.2rem; gap: 0; }
.mv .hm .lab, .mv .hm [role="columnheader"] { display: none; }
.mv .legend { display: none; }
.mv .off { opacity: 0.35; }
.next { margin: 0.7rem 0 0; }
.next figcaption { font-size: 0.85rem; font-weight: 600; margin-bottom: 0.25rem; }
.next ol { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.15rem; max-width: 26rem;
  grid-template-columns: minmax(4rem, max-content) 1fr 3.5rem; align-items: center; font-size: 0.85rem; }
.next li { display: contents; }
.next .tok { font-family: var(--aw-mono); padding-right: 0.5rem; overflow-wrap: anywhere; }
.next .pwrap { background: var(--aw-panel); border-radius: 2px; height: 0.7rem; }
.next .pbar { display: block; height: 100%; background: var(--aw-accent); border-radius: 2px; }
.next .pct { text-align: right; font-variant-numeric: tabular-nums; color: var(--aw-muted); }
progress { width: min(16rem, 80%); margin-top: 0.4rem; }
.pending:has(progress:not([hidden])) { align-content: center; justify-items: center; }`;

let sheet = null;

/** The stylesheet of these parts (made once per page), adopted beside the elements' own. */
export function modelSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(RULES);
  }
  return sheet;
}

/** A row of numbered buttons choosing one of `count` (a layer or a head); null when there is one. */
export function picker(name, part, count, chosen, onPick) {
  if (count <= 1) return null;
  return el(
    'div',
    { class: 'heads', attrs: { part, role: 'group', 'aria-label': `${name} shown` } },
    el('span', { text: `${name}:` }),
    Array.from({ length: count }, (_, k) =>
      el('button', {
        type: 'button',
        text: String(k + 1),
        attrs: { 'aria-pressed': String(k === chosen), 'aria-label': `${name.toLowerCase()} ${k + 1} of ${count}` },
        on: { click: () => onPick(k) },
      }),
    ),
  );
}

/**
 * The model view: a grid of every layer's heads, each a small heatmap of its weights (query rows, key columns),
 * focusable and read out by the arrow keys as the other heatmaps; one readout line for all.
 */
export function drawModelView({ result, labels, causal, spec, settings }) {
  const n = labels.length;
  const size = n * n;
  const readout = el('p', {
    class: 'readout',
    text: 'Hover over a cell, or focus a head’s heatmap and use the arrow keys, to read its weight.',
    attrs: { part: 'readout', 'aria-live': 'polite' },
  });
  const grid = el('div', { class: 'mv', attrs: { part: 'model-view' } }, el('span', { class: 'corner' }));
  grid.style.gridTemplateColumns = `max-content repeat(${spec.numHeads}, minmax(3.2rem, 1fr))`; // CSSOM
  for (let h = 0; h < spec.numHeads; h++) grid.append(el('span', { class: 'lh', text: `head ${h + 1}` }));
  const off = new Set(settings.ablate.map(([l, h]) => `${l}.${h}`));
  result.attentions.forEach((weights, l) => {
    grid.append(el('span', { class: 'll', text: `layer ${l + 1}` }));
    for (let h = 0; h < spec.numHeads; h++) {
      const where = `layer ${l + 1} head ${h + 1}${off.has(`${l}.${h}`) ? ' (switched off)' : ''}`;
      const map = new HeatmapGrid({
        label: `Attention weights, ${where}: rows are queries, columns are keys`,
        describe: (i, j, value) =>
          `${where}: query “${labels[i]}” → key “${labels[j]}”: ${causal && j > i ? 'masked' : `weight ${value.toFixed(3)}`}`,
        readout,
      });
      map.update({
        data: weights.data.subarray(h * size, (h + 1) * size),
        rows: n,
        cols: n,
        rowLabels: labels,
        colLabels: labels,
        blocked: (i, j) => causal && j > i,
      });
      map.grid.style.gridTemplateColumns = `repeat(${n}, minmax(0, 1fr))`;
      map.element.classList.toggle('off', off.has(`${l}.${h}`));
      grid.append(map.element);
    }
  });
  return [
    el('p', { class: 'title', attrs: { part: 'title' }, text: 'Attention weights of every layer and head' }),
    el('p', {
      class: 'sub',
      text: `${settings.name} (${spec.family}) · each small map: rows are queries, columns are keys · “${labels.join(' ')}”`,
    }),
    grid,
    el(
      'div',
      { class: 'legend', attrs: { part: 'legend', 'aria-hidden': 'true' } },
      el('span', { text: '0' }),
      el('span', { class: 'bar' }),
      el('span', { text: '1' }),
      el('span', { text: 'attention weight · striped: masked' }),
    ),
    readout,
  ];
}
