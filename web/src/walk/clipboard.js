// Copying text to the clipboard, with a selected read-only field to copy by hand when the browser refuses.
import { el } from '../shared/dom.js';

/**
 * Copies text. When the clipboard is refused, shows the text in `fallback.mount` (after `fallback.lead`),
 * selected: a textarea of `fallback.rows` rows, or a one-line field when rows is not given.
 * @param {string} text
 * @param {{ mount: HTMLElement, label: string, lead: Node | string, rows?: number, closable?: boolean }} fallback
 * @returns {Promise<boolean>} true when the text is on the clipboard
 */
export async function copyText(text, fallback) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const { mount, label, lead, rows, closable = false } = fallback;
    const field = rows
      ? el('textarea', { class: 'copy-text', readOnly: true, value: text, rows, attrs: { 'aria-label': label } })
      : el('input', { type: 'text', readOnly: true, value: text, class: 'link-field', attrs: { 'aria-label': label } });
    const close = closable
      ? el('button', {
          type: 'button',
          class: 'small secondary',
          text: 'Close',
          on: {
            click: () => {
              mount.hidden = true;
            },
          },
        })
      : null;
    mount.replaceChildren(...[lead, field, close].filter(Boolean));
    mount.hidden = false;
    field.focus();
    field.select();
    return false;
  }
}
