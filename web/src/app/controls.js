// The controls' wiring: examples, sentence, sizes, seed, attention settings, edits, paste, link and PNG export.
import { EXAMPLES, activeExample, exampleAbout } from '../shared/examples.js';
import { pastedMatrix, sizesOf, toggledMask, typedCell } from '../shared/cellEdits.js';
import { headSlice, labelsFor, maskCell } from '../shared/inputs.js';
import { tokenCountNote } from '../shared/explanations.js';
import { LESSON_STEPS } from '../lessons/registry.js';
import { INPUT_NAMES } from '../shared/matrices.js';
import { MAX_SEED } from '../shared/rng.js';
import { encodeState } from '../shared/link.js';
import { LIMITS, SIZE_NAMES, checkSizes, withSizes } from '../shared/state.js';
import { tokenize } from '../shared/tokens.js';
import { takeNextSeed } from './seedAhead.js';
import { buildModelHold, holdForModel } from './modelHold.js';
import { copyText } from '../walk/clipboard.js';
import { byId, el, setError, show } from '../shared/dom.js';
import { downloadCanvas, heatmapPicture } from '../walk/heatmap.js';

/**
 * What the controls read and change: the state and last result, and the page's actions.
 * @typedef {{ state: object, result: object | null, setState: (next: object, options?: { from?: Element }) => void,
 *   writeHash: () => void, loadHash: () => void, clearInvalid: (name?: string) => void }} App
 */

const sizeInputs = {};

/**
 * The section that teaches what each example is for: choosing the example brings it into view. The lessons' table
 * names theirs; the starting example ("sentence") has none, the whole walk is its lesson.
 */
const LESSONS = {
  causal: 'step-mask',
  heads: 'step-heads',
  shared: 'step-scores',
  ...Object.fromEntries(
    LESSON_STEPS.filter((step) => step.example !== 'sentence').map((step) => [step.example, step.section]),
  ),
};

/** Adds the example buttons, size fields and precision options, and listens to every control. */
export function buildControls(app) {
  const fold = foldSettings();
  const examples = byId('examples');
  for (const example of EXAMPLES) {
    examples.append(
      el('button', {
        type: 'button',
        class: 'example',
        text: example.title,
        dataset: { example: example.id },
        on: {
          click: () => {
            clearFieldErrors();
            app.clearInvalid();
            app.setState(example.state());
            if (LESSONS[example.id]) goToLesson(LESSONS[example.id], fold);
          },
        },
      }),
    );
  }

  byId('example-lesson').addEventListener('click', () => goToLesson(LESSONS[activeExample(app.state)?.id], fold));

  const sizes = byId('sizes');
  for (const [key, label] of Object.entries(SIZE_NAMES)) {
    const input = el('input', {
      id: `size-${key}`,
      type: 'number',
      min: 1,
      max: LIMITS[key],
      step: 1,
      inputMode: 'numeric',
      on: { input: (event) => readSizes(app, event) },
    });
    sizeInputs[key] = input;
    sizes.append(el('label', { class: 'field', htmlFor: input.id }, el('span', { text: label }), input));
  }

  buildModelHold();

  byId('sentence').addEventListener('input', (event) => {
    // A real model's head in the steps: the sentence runs the model (its tokens become the rows).
    if (app.modelHead) return app.modelHead.onSentence(event.target.value);
    const typed = typedSentence(app.state, event.target.value);
    setError(byId('sentence-error'), typed.error ?? null);
    if (typed.state) app.setState(typed.state, { from: event.target });
  });

  byId('seed').addEventListener('input', (event) => {
    const value = event.target.value.trim();
    const seed = /^\d{1,10}$/u.test(value) ? Number(value) : NaN;
    if (!(seed >= 0 && seed <= MAX_SEED))
      return setError(byId('seed-error'), `The seed must be a whole number from 0 to ${MAX_SEED}.`);
    setError(byId('seed-error'), null);
    app.setState(redrawn(app, { ...app.state, seed }), { from: event.target });
  });
  byId('new-seed').addEventListener('click', async () => {
    setError(byId('seed-error'), null);
    const { seed, ready } = takeNextSeed(app.state); // on a large layer, made ahead in a worker (seedAhead.js)
    await ready;
    app.setState(redrawn(app, { ...app.state, seed }));
  });
  for (const radio of document.querySelectorAll('input[name="dist"]')) {
    radio.addEventListener('change', () => app.setState(redrawn(app, { ...app.state, dist: radio.value })));
  }
  byId('reset-numbers').addEventListener('click', () => app.setState(redrawn(app, { ...app.state })));

  byId('causal').addEventListener('change', (e) => {
    setError(byId('mask-message'), null);
    app.setState({ ...app.state, causal: e.target.checked });
  });
  byId('scaling').addEventListener('change', (e) => app.setState({ ...app.state, scaling: e.target.checked }));
  byId('temperature').addEventListener('input', (e) => {
    const t = Math.round(Number(e.target.value) * 100) / 100;
    app.setState(
      { ...app.state, temperature: Math.min(LIMITS.temperatureMax, Math.max(LIMITS.temperatureMin, t)) },
      { from: e.target },
    );
  });
  byId('positions').addEventListener('change', (e) => app.setState({ ...app.state, positions: e.target.checked }));
  byId('shuffle').addEventListener('click', () => app.setState({ ...app.state, shuffle: app.state.shuffle + 1 }));
  byId('share-qk').addEventListener('change', (e) =>
    app.setState({ ...app.state, shareQK: e.target.checked, wk: null }),
  );
  byId('head').addEventListener('change', (e) =>
    app.modelHead
      ? app.modelHead.onHead(Number(e.target.value))
      : app.setState({ ...app.state, head: Number(e.target.value) }),
  );
  byId('clear-mask').addEventListener('click', () => {
    setError(byId('mask-message'), null);
    app.setState({ ...app.state, mask: null });
  });

  const precision = byId('precision');
  for (let p = 0; p <= LIMITS.precision; p++) precision.append(el('option', { value: String(p), text: String(p) }));
  precision.addEventListener('change', () => app.setState({ ...app.state, precision: Number(precision.value) }));

  byId('paste-apply').addEventListener('click', () => applyPaste(app));
  byId('copy-link').addEventListener('click', () => copyLink(app));
  byId('download-png').addEventListener('click', () => downloadPng(app));
  window.addEventListener('hashchange', () => {
    if (location.hash === `#${encodeState(app.state)}`) return;
    app.loadHash();
  });
}

/** The state with `sentence` typed in (n follows its tokens), or the message of why not. */
export function typedSentence(state, sentence) {
  const tokens = tokenize(sentence);
  if (tokens.length === 0) return { error: 'Type at least one word: each word is a token.' };
  if (tokens.length > LIMITS.n)
    return { error: `This sentence has ${tokens.length} tokens; the page takes at most ${LIMITS.n}.` };
  const next = tokens.length === state.n ? { ...state } : withSizes(state, { ...sizesOf(state), n: tokens.length });
  return { state: { ...next, sentence } };
}

/** A number typed into cell (i, j) of input matrix `name`: the new state, or the message of why not. */
export function editCell(app, name, i, j, text) {
  const edit = typedCell(app.state, name, i, j, text);
  if (edit.error) return edit.error;
  app.setState(edit.state);
  return null;
}

/** A click on mask cell (i, j): blocks or allows it, or says why the causal mask keeps it. */
export function toggleMaskCell(app, i, j) {
  const toggle = toggledMask(app.state, i, j);
  setError(byId('mask-message'), toggle.error ?? null);
  if (toggle.state) app.setState(toggle.state);
}

/** The state with every matrix drawn again from the seed (typed numbers dropped). */
function redrawn(app, next) {
  app.clearInvalid();
  return { ...next, x: null, wq: null, wk: null, wv: null, wo: null };
}

function readSizes(app, event) {
  const sizes = {};
  for (const [key, input] of Object.entries(sizeInputs)) {
    sizes[key] = /^\d+$/u.test(input.value.trim()) ? Number(input.value) : NaN;
  }
  const errors = checkSizes(sizes);
  for (const [key, input] of Object.entries(sizeInputs))
    input.setAttribute('aria-invalid', String(Boolean(errors[key])));
  const messages = Object.values(errors);
  setError(byId('sizes-error'), messages.length ? `${messages.join('. ')}. The last good sizes are still used.` : null);
  if (messages.length) return;
  const same = Object.keys(sizes).every((key) => sizes[key] === app.state[key]);
  if (!same) app.setState(withSizes(app.state, sizes), { from: event?.target });
}

/**
 * On narrow screens (phones, or 150 % zoom on a projector) the settings fold into one button, so that the lesson
 * comes first; the button opens and closes them. On wide screens they are always shown beside the steps.
 */
function foldSettings() {
  const controls = document.querySelector('.controls');
  const toggle = byId('settings-toggle');
  const narrow = window.matchMedia('(max-width: 860px)');
  const sync = () =>
    toggle.setAttribute('aria-expanded', String(!narrow.matches || controls.classList.contains('open')));
  toggle.addEventListener('click', () => {
    controls.classList.toggle('open');
    sync();
  });
  narrow.addEventListener('change', sync);
  sync();
  /** Folds the settings away (on narrow screens, where they fold). */
  return () => {
    controls.classList.remove('open');
    sync();
  };
}

/**
 * Brings a step to the top of the screen, its heading focused (a screen reader reads where it went), and folds the
 * settings on a narrow screen, where they would stand between the reader and the step. Steps above it may still be
 * laid out for the first time (content-visibility) and move it: it is put back until it stays put for 3 frames.
 */
function goToLesson(id, fold) {
  if (!id) return;
  fold();
  const section = byId(id);
  const heading = section.querySelector('h2');
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
  let last = NaN;
  let still = 0;
  let frames = 0;
  const place = () => {
    section.scrollIntoView({ block: 'start' });
    const top = section.getBoundingClientRect().top; // not 0 for the last steps, at the page's end
    still = Math.abs(top - last) < 1 ? still + 1 : 0;
    last = top;
    if (still < 3 && ++frames < 60) requestAnimationFrame(place);
  };
  requestAnimationFrame(place);
}

/** Clears the messages under the fields (a new example or link replaces what they were about). */
export function clearFieldErrors() {
  for (const id of ['sentence-error', 'sizes-error', 'seed-error', 'paste-error', 'mask-message'])
    setError(byId(id), null);
  for (const input of Object.values(sizeInputs)) input.setAttribute('aria-invalid', 'false');
}

/**
 * Shows the state in the controls, leaving alone the one being typed in (`from`) and the focused one; `modelHead`: a
 * real model's head in the steps (main.js's app.modelHead), which holds the settings it does not take.
 */
export function syncControls(state, from, modelHead = null) {
  holdForModel(modelHead, Object.values(sizeInputs));
  const set = (node, property, value) => {
    if (node !== from && node !== document.activeElement && node[property] !== value) node[property] = value;
  };
  set(byId('sentence'), 'value', state.sentence);
  for (const [key, input] of Object.entries(sizeInputs)) {
    if (input !== from && input.getAttribute('aria-invalid') !== 'true') set(input, 'value', String(state[key]));
  }
  set(byId('seed'), 'value', String(state.seed));
  for (const radio of document.querySelectorAll('input[name="dist"]')) radio.checked = radio.value === state.dist;
  byId('causal').checked = state.causal;
  byId('scaling').checked = state.scaling;
  set(byId('temperature'), 'value', String(state.temperature));
  byId('temperature-value').textContent = String(state.temperature);
  byId('share-qk').checked = state.shareQK;
  byId('positions').checked = state.positions;
  byId('precision').value = String(state.precision);
  const active = activeExample(state);
  for (const button of document.querySelectorAll('#examples button')) {
    button.setAttribute('aria-pressed', String(button.dataset.example === active?.id));
  }
  byId('example-about').textContent = exampleAbout(state);
  const lesson = LESSONS[active?.id];
  const lessonButton = byId('example-lesson');
  show(lessonButton, Boolean(lesson));
  if (lesson) lessonButton.textContent = `Go to step ${byId(lesson).querySelector('.step-number').textContent} ↓`;
  const countNote = tokenCountNote(state);
  byId('sizes-note').textContent = countNote;
  show(byId('sizes-note'), Boolean(countNote));
  const head = byId('head');
  if (head.options.length !== state.numHeads) {
    head.replaceChildren(
      ...Array.from({ length: state.numHeads }, (_, h) => el('option', { value: String(h), text: `head ${h}` })),
    );
  }
  head.value = String(state.head);
  show(byId('head-field'), state.numHeads > 1);
  show(byId('clear-mask'), Boolean(state.mask));
  show(
    byId('reset-numbers'),
    INPUT_NAMES.some((name) => state[name]),
  );
  byId('paste-target').querySelector('option[value="wk"]').disabled = state.shareQK;
}

function applyPaste(app) {
  const error = byId('paste-error');
  const done = byId('paste-done');
  done.textContent = '';
  const target = byId('paste-target').value;
  const paste = pastedMatrix(app.state, target, byId('paste-text').value);
  if (paste.error) return setError(error, paste.error);
  setError(error, null);
  app.clearInvalid(target);
  done.textContent = paste.message;
  app.setState(paste.state);
}

async function copyLink(app) {
  app.writeHash();
  const status = byId('link-status');
  const copied = await copyText(location.href, {
    mount: status,
    label: 'Link to this example',
    lead: 'Copy this link:',
  });
  if (copied) status.textContent = 'Link copied. Anyone who opens it sees this exact example.';
}

function downloadPng(app) {
  const { state, result } = app;
  if (!result) return;
  const labels = labelsFor(state);
  const weights = headSlice(result.weights, state.head);
  const title = `Attention weights${state.numHeads > 1 ? `, head ${state.head}` : ''}: ${state.sentence.length > 300 ? `${state.sentence.slice(0, 300)}…` : state.sentence}`;
  const picture = heatmapPicture({
    data: weights.data,
    rows: state.n,
    cols: state.n,
    rowLabels: labels,
    colLabels: labels,
    title,
    precision: state.precision,
    blocked: (i, j) => maskCell(state, i, j) !== 'open',
  });
  downloadCanvas(picture, 'attention-weights.png');
}
