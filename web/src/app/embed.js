// The page's Embed button (snippets of <attention-explorer> and of an <iframe> for the current example) and its
// embed mode (?embed&steps=…: only the chosen steps, without the page's chrome).
import { version } from '../../../package.json';
import { LESSON_STEPS } from '../lessons/registry.js';
import { encodeState } from '../shared/link.js';
import { readQuery, writeQuery } from './link.js';
import { copyText } from '../walk/clipboard.js';
import { byId, el } from '../shared/dom.js';
import { chooseSteps, STEPS } from '../elements/steps.js';
import { modelSteps } from '../elements/modelSteps.js';
import { headName, headNames } from '../shared/counting.js';

/** The page's section of each step of the elements (positions sit in step 1, W_o in step 8 with the heads). */
const SECTIONS = {
  x: 'step-x',
  positions: 'step-x',
  qkv: 'step-qkv',
  scores: 'step-scores',
  scale: 'step-scale',
  mask: 'step-mask',
  softmax: 'step-softmax',
  output: 'step-output',
  heads: 'step-heads',
  wo: 'step-heads',
  order: 'step-order',
  kv: 'step-kv',
  // The later lessons: their sections as the page's one table of lessons names them.
  ...Object.fromEntries(LESSON_STEPS.map((step) => [step.id, step.section])),
};

/** Where the elements come from in a snippet: a CDN, with the exact file and a pinned version. */
export const ELEMENTS_URL = `https://cdn.jsdelivr.net/npm/attention-wasm@${version}/web/src/elements/index.js`;

/** The steps an embed URL asks for (?embed&steps=a+b), or null when the page is not embedded. */
export function embedSteps(search) {
  const { values } = readQuery(search);
  if (!values.embed) return null;
  return chooseSteps(values.steps || null).steps.map((step) => step.names[0]);
}

const escapeAttribute = (text) =>
  String(text).replace(/&/gu, '&amp;').replace(/"/gu, '&quot;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');

/**
 * The two snippets for a state and a choice of steps: the element (with its script) and an iframe of this page.
 * @param {object} state
 * @param {string[]} steps  step names
 * @param {string} pageUrl  this page's address, without query or hash
 */
export function embedSnippets(state, steps, pageUrl) {
  const hash = encodeState(state);
  const names = steps.join(' ');
  const element =
    `<script type="module" src="${ELEMENTS_URL}"></script>\n` +
    `<attention-explorer steps="${escapeAttribute(names)}" state="${escapeAttribute(hash)}"></attention-explorer>`;
  const src = `${pageUrl}?embed&steps=${encodeURIComponent(steps.join(' ')).replace(/%20/gu, '+')}#${hash}`;
  const iframe = `<iframe src="${escapeAttribute(src)}" title="Attention, step by step" width="100%" height="640" loading="lazy"></iframe>`;
  return { element, iframe, src };
}

/**
 * The two snippets for a real model's head shown in the steps (`shown`: the real-model panel's link values, as
 * writeModelLink takes them, with `ids` when the text is token ids): the element on the same model, layer, head,
 * sentence and heads switched off, and an iframe of this page's link to that head. Model files dropped on the page
 * cannot be embedded: then `reason` says why, and there are no snippets.
 * @returns {{ element: string, iframe: string, src: string, note: string } | { reason: string }}
 */
export function modelSnippets(shown, steps, pageUrl) {
  if (shown.model === 'files')
    return {
      reason:
        'This head is of model files dropped on this page: they stay on this computer, and neither a link nor another page can read them, so it cannot be embedded. To embed it, put the folder on a web server that sends CORS headers (or on the Hub) and open it here by its URL or id.',
    };
  const chosen = modelSteps(steps.join(' ')).steps;
  const attributes = [
    ['steps', (chosen.length ? chosen : modelSteps(null).steps).join(' ')],
    ['model', shown.model],
    ['layer', shown.layer],
    ['head', shown.head],
    [shown.ids ? 'ids' : 'sentence', shown.text],
    ...(shown.ablate.length ? [['ablate', shown.ablate.map(([l, h]) => `${l}.${h}`).join(' ')]] : []),
  ];
  const written = attributes.map(([name, value]) => `${name}="${escapeAttribute(value)}"`).join(' ');
  const element = `<script type="module" src="${ELEMENTS_URL}"></script>\n<attention-explorer ${written}></attention-explorer>`;
  const src = `${pageUrl}?embed&steps=${encodeURIComponent(steps.join(' ')).replace(/%20/gu, '+')}&${writeQuery('', 'model', shown).slice(1)}`;
  const iframe = `<iframe src="${escapeAttribute(src)}" title="Attention, step by step: ${escapeAttribute(shown.model)}" width="100%" height="640" loading="lazy"></iframe>`;
  const edited = shown.edits.length
    ? ' Your edits are in the iframe’s link; the element shows the model’s own numbers.'
    : '';
  const note = `The element loads ${shown.model === 'builtin' ? 'the induction model shipped in the package' : shown.model} with attention-wasm/model in the reader’s browser and shows ${headName(shown.layer, shown.head)} (layer ${shown.layer} head ${shown.head})${shown.ablate.length ? ` with ${headNames(shown.ablate)} switched off` : ''}${chosen.length < steps.length ? ` (its steps: ${chosen.join(', ') || 'the default ones'})` : ''}.${edited}`;
  return { element, iframe, src, note };
}

/** Embed mode: marks the page so embed.css hides its chrome, and hides the steps not chosen. */
function applyEmbedMode(steps) {
  document.documentElement.classList.add('embedded');
  const keep = new Set(steps.map((name) => SECTIONS[name]));
  for (const section of document.querySelectorAll('main > section.step')) {
    if (!keep.has(section.id)) section.classList.add('embed-hidden');
  }
}

function snippetField(label, id) {
  const field = el('textarea', { id, class: 'copy-text', readOnly: true, rows: 4, attrs: { 'aria-label': label } });
  const status = el('span', { class: 'hint', attrs: { role: 'status' } });
  const copy = el('button', {
    type: 'button',
    class: 'secondary',
    text: `Copy ${label}`,
    on: {
      click: async () => {
        const copied = await copyText(field.value, { mount: status, label, lead: 'Copy it from here: ' });
        if (copied) status.textContent = 'Copied.';
      },
    },
  });
  return { field, node: el('div', { class: 'embed-snippet' }, el('strong', { text: label }), field, copy, status) };
}

/**
 * Adds the Embed button after "Copy link" and, with ?embed in the address, switches the page to embed mode.
 * @param {{ state: object }} app
 */
export function setupEmbed(app) {
  const steps = embedSteps(location.search);
  if (steps) applyEmbedMode(steps);
  const chosen = new Set(['scores', 'scale', 'softmax', 'output']);
  // The mask step follows the example (ticked for a causal or edited mask) until the reader ticks it themselves.
  let maskChosen = false;
  const checks = {};
  const boxes = el(
    'fieldset',
    { class: 'embed-steps' },
    el('legend', { text: 'Steps to show' }),
    STEPS.map((step) => {
      const name = step.names[0];
      checks[name] = el('input', {
        type: 'checkbox',
        checked: chosen.has(name),
        on: {
          change: (e) => {
            if (e.target.checked) chosen.add(name);
            else chosen.delete(name);
            maskChosen ||= name === 'mask';
            update();
          },
        },
      });
      return el('label', { class: 'check' }, checks[name], ` ${name}`);
    }),
  );
  const element = snippetField('element snippet', 'embed-element');
  const iframe = snippetField('iframe snippet', 'embed-iframe');
  const preview = el('a', { text: 'Open the embedded view', target: '_blank', rel: 'noopener' });
  // A real model's head in the steps: what the snippets hold, or why there are none.
  const modelNote = el('p', { id: 'embed-model-note', class: 'hint', hidden: true, attrs: { role: 'status' } });
  const panel = el(
    'div',
    { id: 'embed-panel', class: 'embed-panel' },
    el('p', {
      class: 'hint',
      text: 'Put this example in your own page: the element computes live with attention-wasm from a CDN (it fits a blog column and works under a strict CSP); the iframe shows this page with the chosen steps only.',
    }),
    boxes,
    modelNote,
    element.node,
    iframe.node,
    preview,
  );
  panel.hidden = true;
  const order = STEPS.map((step) => step.names[0]);
  function update() {
    if (!maskChosen) {
      const masked = app.state.causal || Boolean(app.state.mask);
      if (masked) chosen.add('mask');
      else chosen.delete('mask');
      checks.mask.checked = masked;
    }
    const names = order.filter((name) => chosen.has(name));
    const pageUrl = `${location.origin}${location.pathname}`;
    const chosenSteps = names.length ? names : ['softmax'];
    const shown = app.modelHead?.link; // the real model's head in the steps (its link values), or null
    const snippets = shown
      ? modelSnippets(shown, chosenSteps, pageUrl)
      : embedSnippets(app.state, chosenSteps, pageUrl);
    modelNote.textContent = snippets.reason ?? snippets.note ?? '';
    modelNote.hidden = !modelNote.textContent;
    for (const node of [element.node, iframe.node, preview]) node.hidden = Boolean(snippets.reason);
    element.field.value = snippets.element ?? '';
    iframe.field.value = snippets.iframe ?? '';
    if (snippets.src) preview.href = snippets.src;
  }
  const button = el('button', {
    id: 'embed-button',
    type: 'button',
    class: 'secondary',
    text: 'Embed…',
    attrs: { 'aria-expanded': 'false', 'aria-controls': 'embed-panel' },
    on: {
      click: () => {
        panel.hidden = !panel.hidden;
        button.setAttribute('aria-expanded', String(!panel.hidden));
        if (!panel.hidden) update();
      },
    },
  });
  byId('copy-link').after(' ', button);
  byId('link-status').after(panel);
  // The snippets follow the example: refreshed whenever the reader comes to the panel.
  panel.addEventListener('pointerenter', update);
  panel.addEventListener('focusin', update);
  return { update };
}
