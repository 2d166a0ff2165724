// <attention-heatmap>: the attention weights (or, with values="scores", the scores softmax gets) of one example as a
// heatmap with token labels, a readout of each cell by pointer or keyboard, and a head picker when there are several
// heads.
import { cellTooltip } from '../shared/tooltips.js';
import { el } from '../shared/dom.js';
import { AttentionElement, defineProperties } from './base.js';
import { OWN_ATTRIBUTES } from './attributes.js';
import { HeatmapGrid, TITLES, joinLines, weightsView } from './heatmapGrid.js';

/** A row of buttons choosing the head shown; empty with one head. */
export function headPicker(state, onPick) {
  if (state.numHeads <= 1) return null;
  return el(
    'div',
    { class: 'heads', attrs: { part: 'head-picker', role: 'group', 'aria-label': 'Head shown' } },
    el('span', { text: 'Head:' }),
    Array.from({ length: state.numHeads }, (_, h) =>
      el('button', {
        type: 'button',
        text: String(h),
        attrs: { 'aria-pressed': String(h === state.head), 'aria-label': `head ${h} of ${state.numHeads}` },
        on: { click: () => onPick(h) },
      }),
    ),
  );
}

const SUBTITLES = {
  weights: 'rows: queries (the tokens that look) · columns: keys · each row sums to 1',
  scores: 'rows: queries · columns: keys · QKᵀ scaled (and masked): what softmax turns into each row’s weights',
};

export class AttentionHeatmap extends AttentionElement {
  static tag = 'attention-heatmap';

  draw(state, result) {
    const { values } = this.display;
    const [title, sub] = [TITLES[values], SUBTITLES[values]];
    const headNote = state.numHeads > 1 ? `, head ${state.head} of ${state.numHeads}` : '';
    const label = `${title} of “${state.sentence}”${headNote}: rows are queries, columns are keys`;
    this.map ??= new HeatmapGrid({
      label,
      describe: (i, j, value) =>
        joinLines(
          cellTooltip(
            this.currentState,
            this.result,
            this.display.values === 'scores' ? 'scores' : 'heatmap',
            i,
            j,
            value,
          ),
        ),
      mark: (cells) => this.mark(cells),
    });
    this.map.setLabel(label);
    this.map.update({ ...weightsView(state, result[values], state.head), values });
    const picker = headPicker(state, (head) => {
      this.setEdited({ ...this.currentState, head });
      queueMicrotask(() => this.shadowRoot.querySelectorAll('[part="head-picker"] button')[head]?.focus());
    });
    this.content.replaceChildren(
      el('p', { class: 'title', attrs: { part: 'title' }, text: `${title}${headNote}` }),
      el('p', { class: 'sub', text: sub }),
      ...(picker ? [picker] : []),
      this.map.element,
    );
  }
}

defineProperties(AttentionHeatmap.prototype, OWN_ATTRIBUTES[AttentionHeatmap.tag]);
