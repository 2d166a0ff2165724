// A link to a lesson on the shipped model's instruments (?lesson=head-writes|logit-lens|patching): its section shown
// and its code (lessons/instruments/lessonsPanel.js, with the elements that draw its figures and attention-wasm/model)
// loaded by import() only then, so the page's first load does not carry it.
import { byId, setError } from '../shared/dom.js';
import { readQuery } from './link.js';

/** Opens the lesson the link names, if any; a `lesson=` that names none says so, and which there are. */
export async function setupInstrumentLessons() {
  const { values, warnings, given } = readQuery(location.search);
  if (!given.has('lesson')) return;
  const section = byId('step-instrument-lessons');
  section.hidden = false;
  if (!values.lesson)
    return setError(byId('instrument-lessons-error'), `This link's ${warnings.find((w) => w.startsWith('lesson='))}.`);
  try {
    const { openInstrumentLessons } = await import('../lessons/instruments/lessonsPanel.js');
    openInstrumentLessons(byId('mount-instrument-lessons'), values.lesson);
    section.scrollIntoView({ block: 'start' });
  } catch (error) {
    setError(
      byId('instrument-lessons-error'),
      `The lesson could not be loaded: ${error?.message ?? error}. Reload the page to try again.`,
    );
  }
}
