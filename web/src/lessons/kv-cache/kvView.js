// Draws the KV-cache step: the cache of the head shown, the new token's query and weights, and its output row
// next to the last row of full causal attention.
import { headSlice, labelsFor } from '../../shared/inputs.js';
import { kvCacheText } from './kvCache.js';
import { headNote, kvHeadNote } from '../../shared/explanations.js';
import { headBlock } from '../../shared/matrices.js';
import { byId, el, show } from '../../shared/dom.js';
import { MatrixGrid } from '../../walk/matrixGrid.js';

const dims = (count) => Array.from({ length: count }, (_, i) => String(i));

export class KvView {
  constructor() {
    const grid = (name, title, note, color = 'signed') => new MatrixGrid({ name, title, note, color });
    this.grids = {
      kvK: grid('kvK', 'cached K', 'earlier tokens, then the new one'),
      kvV: grid('kvV', 'cached V', 'earlier tokens, then the new one'),
      kvQ: grid('kvQ', 'q of the new token', 'one query row'),
      kvWeights: grid('kvWeights', 'its weights', 'over all cached keys', 'weights'),
      kvOutput: grid('kvOutput', 'new output row', 'heads side by side, with the cache'),
      kvFull: grid('kvFull', 'full causal attention', 'its last row, recomputing all'),
    };
    const g = this.grids;
    byId('mount-kv').append(
      el('div', { class: 'matrices' }, g.kvQ.element, g.kvK.element, g.kvV.element),
      el('div', { class: 'matrices' }, g.kvWeights.element),
      el('div', { class: 'matrices' }, g.kvOutput.element, g.kvFull.element),
    );
  }

  /** Draws the step computed by kvCacheStep (null with a single token). */
  draw(state, step) {
    byId('kv-text').textContent = kvCacheText(state, step);
    // A cache of zero tokens is an inline message that says what to change, not an empty panel.
    byId('kv-text').classList.toggle('inline-error', !step);
    show(byId('mount-kv'), Boolean(step));
    if (!step) return;
    const { n, dK, dV, numHeads: H, head, precision } = state;
    const labels = labelsFor(state);
    const qNote = headNote(state);
    const kvNote = kvHeadNote(state); // grouped-query attention caches one K and V per group of heads
    const kv = headBlock(state, 'wk');
    const cacheLabels = labels.map((label, i) => (i === n - 1 ? `${label} (new)` : label));
    const concatLabels = Array.from({ length: H * dV }, (_, c) =>
      H > 1 ? `h${Math.floor(c / dV) + 1}·${c % dV}` : String(c),
    );
    const g = this.grids;
    g.kvK.setTitle(`cached K${kvNote}`);
    g.kvV.setTitle(`cached V${kvNote}`);
    g.kvQ.setTitle(`q of “${step.token}”${qNote}`);
    g.kvWeights.setTitle(`its weights${qNote}`);
    g.kvK.update({
      data: headSlice(step.k, kv).data,
      rows: n,
      cols: dK,
      rowLabels: cacheLabels,
      colLabels: dims(dK),
      precision,
    });
    g.kvV.update({
      data: headSlice(step.v, kv).data,
      rows: n,
      cols: dV,
      rowLabels: cacheLabels,
      colLabels: dims(dV),
      precision,
    });
    g.kvQ.update({
      data: headSlice(step.q, head).data,
      rows: 1,
      cols: dK,
      rowLabels: [step.token],
      colLabels: dims(dK),
      precision,
    });
    g.kvWeights.update({
      data: headSlice(step.weights, head).data,
      rows: 1,
      cols: n,
      rowLabels: [step.token],
      colLabels: labels,
      precision,
    });
    g.kvOutput.update({
      data: step.output,
      rows: 1,
      cols: H * dV,
      rowLabels: [step.token],
      colLabels: concatLabels,
      precision,
    });
    g.kvFull.update({
      data: step.fullRow,
      rows: 1,
      cols: H * dV,
      rowLabels: [step.token],
      colLabels: concatLabels,
      precision,
    });
  }
}
