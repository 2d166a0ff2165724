// The parts of an element's figure on a real model that the examples' figures lack: a row of numbered buttons (the
// layer and head pickers), the model view (every layer × head as a small heatmap, as bertviz's model view, with one
// readout for all), the next-token list, and their stylesheet (constructable, so a strict style-src allows it).
import { headName } from '../shared/counting.js';
import { weightColor } from '../shared/colors.js';
import { CPU_CANVAS, el } from '../shared/dom.js';

const RULES = `
.mv { display: grid; gap: 0.35rem 0.5rem; align-items: start; overflow-x: auto; }
.mv .corner, .mv .lh, .mv .ll { font-size: 0.75rem; color: var(--aw-muted); }
.mv .lh { text-align: center; }
.mv .ll { align-self: center; white-space: nowrap; }
.mv .mini { width: 100%; aspect-ratio: 1; image-rendering: pixelated; border-radius: 2px; cursor: pointer; }
.mv .mini:focus-visible { outline: 2px solid var(--aw-focus); outline-offset: 2px; }
.mv .off { opacity: 0.35; }
.heatmap.off .hm { opacity: 0.35; }
.offnote { font-size: 0.8rem; color: var(--aw-muted); margin: 0.25rem 0 0; }
.next { margin: 0.7rem 0 0; }
.next figcaption { font-size: 0.85rem; font-weight: 600; margin-bottom: 0.25rem; }
.next ol { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.15rem; max-width: 26rem;
  grid-template-columns: minmax(4rem, max-content) 1fr 3.5rem; align-items: center; font-size: 0.85rem; }
.next li { display: contents; }
.next .tok { font-family: var(--aw-mono); padding-right: 0.5rem; overflow-wrap: anywhere; }
.next .pwrap { background: var(--aw-panel); border-radius: 2px; height: 0.7rem; }
.next .pbar { display: block; height: 100%; background: var(--aw-accent); border-radius: 2px; }
.next .pct { text-align: right; font-variant-numeric: tabular-nums; color: var(--aw-muted); }
.back { margin: 0 0 0.5rem; }
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
        text: String(k),
        attrs: { 'aria-pressed': String(k === chosen), 'aria-label': `${name.toLowerCase()} ${k} of ${count}` },
        on: { click: () => onPick(k) },
      }),
    ),
  );
}

const KEYS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
const CELL = 8; // canvas pixels per cell; CSS scales the canvas to its column

/**
 * One head's weights as a small canvas (a DOM cell each would be 147 456 nodes for GPT-2 small at 32 tokens): a tab
 * stop whose arrow keys (Home, End) move an outlined cell, read out as the heatmaps' cells are; hovering reads too.
 * A click, Enter or Space opens the head alone (`open`).
 */
function miniMap({ data, n, causal, where, describe, readout, open }) {
  const canvas = el('canvas', {
    class: 'mini',
    tabIndex: 0,
    attrs: {
      role: 'button',
      'aria-label': `Attention weights, ${where}: ${n} queries by ${n} keys; arrow keys read each cell, Enter shows this head alone`,
    },
    on: { click: open },
  });
  canvas.width = canvas.height = n * CELL;
  const active = { i: 0, j: 0, shown: false };
  const paint = () => {
    const g = canvas.getContext('2d', CPU_CANVAS);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        g.fillStyle = causal && j > i ? '#c8c8c8' : weightColor(data[i * n + j]).css;
        g.fillRect(j * CELL, i * CELL, CELL, CELL);
      }
    if (!active.shown) return;
    g.strokeStyle = '#ff2d95';
    g.lineWidth = 2;
    g.strokeRect(active.j * CELL + 1, active.i * CELL + 1, CELL - 2, CELL - 2);
  };
  const show = (i, j) => {
    [active.i, active.j, active.shown] = [Math.max(0, Math.min(n - 1, i)), Math.max(0, Math.min(n - 1, j)), true];
    readout.textContent = describe(active.i, active.j, data[active.i * n + active.j]);
    paint();
  };
  canvas.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      return open();
    }
    const step = KEYS[event.key];
    if (!step && event.key !== 'Home' && event.key !== 'End') return;
    event.preventDefault();
    if (event.key === 'Home') show(active.i, 0);
    else if (event.key === 'End') show(active.i, n - 1);
    else show(active.i + step[0], active.j + step[1]);
  });
  canvas.addEventListener('focus', () => show(active.i, active.j));
  canvas.addEventListener('blur', () => {
    active.shown = false;
    paint();
  });
  canvas.addEventListener('pointermove', (event) => {
    const box = canvas.getBoundingClientRect();
    show(
      Math.floor(((event.clientY - box.top) / box.height) * n),
      Math.floor(((event.clientX - box.left) / box.width) * n),
    );
  });
  paint();
  return canvas;
}

/** What a faded head means, under a figure that shows one switched off (ablate). */
export const OFF_NOTE =
  'Faded: a head switched off (ablate). Its weights are still computed and shown, but its output is zeroed: nothing it reads reaches the layers after it.';

/**
 * The model view: a grid of every layer's heads, each a small heatmap of its weights (query rows, key columns), as
 * bertviz's model view; one readout line for all.
 */
export function drawModelView({ result, labels, causal, spec, settings }, onOpen) {
  const n = labels.length;
  const size = n * n;
  const readout = el('p', {
    class: 'readout',
    text: 'Hover over a head’s map, or focus it and use the arrow keys, to read its weights; click it (or press Enter) to show that head alone.',
    attrs: { part: 'readout', 'aria-live': 'polite' },
  });
  const grid = el('div', { class: 'mv', attrs: { part: 'model-view' } }, el('span', { class: 'corner' }));
  grid.style.gridTemplateColumns = `max-content repeat(${spec.numHeads}, minmax(2.2rem, 1fr))`; // CSSOM
  for (let h = 0; h < spec.numHeads; h++)
    grid.append(el('span', { class: 'lh', text: `${spec.numHeads > 8 ? 'h' : 'head '}${h}` }));
  const off = new Set(settings.ablate.map(([l, h]) => `${l}.${h}`));
  result.attentions.forEach((weights, l) => {
    grid.append(el('span', { class: 'll', text: `layer ${l}` }));
    for (let h = 0; h < spec.numHeads; h++) {
      const where = `${headName(l, h)}${off.has(`${l}.${h}`) ? ' (switched off)' : ''}`;
      const map = miniMap({
        data: weights.data.subarray(h * size, (h + 1) * size),
        n,
        causal,
        where,
        readout,
        open: () => onOpen(l, h),
        describe: (i, j, value) =>
          `${where}: query “${labels[i]}” → key “${labels[j]}”: ${causal && j > i ? 'masked' : `weight ${value.toFixed(3)}`}`,
      });
      map.classList.toggle('off', off.has(`${l}.${h}`));
      map.dataset.layer = String(l);
      map.dataset.head = String(h);
      grid.append(map);
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
      el('span', { text: `attention weight · grey: masked${off.size ? ' · faded: switched off' : ''}` }),
    ),
    ...(off.size ? [el('p', { class: 'offnote', attrs: { part: 'off-note' }, text: OFF_NOTE })] : []),
    readout,
  ];
}
