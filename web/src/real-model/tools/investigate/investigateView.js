// The Investigate part's frame: its tabs (logit lens, attribution, patching, head scores, loss), each panel with the
// instrument's view, its copy buttons (CSV, JSON, NumPy) and its figure's downloads (SVG, PNG), a status line, and the
// button that downloads the run as .npz. Only draws; investigate.js computes.
import '../../../css/investigate.css'; // with this code only
import { el, show } from '../../../shared/dom.js';
import { CopyMenu } from '../../../walk/copyMenu.js';
import { exportTables } from '../../../shared/instruments/table.js';
import { TABS } from './tabs.js';

export class InvestigateView {
  /**
   * @param {Record<string, { element: HTMLElement }>} views  each tab's view
   * @param {{ onTab: (key: string) => void, onNpz: () => void, tables: (key: string) => object[],
   *   picture: (key: string, kind: 'svg' | 'png') => void }} handlers  tables: the numbers of a tab to copy
   *   (shared/instruments/table.js's Tables; none before any); picture: downloads the tab's figure
   */
  constructor(views, handlers) {
    this.tabs = new Map();
    this.panels = new Map();
    const list = el('div', { class: 'inv-tabs', attrs: { role: 'tablist', 'aria-label': 'Instruments' } });
    for (const [key, name] of TABS) {
      const tab = el('button', {
        type: 'button',
        id: `inv-tab-${key}`,
        class: 'inv-tab',
        text: name,
        dataset: { tab: key },
        attrs: { role: 'tab', 'aria-selected': 'false', 'aria-controls': `inv-panel-${key}`, tabindex: '-1' },
        on: { click: () => handlers.onTab(key), keydown: (event) => this.#arrow(event, key, handlers.onTab) },
      });
      const copy = new CopyMenu(() => {
        const tables = handlers.tables(key);
        return { title: name, text: (format) => (tables.length ? exportTables(tables, format) : '') };
      });
      copy.setTitle(`the ${name.toLowerCase()} numbers`);
      const note = el('p', { class: 'hint inv-note', hidden: true, attrs: { role: 'status' } });
      const panel = el(
        'div',
        {
          id: `inv-panel-${key}`,
          class: 'inv-panel',
          hidden: true,
          attrs: { role: 'tabpanel', 'aria-labelledby': `inv-tab-${key}` },
        },
        note,
        views[key].element,
        el(
          'div',
          { class: 'inv-copy' },
          copy.element,
          ...['svg', 'png'].map((kind) =>
            el('button', {
              type: 'button',
              class: 'secondary small',
              text: `Download ${kind.toUpperCase()}`,
              dataset: { picture: kind },
              attrs: { 'aria-label': `Download the ${name.toLowerCase()} figure as ${kind.toUpperCase()}` },
              on: { click: () => handlers.picture(key, kind) },
            }),
          ),
        ),
        copy.fallback,
      );
      list.append(tab);
      this.tabs.set(key, tab);
      this.panels.set(key, { panel, note });
    }
    this.status = el('p', { id: 'inv-status', class: 'hint', attrs: { role: 'status' } });
    this.npz = el('button', {
      type: 'button',
      id: 'inv-npz',
      class: 'secondary small',
      text: 'Download the run (.npz)',
      on: { click: handlers.onNpz },
    });
    this.npzNote = el('span', { class: 'hint', attrs: { role: 'status' } });
    this.element = el(
      'div',
      { class: 'investigate' },
      el('p', {
        class: 'hint',
        text: 'What each head contributes to the prediction, and where the information flows: the instruments of TransformerLens, computed here on this model and sentence, with the heads switched off as above.',
      }),
      list,
      this.status,
      ...[...this.panels.values()].map((p) => p.panel),
      el('p', { class: 'inv-download' }, this.npz, ' ', this.npzNote),
    );
  }

  /** Arrow keys move between the tabs (the tablist's one Tab stop). */
  #arrow(event, key, onTab) {
    const keys = TABS.map(([k]) => k);
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    const next = keys[(keys.indexOf(key) + step + keys.length) % keys.length];
    onTab(next);
    this.tabs.get(next).focus();
  }

  /** Shows tab `key` (null: none). */
  select(key) {
    for (const [k, tab] of this.tabs) {
      tab.setAttribute('aria-selected', String(k === key));
      tab.tabIndex = k === key || (!key && k === TABS[0][0]) ? 0 : -1;
      show(this.panels.get(k).panel, k === key);
    }
  }

  /** A tab's note (why it shows nothing for this model, or null). */
  note(key, text) {
    const { note } = this.panels.get(key);
    note.textContent = text ?? '';
    show(note, Boolean(text));
  }

  say(text) {
    this.status.textContent = text;
  }
}
