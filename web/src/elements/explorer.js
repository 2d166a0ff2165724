// <attention-explorer>: the page's step-by-step walk for one example, in a box that fits a blog column. `steps`
// chooses the steps; numbers are editable unless `readonly`; `highlight` marks the query × key figures, `hide` drops
// paragraphs; its exported figure is the weights' heatmap of the head shown.
import { toggledMask, typedCell } from '../shared/cellEdits.js';
import { cellTooltip } from '../shared/tooltips.js';
import { el } from '../shared/dom.js';
import { AttentionElement, defineProperties } from './base.js';
import { OWN_ATTRIBUTES, nearest } from './attributes.js';
import { HeatmapGrid, joinLines } from './heatmapGrid.js';
import { headPicker } from './heatmapElement.js';
import { MatrixTable } from './matrixTable.js';
import { STEPS, STEP_NAMES, chooseSteps } from './steps.js';

// Matrices whose cells the tooltips of the page describe (the others get none).
const DESCRIBED = new Set(['x', 'wq', 'wk', 'wv', 'wo', 'q', 'k', 'v', 'vOut', 'rawScores', 'scaledScores', 'mask']);
const MORE = new Set(['scores', 'weights', 'output', 'concat', 'layerOutput']);
// Tables whose rows are the queries and columns the keys of the sentence: `highlight` marks them.
const QUERY_KEY = new Set(['rawScores', 'scaledScores', 'mask', 'scores', 'weights', 'whyScores', 'whyWeights']);

export class AttentionExplorer extends AttentionElement {
  static tag = 'attention-explorer';

  constructor() {
    super();
    this.layoutKey = null;
    this.sections = [];
    this.tables = new Map();
    this.picker = el('div');
    this.stepMessage = el('p', { class: 'message', attrs: { part: 'message', role: 'status' } });
  }

  get readonlyFlag() {
    return this.hasAttribute('readonly') && this.getAttribute('readonly') !== 'false';
  }

  /** The context a step builds its section with. */
  #context() {
    const self = this;
    const describe = (matrix) => (i, j, value) =>
      DESCRIBED.has(matrix) || MORE.has(matrix)
        ? joinLines(cellTooltip(self.currentState, self.result, matrix, i, j, value))
        : undefined;
    const mark = (cells) => self.mark(cells);
    return {
      readonly: this.readonlyFlag,
      /** Whether `hide` names this paragraph (entropy, caveat). */
      hides: (name) => self.display.hide.has(name),
      get state() {
        return self.currentState;
      },
      get result() {
        return self.result;
      },
      table(key, options) {
        const editable = Boolean(options.editable) && !self.readonlyFlag;
        const table = new MatrixTable({
          name: key,
          describe: describe(key),
          mark: QUERY_KEY.has(key) ? mark : undefined,
          ...options,
          editable,
          onEdit: (i, j, text) => self.#edit(key, i, j, text),
          onActivate: self.readonlyFlag ? undefined : options.onActivate,
        });
        self.tables.set(key, table);
        return table;
      },
      heatmap(key, options) {
        // Every heatmap but cross-attention's (whose keys are another sentence) is query × key of the sentence.
        const map = new HeatmapGrid({
          describe: describe(options.matrix ?? 'heatmap'),
          mark: key.startsWith('cross') ? undefined : mark,
          ...options,
        });
        return map;
      },
      toggleMask: (i, j) => {
        const next = toggledMask(this.currentState, i, j);
        if (next.error) this.tables.get('mask')?.setError(next.error);
        else this.setEdited(next.state);
      },
      shuffle: () => this.setEdited({ ...this.currentState, shuffle: this.currentState.shuffle + 1 }),
    };
  }

  #edit(name, i, j, text) {
    const next = typedCell(this.currentState, name, i, j, text);
    if (next.error) return next.error;
    this.setEdited(next.state);
    return null;
  }

  #layout(state) {
    const { steps, unknown } = chooseSteps(this.getAttribute('steps'));
    const key = `${steps.map((s) => s.names[0]).join(' ')}|${this.readonlyFlag}|${state.numHeads}`;
    this.stepMessage.hidden = unknown.length === 0;
    this.stepMessage.textContent = unknown.length
      ? `steps: ${unknown.map((w) => `"${w}" is not a step (did you mean "${nearest(w, STEP_NAMES)}"?)`).join('; ')}. The steps are ${STEPS_LIST}.`
      : '';
    if (key === this.layoutKey) return;
    this.layoutKey = key;
    this.tables.clear();
    const ctx = this.#context();
    this.sections = steps.map((step, index) => {
      const made = step.make(ctx);
      const heading = el('h3', {}, el('span', { class: 'num', text: String(index + 1) }), el('span'));
      const section = el(
        'section',
        { class: 'step', dataset: { step: step.names[0] }, attrs: { part: `step step-${step.names[0]}` } },
        heading,
        made.nodes,
      );
      return { step, heading, section, update: made.update };
    });
    this.content.replaceChildren(this.stepMessage, this.picker, ...this.sections.map((s) => s.section));
  }

  draw(state, result, attn) {
    this.#layout(state);
    const picker = headPicker(state, (head) => {
      this.setEdited({ ...this.currentState, head });
      queueMicrotask(() => this.picker.querySelectorAll('button')[head]?.focus());
    });
    this.picker.replaceChildren(...(picker ? [picker] : []));
    for (const { step, heading, update } of this.sections) {
      heading.lastChild.textContent = step.title(state);
      try {
        update(state, result, attn);
      } catch (error) {
        heading.lastChild.textContent += ` — could not be shown: ${error?.message ?? error}`;
      }
    }
  }
}

const STEPS_LIST = STEPS.map((step) => step.names[0]).join(', ');

defineProperties(AttentionExplorer.prototype, OWN_ATTRIBUTES[AttentionExplorer.tag]);
