// Activation patching on the page: a clean and a corrupted prompt, the metric's tokens (a − b) and position, Run and
// Cancel, and the two sweeps' grids filling in layer by layer (residual stream: layers × positions; head outputs: layers ×
// heads), each cell coloured by the share of the clean run's metric it restores.
import { el, show } from '../../shared/dom.js';
import { signedColor } from '../../shared/colors.js';
import { formatValue } from '../../shared/format.js';
import { headName } from '../../shared/counting.js';
import { GridView } from './gridView.js';

export class PatchingView {
  /**
   * @param {{ onRun: () => void, onCancel: () => void, onHead?: (layer: number, head: number) => void,
   *   opens?: string }} handlers  with onHead, the head outputs' cells are buttons (opens: what a click does; default:
   *   open it in the steps, the page's)
   */
  constructor(handlers) {
    const opens = handlers.opens ?? 'open it in the steps';
    const input = (id, size) => el('input', { type: 'text', id, autocomplete: 'off', spellcheck: false, size });
    this.clean = input('inv-clean', 40);
    this.corrupted = input('inv-corrupted', 40);
    for (const field of [this.clean, this.corrupted]) field.addEventListener('input', () => this.setProblem(null));
    this.a = input('inv-patch-a', 10);
    this.b = input('inv-patch-b', 10);
    this.position = input('inv-patch-position', 4);
    this.position.inputMode = 'numeric';
    this.run = el('button', {
      type: 'button',
      id: 'inv-patch-run',
      text: 'Run the sweeps',
      on: { click: handlers.onRun },
    });
    this.cancel = el('button', {
      type: 'button',
      id: 'inv-patch-cancel',
      class: 'secondary',
      text: 'Cancel',
      hidden: true,
      on: { click: handlers.onCancel },
    });
    this.problem = el('p', { id: 'inv-patch-problem', class: 'inline-error', hidden: true, attrs: { role: 'alert' } });
    this.status = el('p', { id: 'inv-patch-status', class: 'hint', attrs: { role: 'status' } });
    this.grids = {
      input: new GridView({ label: 'Patching the residual stream entering each layer, at each position' }),
      headOutput: new GridView({
        label: 'Patching each head’s output at every position',
        onCell: handlers.onHead ?? null,
        cellLabel: (l, h, c) => `${headName(l, h)}: restores ${c.text}; ${opens}`,
      }),
    };
    this.summaries = { input: el('p', { class: 'hint' }), headOutput: el('p', { class: 'hint' }) };
    const labelled = (id, text, node) => el('label', { class: 'field', for: id }, el('span', { text }), node);
    this.element = el(
      'div',
      { class: 'inv-patching' },
      el('p', {
        class: 'hint',
        text: `Run the corrupted prompt, and put back one activation of the clean run at a time: how much of the clean run’s metric m = logit(a) − logit(b) does it restore? 1: all of it, 0: none (TransformerLens: get_act_patch_resid_pre, get_act_patch_attn_head_out_all_pos). The two prompts need the same number of tokens.${handlers.onHead ? ` Click a head of the head outputs to ${opens}.` : ''}`,
      }),
      labelled('inv-clean', 'Clean prompt', this.clean),
      labelled('inv-corrupted', 'Corrupted prompt', this.corrupted),
      el(
        'div',
        { class: 'inv-fields' },
        el(
          'label',
          { class: 'field inline', for: 'inv-patch-a' },
          el('span', { text: 'a (empty: the clean run’s top token)' }),
          this.a,
        ),
        el(
          'label',
          { class: 'field inline', for: 'inv-patch-b' },
          el('span', { text: '− b (empty: the corrupted run’s)' }),
          this.b,
        ),
        el(
          'label',
          { class: 'field inline', for: 'inv-patch-position' },
          el('span', { text: 'at position (from 0; empty: the last)' }),
          this.position,
        ),
        el('div', { class: 'inv-actions' }, this.run, this.cancel),
      ),
      this.problem,
      this.status,
      el('h5', { text: 'Residual stream: layers × positions' }),
      this.grids.input.element,
      this.summaries.input,
      el('h5', { text: 'Head outputs: layers × heads' }),
      this.grids.headOutput.element,
      this.summaries.headOutput,
    );
  }

  /** The fields' text. */
  values() {
    const { clean, corrupted, a, b, position } = this;
    return { clean: clean.value, corrupted: corrupted.value, a: a.value, b: b.value, position: position.value };
  }

  /** Fills the prompts (a model loaded): they follow the sentence (follow()) until typed into. */
  setPrompts(clean, corrupted) {
    this.clean.value = clean;
    this.corrupted.value = corrupted;
    this.offered = { clean, corrupted };
  }

  /** The sentence changed: each prompt still as the page offered it takes the new one's. */
  follow(clean, corrupted) {
    const offered = this.offered ?? {};
    if (this.clean.value === offered.clean) this.clean.value = clean;
    if (this.corrupted.value === offered.corrupted) this.corrupted.value = corrupted;
    this.offered = { clean, corrupted };
  }

  /** A sweep under way (Cancel shown, Run disabled), or not. */
  running(on) {
    this.run.disabled = on;
    show(this.cancel, on);
  }

  /** What stops the sweeps (different lengths, a token typed that is none), or null. */
  setProblem(text) {
    this.problem.textContent = text ?? '';
    show(this.problem, Boolean(text));
  }

  say(text) {
    this.status.textContent = text;
  }

  /**
   * Draws sweep `step`'s grid so far (NaN: a cell to come, drawn empty).
   * @param {{ rowLabels: string[], columns: string[], cells: number[][] }} grid  patching.js's sweepGrid
   */
  draw(step, grid, summary = '') {
    this.grids[step].draw({
      rowLabels: grid.rowLabels,
      columns: step === 'input' ? grid.columns.map((t, i) => `${i} ${t}`) : grid.columns,
      cells: grid.cells.map((row) =>
        row.map((v) =>
          Number.isNaN(v)
            ? { text: '…', value: v, color: null }
            : {
                text: formatValue(v, 2),
                value: v,
                color: signedColor(Math.max(-1, Math.min(1, v)), 1),
                title: `restores ${(100 * v).toFixed(1)}%`,
              },
        ),
      ),
    });
    this.summaries[step].textContent = summary;
  }

  /** Empties the grids (a new sweep, or another model). */
  clearGrids() {
    for (const grid of Object.values(this.grids)) grid.clear();
    for (const s of Object.values(this.summaries)) s.textContent = '';
  }

  clear() {
    for (const grid of Object.values(this.grids)) grid.clear();
    for (const s of Object.values(this.summaries)) s.textContent = '';
    this.say('');
    this.setProblem(null);
  }
}
