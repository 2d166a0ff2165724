// What an element's `view` attribute and the instruments' own attributes mean: the view (lens, attribution,
// patching, head-scores, loss), the token followed or attributed (`target`, `against`), the position (from 0) and
// the corrupted prompt of patching (`corrupted`). Pure: no DOM; the model's sizes are checked once it is loaded.
import { nearest, shorten } from '../attributes.js';
import { ELEMENT_LIMITS } from '../elementLimits.js';
import { DEFAULT_SENTENCE } from '../modelSettings.js';

/** The views, as `view` names them. */
export const VIEWS = Object.freeze(['lens', 'attribution', 'patching', 'head-scores', 'loss']);

/** The corrupted prompt of the default sentence: its first copy's “red” changed (the induction heads' cue). */
export const DEFAULT_CORRUPTED = DEFAULT_SENTENCE.replace('a red ball', 'a green ball');

/** What each view is, for its title. */
export const VIEW_TITLES = Object.freeze({
  lens: 'Logit lens',
  attribution: 'Direct logit attribution',
  patching: 'Activation patching',
  'head-scores': 'Head detector scores',
  loss: 'Loss per token',
});

const listed = `${VIEWS.slice(0, -1).join(', ')} and ${VIEWS.at(-1)}`;

/**
 * The instrument the attributes ask for, or instrument null (with the reason) when `view` names none. Never throws.
 * @param {(name: string) => string | null} get  the element's getAttribute
 * @returns {{ instrument: { view: string, target: string | null, against: string | null, position: number | null,
 *   corrupted: string | null } | null, problems: string[] }}
 */
export function readInstrument(get) {
  const problems = [];
  const text = (get('view') ?? '').trim();
  if (!VIEWS.includes(text)) {
    const near = text ? ` (did you mean "${nearest(text, VIEWS)}"?)` : '';
    return { instrument: null, problems: [`view="${shorten(text)}" is not a view${near}: the views are ${listed}`] };
  }
  const word = (name) => {
    const value = get(name);
    if (value === null) return null;
    if (!value.trim()) problems.push(`${name} is empty: give a token (a word the model reads as one token) or its id`);
    else if (value.length > 100) problems.push(`${name} is longer than 100 characters: give one token`);
    else return value;
    return null;
  };
  let position = get('position');
  if (position !== null) {
    if (/^\s*\d{1,4}\s*$/u.test(position)) position = Number(position);
    else {
      problems.push(`position="${shorten(position)}" should be a whole number from 0 (positions count from 0)`);
      position = null;
    }
  }
  let corrupted = get('corrupted');
  if (corrupted !== null && (!corrupted.trim() || corrupted.length > ELEMENT_LIMITS.sentenceChars)) {
    problems.push(
      corrupted.trim()
        ? `corrupted is longer than ${ELEMENT_LIMITS.sentenceChars} characters`
        : 'corrupted is empty: give the corrupted prompt',
    );
    corrupted = null;
  }
  return {
    instrument: { view: text, target: word('target'), against: word('against'), position, corrupted },
    problems,
  };
}

/**
 * Why `view` cannot be shown on a model (null when it can): attribution and loss need a decoder's LM head.
 * @param {{ family: string, choices: { causal?: boolean } }} spec  model.spec
 */
export function unsupported(view, spec) {
  if ((view !== 'attribution' && view !== 'loss') || spec.choices?.causal) return null;
  const what = view === 'loss' ? 'no next-token loss to show' : 'no logit of a next token to attribute';
  return `view="${view}": ${spec.family} predicts masked tokens with a head that is not linear, so there is ${what}; it is for decoders (GPT-2, the LLaMA family). The lens, patching and head-scores views work on it.`;
}
