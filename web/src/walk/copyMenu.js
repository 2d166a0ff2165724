// A grid's copy buttons (NumPy, JSON, CSV), their status line, and the text to copy by hand when refused.
import { EXPORT_FORMATS, exportMatrix } from '../shared/format.js';
import { copyText } from './clipboard.js';
import { el } from '../shared/dom.js';

export class CopyMenu {
  /**
   * @param {() => { title: string, rows: ArrayLike<number>[], text?: (format: string) => string }} matrix  what to
   *   copy, read at the click: a matrix's rows, or `text` writing it in each format (an instrument's table)
   */
  constructor(matrix) {
    this.matrix = matrix;
    this.status = el('span', { class: 'copy-status', attrs: { 'aria-live': 'polite' } });
    this.buttons = Object.entries(EXPORT_FORMATS).map(([format, label]) =>
      el('button', {
        type: 'button',
        class: 'copy-button',
        text: label,
        attrs: { title: `Copy as ${label}` },
        on: { click: () => this.copy(format) },
      }),
    );
    this.element = el(
      'span',
      { class: 'copy-group' },
      el('span', { class: 'copy-label', text: 'copy' }),
      this.buttons,
      this.status,
    );
    this.fallback = el('div', { class: 'copy-fallback' });
    this.fallback.hidden = true;
  }

  /** Names the matrix in the buttons' accessible labels. */
  setTitle(title) {
    for (const [k, label] of Object.values(EXPORT_FORMATS).entries()) {
      this.buttons[k].setAttribute('aria-label', `Copy ${title} as ${label}`);
    }
  }

  /** Copies the matrix as NumPy, JSON or CSV; when the clipboard is refused, shows the text to copy by hand. */
  async copy(format) {
    const { title, rows, text: write } = this.matrix();
    const text = write ? write(format) : exportMatrix(rows, format);
    this.fallback.hidden = true;
    const copied = await copyText(text, {
      mount: this.fallback,
      label: `${title} as ${EXPORT_FORMATS[format]}`,
      lead: el('p', { class: 'hint', text: 'The browser did not allow copying: select the text below and copy it.' }),
      rows: Math.min(8, text.split('\n').length),
      closable: true,
    });
    if (!copied) return;
    this.status.textContent = `${EXPORT_FORMATS[format]} copied`;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.status.textContent = '';
    }, 2500);
  }
}
