// The attributes that shape an element's figure rather than its numbers: `caption`, `values`, `hide` and `export`,
// read only for an element that has one of them (base.js loads this module then). Pure: no DOM.
import { nearest, shorten } from './attributes.js';

/** The words of the attributes that take words: `values` one of them, `hide` and `export` any of them. */
export const WORDS = { values: ['weights', 'scores'], hide: ['entropy', 'caveat'], export: ['svg', 'png'] };

/** The words of a word-list attribute (`hide`, `export`), each unknown one named in `problems`. */
function readWords(text, name, problems) {
  const words = new Set();
  for (const word of text
    .toLowerCase()
    .split(/[\s,]+/u)
    .filter(Boolean)) {
    if (WORDS[name].includes(word)) words.add(word);
    else
      problems.push(
        `${name}: "${shorten(word)}" is not one of ${WORDS[name].join(', ')} (did you mean "${nearest(word, WORDS[name])}"?)`,
      );
  }
  return words;
}

/**
 * What the attributes that shape the figure ask for (not the numbers): the caption, the heatmap's values, the
 * paragraphs hidden and the export buttons. Never throws: problems are named in `problems`.
 * @param {(name: string) => string | null} get  the element's getAttribute
 * @returns {{ caption: string, values: 'weights' | 'scores', hide: Set<string>, exports: Set<string>, problems: string[] }}
 */
export function displayFromAttributes(get) {
  const problems = [];
  const values = (get('values') ?? 'weights').trim().toLowerCase();
  if (!WORDS.values.includes(values))
    problems.push(`values="${shorten(get('values'))}" should be weights or scores (the scores are what softmax gets)`);
  const exportText = get('export');
  return {
    caption: (get('caption') ?? '').trim(),
    values: values === 'scores' ? 'scores' : 'weights',
    hide: readWords(get('hide') ?? '', 'hide', problems),
    // `export` alone (or "true") offers both.
    exports:
      exportText === null || /^(?:false|off|no|0)$/iu.test(exportText.trim())
        ? new Set()
        : /^(?:|true|on|yes|1)$/iu.test(exportText.trim())
          ? new Set(WORDS.export)
          : readWords(exportText, 'export', problems),
    problems,
  };
}
