// The "Real model" section's controls: where the model comes from (the shipped one, a folder picked or dropped, an
// address), the progress bar with Cancel, the messages, the sentence (or ids), the induction lesson, and the places of
// the tokens, the prediction beside the model view's heads, and Generate, each part under a heading with its link
// (partLinks.js).
import { el, setError, show } from '../shared/dom.js';
import { typedModel } from './files.js';
import { HUB_MODELS, downloadText, hubNote } from './hubModels.js';
import { FAMILIES_TEXT, isLesson, lessonOf } from './realModel.js';
import { lesson } from './inductionLesson.js';
import { PartLinks } from './partLinks.js';

/** The Hub's models offered by name (hubModels.js): a button each, with its family, size and id. */
function hubList(onPick) {
  const host = (id) => {
    const { folder } = typedModel(id);
    return folder ? new URL(folder).origin : 'the Hub';
  };
  return el(
    'section',
    { class: 'hub-models', attrs: { 'aria-labelledby': 'hub-models-title' } },
    el('h3', { id: 'hub-models-title', text: 'Or a real English model, one click away' }),
    el('p', { class: 'hint', text: hubNote(host(HUB_MODELS[0].id)) }),
    el(
      'ul',
      { class: 'hub-list' },
      HUB_MODELS.map(({ id, name, about, mb }) =>
        el(
          'li',
          {},
          el('button', {
            type: 'button',
            class: 'secondary hub-model',
            text: name,
            dataset: { model: id },
            attrs: { 'aria-describedby': `hub-${id.replace(/\W/gu, '-')}` },
            on: { click: () => onPick(id) },
          }),
          el(
            'span',
            { class: 'hint', id: `hub-${id.replace(/\W/gu, '-')}` },
            `${about} · ${downloadText(mb)} · `,
            el('code', { text: id }),
          ),
        ),
      ),
    ),
  );
}

export class RealModelControls {
  /**
   * @param {{ onBuiltin: Function, onFiles: (files: File[]) => void, onDrop: (transfer: DataTransfer) => void,
   *   onCancel: Function, onUrl: (text: string) => void, onClearCache: Function, onText: Function,
   *   onAllOn: Function, onLessonSentence: Function }} handlers
   */
  constructor(handlers) {
    this.parts = new PartLinks(); // each part's heading and link
    const folder = el('input', {
      type: 'file',
      id: 'model-folder',
      on: { change: () => handlers.onFiles([...folder.files]) },
    });
    folder.webkitdirectory = true;
    const files = el('input', {
      type: 'file',
      id: 'model-files',
      multiple: true,
      on: { change: () => handlers.onFiles([...files.files]) },
    });
    this.url = el('input', {
      type: 'text',
      id: 'model-url',
      autocomplete: 'off',
      spellcheck: false,
      placeholder: 'openai-community/gpt2 or https://…/folder/',
    });
    this.urlButton = el('button', {
      type: 'button',
      id: 'model-url-open',
      class: 'secondary',
      text: 'Open',
      on: { click: () => handlers.onUrl(this.url.value) },
    });
    this.url.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') handlers.onUrl(this.url.value);
    });
    this.cacheLine = el('span', { id: 'model-cache', class: 'hint' });
    this.clearCache = el('button', {
      type: 'button',
      id: 'model-cache-clear',
      class: 'secondary small',
      text: 'Clear the cache',
      hidden: true,
      on: { click: handlers.onClearCache },
    });
    this.urlField = el(
      'div',
      {},
      el(
        'div',
        { class: 'model-url' },
        el(
          'label',
          { class: 'field grow', for: 'model-url' },
          el('span', { text: 'Hub model id or folder URL' }),
          this.url,
        ),
        this.urlButton,
      ),
      el('p', { class: 'hint model-cache' }, this.cacheLine, ' ', this.clearCache),
      hubList((id) => {
        this.url.value = id;
        handlers.onUrl(id);
      }),
    );
    this.builtin = el('button', {
      type: 'button',
      id: 'model-builtin',
      text: 'The shipped induction model',
      on: { click: handlers.onBuiltin },
    });
    this.cancel = el('button', {
      type: 'button',
      id: 'model-cancel',
      class: 'secondary',
      text: 'Cancel',
      hidden: true,
      on: { click: handlers.onCancel },
    });
    this.bar = el('progress', {
      id: 'model-progress',
      max: 1,
      value: 0,
      hidden: true,
      attrs: { 'aria-label': 'Loading the model' },
    });
    this.status = el('p', { id: 'model-status', class: 'hint', attrs: { role: 'status' } });
    this.errorLine = el('p', { id: 'model-error', class: 'inline-error', attrs: { role: 'alert' } });
    // What the page made of its link: parts it could not read, a layer or head counted from 1 (realModel.js).
    this.linkLine = el('p', { id: 'model-link-note', class: 'notice', hidden: true, attrs: { role: 'status' } });
    setError(this.errorLine, null);
    this.about = el('p', { id: 'model-about', class: 'hint' });
    this.filesLine = el('p', { id: 'model-files-note', class: 'hint', hidden: true });
    this.text = el('input', {
      type: 'text',
      id: 'model-text',
      autocomplete: 'off',
      spellcheck: false,
      maxLength: 2000,
      on: { input: handlers.onText },
    });
    // Without tokenizer.json: ids typed; for BERT, [MASK] among them stands for the id typed here.
    this.maskIdField = el('input', {
      type: 'number',
      id: 'model-mask-id',
      min: 0,
      step: 1,
      on: { input: handlers.onText },
    });
    this.maskPart = el(
      'span',
      { hidden: true },
      ' Type [MASK] where the model should guess (or click a token to mask it): ',
      el('label', { for: 'model-mask-id', text: 'its id in this vocabulary' }),
      ' ',
      this.maskIdField,
      ' (103 in BERT’s English vocabularies).',
    );
    this.idsRange = el('span');
    this.idsLine = el(
      'p',
      { id: 'model-ids-hint', class: 'hint model-ids', hidden: true },
      'This model has no tokenizer.json, so the page cannot split words into tokens: type token ids',
      this.idsRange,
      ', separated by spaces.',
      this.maskPart,
    );
    this.textLabel = el('span', { text: 'Sentence' });
    this.maskHint = el('p', {
      class: 'hint',
      hidden: true,
      text: 'BERT guesses masked words: type [MASK] in the sentence, or click a token to mask it.',
    });
    this.lessonParts = lesson(handlers.onLessonSentence);
    this.lesson = this.lessonParts.node;
    this.ablatedLine = el('p', { id: 'model-ablated', class: 'hint', attrs: { role: 'status' } });
    this.allOn = el('button', {
      type: 'button',
      class: 'secondary small',
      text: 'Switch every head on',
      hidden: true,
      on: { click: handlers.onAllOn },
    });
    this.walkLine = el('p', { id: 'model-walk', class: 'hint', attrs: { role: 'status' } });
    const mount = () => el('div');
    this.mounts = {
      tokens: mount(),
      predictions: mount(),
      view: mount(),
      rope: mount(),
      generate: mount(),
      investigate: mount(),
    };
    this.drop = el(
      'div',
      { class: 'model-drop', attrs: { 'aria-label': 'Model source' } },
      el(
        'div',
        { class: 'model-sources' },
        this.builtin,
        el('span', { class: 'hint', text: 'or' }),
        el('label', { class: 'file-button' }, el('span', { text: 'Pick a model folder' }), folder),
        el('label', { class: 'file-button' }, el('span', { text: 'Pick its files' }), files),
      ),
      el('p', {
        class: 'hint',
        text: `Drop a model folder here: config.json, model.safetensors (or its index and shards) and tokenizer.json of a checkpoint of ${FAMILIES_TEXT}. The files stay on this computer.`,
      }),
      this.urlField,
      el('div', { class: 'model-progress' }, this.bar, this.cancel),
      this.status,
      this.errorLine,
      this.linkLine,
    );
    this.drop.addEventListener('dragover', (event) => {
      event.preventDefault();
      this.drop.classList.add('dragging');
    });
    this.drop.addEventListener('dragleave', () => this.drop.classList.remove('dragging'));
    this.drop.addEventListener('drop', (event) => {
      event.preventDefault();
      this.drop.classList.remove('dragging');
      handlers.onDrop(event.dataTransfer);
    });
    const part = (section, text) => this.parts.heading(section, text);
    this.work = el(
      'div',
      { class: 'model-work', hidden: true },
      this.about,
      this.filesLine,
      el('label', { class: 'field', for: 'model-text' }, this.textLabel, this.text),
      this.maskHint,
      this.idsLine,
      this.lesson,
      part('tokens', 'Tokens and their ids'),
      this.mounts.tokens,
      // The prediction beside the heads (a column that stays in view while they scroll), under them when narrow.
      el(
        'div',
        { class: 'model-pair' },
        el('section', { class: 'model-next' }, part('next', 'What comes next'), this.mounts.predictions),
        el(
          'section',
          { class: 'model-heads' },
          part('heads', 'Every head: the model view'),
          el('p', {
            class: 'hint',
            text: 'Rows are queries, columns keys. A head’s number button opens it in the steps below with the model’s own numbers; its “off” button switches it off (ablation; again to switch it back on) and the prediction beside shows the change.',
          }),
          el('div', { class: 'model-ablation' }, this.ablatedLine, this.allOn),
          this.walkLine,
          this.mounts.view,
        ),
      ),
      part('investigate', 'Investigate: what each head contributes'),
      this.mounts.investigate,
      part('generate', 'Generate, step by step: the KV cache'),
      this.mounts.generate,
      this.mounts.rope,
    );
    this.element = el('div', { class: 'real-model' }, this.drop, this.work);
  }

  /** Places the tokens (with the vocabulary), the predictions and the model view. */
  mount({ tokens, vocabulary, predictions, view, rope, generate, investigate }) {
    this.mounts.investigate.append(investigate);
    this.mounts.generate.append(generate);
    this.mounts.rope.append(rope);
    this.mounts.tokens.append(tokens, vocabulary);
    this.mounts.predictions.append(predictions);
    this.mounts.view.append(view);
  }

  /** Shows the progress bar and Cancel (with a status line), or hides them. */
  busy(on, text = '') {
    show(this.bar, on);
    show(this.cancel, on);
    if (on) {
      this.bar.removeAttribute('value'); // indeterminate until a count comes
      this.status.textContent = text;
    } else if (this.status.textContent.endsWith('…')) this.status.textContent = '';
    this.element.setAttribute('aria-busy', String(on));
  }

  /** Whether a load or a run is shown under way (busy). */
  get working() {
    return this.element.getAttribute('aria-busy') === 'true';
  }

  progress(done, total, text) {
    this.bar.max = Math.max(total, 1);
    this.bar.value = done;
    this.status.textContent = text;
  }

  say(text) {
    this.status.textContent = text;
  }

  error(message) {
    setError(this.errorLine, message);
  }

  /** A model is loaded: what it is, the lesson for the shipped one, the mask hint for BERT. */
  loaded(about, builtin, bert) {
    this.about.textContent = about;
    show(this.lesson, builtin);
    show(this.maskHint, bert);
    show(this.work, true);
    this.walkLine.textContent = '';
    this.error(null);
  }

  /** The bytes of models read by address kept in the browser's cache (a second visit reads them from there). */
  cache(bytes) {
    this.cacheLine.textContent = bytes
      ? `${(bytes / 1e6).toFixed(1)} MB of models read by address are kept in this browser's cache.`
      : 'Nothing is kept in the cache.';
    show(this.clearCache, bytes > 0);
  }

  /** The lesson's first paragraph for run `r` (realModel.js's lessonOf; `vocab`: id → token), its way back. */
  lessonRun(r, vocab) {
    const text = this.text.value;
    this.lessonParts.lead.textContent = lessonOf(text, r, vocab);
    show(this.lessonParts.back, !isLesson(text));
  }

  /** What the page says of the optional files a folder URL does not have (`absent`: their names, or none). */
  filesNote(absent) {
    const names = absent || [];
    this.filesLine.textContent = names.length
      ? `${names.join(' and ')}, which ${names.length > 1 ? 'are' : 'is'} optional, ${names.length > 1 ? 'are' : 'is'} not in this folder: the page asked for ${names.length > 1 ? 'them' : 'it'}, and the 404 the browser's console shows is its answer.`
      : '';
    show(this.filesLine, names.length > 0);
  }

  /**
   * Token ids are typed (no tokenizer.json: `vocabSize`, else null), in a field labelled so; `mask`: BERT's [MASK]
   * id offered (-1: unknown), or false (no BERT).
   */
  idsHint(vocabSize, mask = false) {
    const on = vocabSize !== null;
    show(this.idsLine, on);
    show(this.maskPart, on && mask !== false);
    this.maskIdField.value = typeof mask === 'number' && mask >= 0 ? String(mask) : '';
    this.idsRange.textContent = on ? `, whole numbers from 0 to ${vocabSize - 1}` : '';
    this.textLabel.textContent = on ? 'Token ids' : 'Sentence';
    if (on) this.text.setAttribute('aria-describedby', 'model-ids-hint');
    else this.text.removeAttribute('aria-describedby');
  }

  /** Marks the sentence field as holding what the model cannot run (`problem`, said as the error), or not. */
  textProblem(problem) {
    this.text.setAttribute('aria-invalid', String(Boolean(problem)));
    if (problem) this.error(problem);
  }

  /** The [MASK] id typed beside the ids: a whole number below the vocabulary's size, else -1. */
  maskIdTyped(vocabSize) {
    const value = this.maskIdField.value.trim();
    return /^\d{1,9}$/u.test(value) && Number(value) < vocabSize ? Number(value) : -1;
  }

  ablated(text) {
    const faded = ' Their maps are faded: their weights are still computed, but their output is zeroed.';
    this.ablatedLine.textContent = text ? `${text}${faded}` : 'Every head is on.';
    show(this.allOn, Boolean(text));
  }

  walk(text) {
    this.walkLine.textContent = text;
  }

  /** What the page made of its link (empty: nothing to say). */
  linkNote(text) {
    this.linkLine.textContent = text;
    show(this.linkLine, Boolean(text));
  }
}
