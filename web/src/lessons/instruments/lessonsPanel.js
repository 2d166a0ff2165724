// The lessons on the shipped model's instruments on the page: a row of the three lessons (each a permalink,
// ?lesson=…), the lesson's paragraphs, its figures (the elements with `view`, on the shipped model: the page's own
// Investigate views, elements/instruments/), each with a link that opens the page's own Investigate part on the
// figure's instrument and inputs, and the numbers they show put in words once drawn.
import '../../css/instrumentLessons.css'; // with this code only
import '../../elements/index.js'; // defines <attention-explorer>, whose `view` draws the figures
import { el } from '../../shared/dom.js';
import { writeQuery } from '../../app/link.js';
import { tabName } from '../../real-model/tools/investigate/tabs.js';
import { INSTRUMENT_LESSONS, instrumentLesson, investigateLinkValues } from './instrumentLessons.js';

/** The page's address with ?lesson=id (the other parameters kept). */
function lessonHref(id) {
  const url = new URL(location.href);
  url.searchParams.set('lesson', id);
  url.hash = '';
  return url.href;
}

/**
 * The page's address opening the real-model section's Investigate part on figure `attributes` (the lesson left: the
 * page's other parameters kept).
 */
function investigateHref(attributes) {
  const url = new URL(location.href);
  url.searchParams.delete('lesson');
  const values = investigateLinkValues(attributes);
  url.search = writeQuery(writeQuery(url.search, 'model', values), 'investigate', values);
  url.hash = '';
  return url.href;
}

/** The link under figure `index` to its instrument in Investigate. */
function investigateLink(attributes, index) {
  const tab = tabName(investigateLinkValues(attributes).invTab);
  return el(
    'p',
    { class: 'hint lesson-investigate' },
    el('a', {
      href: investigateHref(attributes),
      id: `instrument-lesson-investigate-${index}`,
      text: 'Open in Investigate',
      attrs: { 'aria-describedby': `instrument-lesson-investigate-what-${index}` },
    }),
    ' ',
    el('span', {
      id: `instrument-lesson-investigate-what-${index}`,
      text: `(the Real model section’s ${tab} tab, on this model with these inputs: change them there)`,
    }),
  );
}

/** A lesson's figure: an explorer with the figure's attributes (set as attributes: never parsed as markup). */
function figure(attributes, index) {
  const node = document.createElement('attention-explorer');
  node.id = `instrument-lesson-figure-${index}`;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/** The lesson `id` drawn into `mount`; its numbers' sentence follows its figure (attention-change). */
function showLesson(mount, nav, id) {
  const lesson = instrumentLesson(id);
  for (const link of nav.querySelectorAll('a'))
    if (link.dataset.lesson === id) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  const numbers = el('p', { class: 'lesson-numbers', id: 'instrument-lesson-numbers', attrs: { role: 'status' } });
  const figures = lesson.figures.map(figure);
  figures[lesson.saysFrom].addEventListener('attention-change', (event) => {
    numbers.textContent = lesson.say(event.detail.result, event.detail.result.tokens);
    numbers.dataset.said = 'true';
  });
  mount.replaceChildren(
    el(
      'article',
      { class: 'lesson-note instrument-lesson', dataset: { lesson: id } },
      el('h3', { id: 'instrument-lesson-title', text: lesson.title }),
      lesson.paragraphs.map((text) => el('p', { text })),
      figures[0],
      investigateLink(lesson.figures[0], 0),
      numbers,
      el('p', { text: lesson.after }),
      figures.slice(1).map((node, k) => [node, investigateLink(lesson.figures[k + 1], k + 1)]),
      el('p', { class: 'hint' }, el('a', { href: lessonHref(id), text: 'Link to this lesson' })),
    ),
  );
}

/**
 * Opens the lessons in `mount` at lesson `id` (link.js's INSTRUMENT_LESSON_IDS); the row's links switch lessons
 * without reloading, the address following.
 */
export function openInstrumentLessons(mount, id) {
  const lessons = el('div', {});
  const nav = el(
    'nav',
    { class: 'instrument-lessons-nav', attrs: { 'aria-label': 'Lessons on the trained model' } },
    INSTRUMENT_LESSONS.map((lesson) =>
      el('a', {
        href: lessonHref(lesson.id),
        text: lesson.title,
        dataset: { lesson: lesson.id },
        on: {
          click: (event) => {
            event.preventDefault();
            history.replaceState(history.state, '', lessonHref(lesson.id));
            showLesson(lessons, nav, lesson.id);
          },
        },
      }),
    ),
  );
  mount.replaceChildren(nav, lessons);
  showLesson(lessons, nav, id);
}
