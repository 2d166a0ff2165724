// A model's vocabulary, folded under the tokens: the tokens it knows, special ones first, then alphabetically, with
// a field to find a word (a large vocabulary shows its first matches). Drawn only when opened. Text goes in as text.
import { el } from '../shared/dom.js';
import { tokenizerJson } from './files.js';
import { readableToken, vocabulary } from './realModel.js';
import { unknownText, unknownToken, unknownWords, vocabularyEntries } from './vocabulary.js';

/** How many tokens the list shows at most: GPT-2's 50 257 are found with the field. */
const SHOWN = 400;

export class VocabularyView {
  constructor() {
    this.names = [];
    this.specials = new Set();
    this.summary = el('summary', {});
    this.find = el('input', {
      type: 'search',
      id: 'model-vocab-find',
      autocomplete: 'off',
      spellcheck: false,
      on: { input: () => this.#list() },
    });
    this.count = el('p', { class: 'hint', attrs: { role: 'status' } });
    this.list = el('ul', { class: 'vocab-list', attrs: { 'aria-label': 'The tokens of the vocabulary' } });
    this.element = el(
      'details',
      { class: 'model-vocab', hidden: true },
      this.summary,
      el('label', { class: 'field', for: 'model-vocab-find' }, el('span', { text: 'Find a word' }), this.find),
      this.count,
      this.list,
    );
    this.element.addEventListener('toggle', () => this.#list());
  }

  /**
   * A new model's vocabulary, read from its tokenizer.json (`files`, or the `folder` URL): shown, and returned as
   * id → token ([] without tokenizer.json: ids are typed, the list hidden).
   */
  async use(model, files, folder) {
    const json = model.hasTokenizer ? await tokenizerJson(files, folder) : null;
    const names = json ? vocabulary(json) : [];
    this.show(names, json);
    return names;
  }

  /** A new model's vocabulary (id → token) and its tokenizer.json (null: none, ids typed, the list hidden). */
  show(names, json) {
    this.names = names;
    this.json = json;
    this.specials = new Set((json?.added_tokens ?? []).filter((t) => t?.special).map((t) => String(t.content)));
    this.unknown = unknownToken(json, names); // <unk>, [UNK], or null
    const size = names.filter((name) => name !== undefined).length;
    this.summary.textContent = `Its vocabulary: the ${size.toLocaleString('en')} tokens this model knows`;
    this.element.hidden = size === 0;
    this.find.value = '';
    this.list.replaceChildren();
    this.#list();
  }

  /**
   * The words of `text` the vocabulary does not have, by token (`rawTokens`, as model.run spells them), and the
   * sentence that says so: { unknown, note } for TokensView.
   */
  marks(text, rawTokens) {
    const unknown = unknownWords(text, rawTokens, this.json, this.unknown);
    const size = this.names.filter((name) => name !== undefined).length;
    return { unknown, note: unknownText(unknown, this.unknown, size) };
  }

  #list() {
    if (!this.element.open) return;
    const { shown, matched } = vocabularyEntries(this.names, this.specials, this.find.value, SHOWN);
    this.count.textContent =
      matched > shown.length
        ? `${matched.toLocaleString('en')} tokens match; the first ${shown.length} are shown: type to find a word.`
        : `${matched.toLocaleString('en')} token${matched === 1 ? '' : 's'}${this.find.value.trim() ? ' match' : ''}.`;
    this.list.replaceChildren(
      ...shown.map(({ id, token, special }) =>
        el('li', {
          class: special ? 'special' : '',
          text: readableToken(token),
          title: `${JSON.stringify(token)}, id ${id}${special ? ', a special token' : ''}`,
        }),
      ),
    );
  }
}
