// The real-model section's parts (app/link.js's SECTIONS: tokens, next, heads, investigate, generate, layer), each heading with a
// link that opens the page at it: the link's address is the model's own link with `section` (set as the panel writes
// its link), and a click copies it (or shows it selected, to copy by hand) and says so beside it.
import { SECTIONS } from '../app/link.js';
import { el } from '../shared/dom.js';
import { copyText } from '../walk/clipboard.js';

/** A part's heading id: model-<name>-title. */
export const partId = (section) => `model-${section}-title`;

export class PartLinks {
  #links = [];

  /** A part's heading (h3, its id partId's) with its link. */
  heading(section, text) {
    return el('h3', { id: partId(section), class: partId(section) }, text, ' ', ...this.link(section, text));
  }

  /**
   * A link that opens the page at part `section` (titled `text`), and the span after it that says it was copied.
   * @returns {HTMLElement[]}
   */
  link(section, text) {
    if (!SECTIONS.includes(section)) throw new Error(`no part ${section}`);
    const said = el('span', { class: 'hint part-link-said', attrs: { role: 'status' } });
    const link = el('a', {
      class: 'part-link',
      href: '#',
      text: 'link',
      dataset: { section },
      attrs: { 'aria-label': `Link to this part: ${text}` },
      on: {
        click: async (event) => {
          event.preventDefault();
          said.textContent = '';
          const copied = await copyText(link.href, {
            mount: said,
            label: 'Link to this part',
            lead: 'Copy this link: ',
          });
          if (copied) said.textContent = 'Link copied: it opens the page here, with this model, sentence and heads.';
        },
      },
    });
    this.#links.push(link);
    return [link, said];
  }

  /** Sets each link's address: `href(section)`, the page's address opening at that part. */
  set(href) {
    for (const link of this.#links) link.href = href(link.dataset.section);
  }
}
