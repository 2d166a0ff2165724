// The lesson on the shipped induction model, above its tokens: what its heads do (figures from its model card,
// web/public/models/induction/README.md), what switching them off shows, and the papers. Plain DOM.
import { el } from '../shared/dom.js';
import { INSTRUMENT_LESSONS } from '../lessons/instruments/instrumentLessons.js';

const PAPERS = [
  [
    'https://transformer-circuits.pub/2022/in-context-learning-and-induction-heads/index.html',
    'Olsson et al. 2022, “In-context learning and induction heads”',
  ],
  [
    'https://transformer-circuits.pub/2021/framework/index.html',
    'Elhage et al. 2021, “A Mathematical Framework for Transformer Circuits”',
  ],
];

/**
 * The lesson on the shipped model (figures from its model card, web/public/models/induction/README.md). Its first
 * paragraph (`lead`) follows the run (lessonRun); `back` puts the lesson's sentence back.
 */
export function lesson(onLessonSentence) {
  const p = (text) => el('p', { text });
  const lead = el('span', {});
  const back = el('button', {
    type: 'button',
    class: 'secondary small',
    text: 'Back to the lesson’s sentence',
    hidden: true,
    on: { click: onLessonSentence },
  });
  const node = el(
    'div',
    { class: 'lesson-note model-lesson' },
    el('h3', { text: 'Induction heads: how a model copies' }),
    el('p', { id: 'model-lesson-lead' }, lead, ' ', back),
    p(
      'L0H2 (layer 0 head 2) is a previous-token head: each row puts its weight one column left of the diagonal (0.60 on average on held-out sequences). It writes “the word before me was …” into every position.',
    ),
    p(
      'The four heads of layer 1 (L1H0–L1H3) are induction heads: in the second copy, each token looks at the token after its earlier occurrence, a stripe one column right of the first copy’s diagonal (0.65–0.83 of their weight). That token is what they copy.',
    ),
    p(
      'Switch off the four heads of layer 1 (their “off” buttons): “ball” falls out of the top of the list. On the held-out sequences, top-1 accuracy on the second copy falls from 1.00 to 0.004; switching off L0H2 alone drops it to 0.07, since the induction heads read what it wrote. Any three induction heads still copy.',
    ),
    el(
      'p',
      { class: 'instrument-lesson-links' },
      'Go further, on this model: ',
      INSTRUMENT_LESSONS.flatMap((l, i) => [
        i ? ' · ' : '',
        el('a', { href: `?lesson=${l.id}`, text: l.title.split(':')[0] }),
      ]),
      '.',
    ),
    el(
      'p',
      {},
      'Read more: ',
      PAPERS.flatMap(([href, text], i) => [i ? '; ' : '', el('a', { href, text, attrs: { rel: 'noopener' } })]),
      '.',
    ),
  );
  return { node, lead, back };
}
