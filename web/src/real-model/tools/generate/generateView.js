// Generation on a real model, drawn: the settings (new tokens, temperature, top-k, top-p, seed), the layer and head
// whose row is shown, Step / Run / Stop, the tokens generated so far, and the chosen step: its token and p, the
// alternatives, and its query row against the KV cache as a one-row heatmap (cached keys and the new one marked).
// Plain DOM: text goes in as text only.
import { readableToken } from '../../realModel.js';
import { weightColor } from '../../../shared/colors.js';
import { GENERATE_DEFAULTS, MAX_NEW_TOKENS, stepRow, stepText } from './generation.js';
import { el, show } from '../../../shared/dom.js';

const FIELDS = [
  ['maxNewTokens', 'New tokens', { min: 1, max: MAX_NEW_TOKENS, step: 1 }],
  ['temperature', 'Temperature (0: greedy)', { min: 0, max: 10, step: 0.1 }],
  ['topK', 'Top-k (0: all)', { min: 0, step: 1 }],
  ['topP', 'Top-p', { min: 0.01, max: 1, step: 0.05 }],
  ['seed', 'Seed', { min: 0, step: 1 }],
];

const select = (id, label, onChange) => {
  const node = el('select', { id, on: { change: onChange } });
  return { node, field: el('label', { class: 'field', for: id }, el('span', { text: label }), node) };
};

export class GenerateView {
  /** @param {{ onStep: Function, onRun: Function, onStop: Function, onSettings: Function, onHead: Function }} handlers */
  constructor(handlers) {
    this.inputs = {};
    const fields = FIELDS.map(([key, label, limits]) => {
      const input = el('input', {
        type: 'number',
        id: `gen-${key}`,
        value: String(GENERATE_DEFAULTS[key]),
        on: { input: handlers.onSettings },
        attrs: limits,
      });
      this.inputs[key] = input;
      return el('label', { class: 'field', for: input.id }, el('span', { text: label }), input);
    });
    this.layer = select('gen-layer', 'Layer', handlers.onHead);
    this.head = select('gen-head', 'Head', handlers.onHead);
    const button = (id, text, onClick, secondary = false) =>
      el('button', { type: 'button', id, text, class: secondary ? 'secondary' : '', on: { click: onClick } });
    this.stepButton = button('gen-step', 'Step', handlers.onStep);
    this.runButton = button('gen-run', 'Run', handlers.onRun);
    this.stopButton = button('gen-stop', 'Stop', handlers.onStop, true);
    this.status = el('p', { id: 'gen-status', class: 'hint', attrs: { role: 'status' } });
    this.tokens = el('ol', { class: 'gen-tokens', attrs: { 'aria-label': 'The tokens generated, one per step' } });
    this.detail = el('div', { class: 'gen-detail', attrs: { 'aria-live': 'polite' } });
    this.row = el('ol', { class: 'gen-row', attrs: { 'aria-label': 'The step’s query row over the KV cache' } });
    this.rowText = el('p', { class: 'hint gen-row-text' });
    this.reason = el('p', { class: 'hint', id: 'gen-reason', hidden: true });
    this.body = el(
      'div',
      { class: 'gen-body' },
      el(
        'p',
        { class: 'hint' },
        'The model continues the sentence one token at a time. Each step runs only the newest token: its query meets every key so far, and the keys and values of the earlier tokens come from the KV cache instead of being computed again. The heads switched off in the model view above are off at every step too.',
      ),
      el('div', { class: 'gen-settings' }, fields),
      el('div', { class: 'gen-settings' }, this.layer.field, this.head.field),
      el('div', { class: 'gen-buttons' }, this.stepButton, this.runButton, this.stopButton),
      this.status,
      this.tokens,
      this.detail,
      this.rowText,
      this.row,
    );
    this.element = el('div', { class: 'model-generate', id: 'model-generate' }, this.reason, this.body);
    this.onPick = null;
    this.running(false);
  }

  /** The settings as typed (strings; generation.js's readSettings checks them). */
  values() {
    return Object.fromEntries(Object.entries(this.inputs).map(([key, input]) => [key, input.value]));
  }

  setValues(settings) {
    for (const [key, input] of Object.entries(this.inputs)) input.value = String(settings[key]);
  }

  /** A decoder with its layers and heads, or the reason generation is not offered (BERT). */
  setModel({ numLayers, numHeads }, reason = null) {
    show(this.reason, Boolean(reason));
    this.reason.textContent = reason ?? '';
    show(this.body, !reason);
    const fill = ({ node }, count, chosen) => {
      node.replaceChildren(
        ...Array.from({ length: count }, (_, i) => el('option', { value: String(i), text: String(i) })),
      );
      node.value = String(Math.min(chosen, count - 1));
    };
    fill(this.layer, numLayers, numLayers - 1);
    fill(this.head, numHeads, 0);
  }

  /** The layer and head whose row is shown. */
  chosenHead() {
    return { layer: Number(this.layer.node.value), head: Number(this.head.node.value) };
  }

  setHead(layer, head) {
    this.layer.node.value = String(layer);
    this.head.node.value = String(head);
  }

  running(on) {
    this.stepButton.disabled = on;
    this.runButton.disabled = on;
    this.stopButton.disabled = !on;
  }

  say(text) {
    this.status.textContent = text;
  }

  /** Empties the tokens, the step and the row (a new sentence, model or settings). */
  clear() {
    this.tokens.replaceChildren();
    this.detail.replaceChildren();
    this.row.replaceChildren();
    this.rowText.textContent = '';
  }

  /**
   * Draws the steps so far (the tokens, each a button that shows its step) and step `shown` in full.
   * @param {object[]} steps  model.generate()'s steps
   * @param {(id: number, token?: string) => string} name  a token id as the page shows it
   * @param {number[][]} off  the heads switched off in the generation ([layer, head])
   */
  draw(steps, shown, name, off = []) {
    this.tokens.replaceChildren(
      ...steps.map((step, s) =>
        el(
          'li',
          { dataset: { id: String(step.id) } },
          el('button', {
            type: 'button',
            class: `token-chip gen-token${s === shown ? ' chosen' : ''}`,
            text: name(step.id, step.token),
            attrs: { 'aria-pressed': String(s === shown), 'aria-label': `step ${s + 1}: ${name(step.id, step.token)}` },
            on: { click: () => this.onPick?.(s) },
          }),
        ),
      ),
    );
    const step = steps[shown];
    if (!step) return this.clear();
    const alternatives = step.next.map((t) => `“${name(t.id, t.token)}” ${t.p.toFixed(3)}`).join(', ');
    this.detail.replaceChildren(
      el(
        'p',
        {},
        el('strong', { text: `Step ${shown + 1}: “${name(step.id, step.token)}”` }),
        ` (id ${step.id}), p `,
        el('span', { class: 'gen-p', text: step.p.toFixed(3) }),
        step.finish ? ` · the last step (${step.finish})` : '',
      ),
      el('p', { class: 'hint gen-alternatives', text: `The most probable there: ${alternatives}.` }),
    );
    this.#drawRow(step, name, off);
  }

  #drawRow(step, name, off) {
    const { layer, head } = this.chosenHead();
    const { weights, fresh } = stepRow(step, layer, head);
    const labels = weights.map((_, j) => name(step.ids[j], step.tokens?.[j]));
    const isOff = off.some(([l, h]) => l === layer && h === head);
    this.rowText.textContent = `${stepText(step, weights.length, layer, head)}${isOff ? ' This head is switched off: its weights are still computed, but its output is zero, so nothing it reads reaches the next token.' : ''}`;
    this.row.replaceChildren(
      ...weights.map((w, j) => {
        const color = weightColor(w);
        const mark = step.step === 0 ? 'prefill' : fresh[j] ? 'new' : 'cached';
        const cell = el(
          'li',
          {
            class: `gen-cell ${mark}${color.light ? ' light' : ''}`,
            title: `${labels[j]} (${mark}): weight ${w.toFixed(4)}`,
            dataset: { weight: String(w), key: mark },
          },
          el('span', { class: 'gen-cell-token', text: labels[j] }),
          el('span', { class: 'gen-cell-weight', text: w.toFixed(3) }),
          el('span', { class: 'gen-cell-mark', text: mark }),
        );
        cell.style.setProperty('--cell', color.css);
        return cell;
      }),
    );
  }
}

/** A token as the generation shows it: the tokenizer's text, or the vocabulary's spelling, or the id. */
export function tokenName(vocab) {
  return (id, token) => readableToken(vocab[id] ?? token ?? String(id), token ?? null);
}
