// "Use your own model": a panel in the settings where files are dropped or picked (.safetensors, .npz, .npy,
// .json), read with attention-wasm/io, listed with their shapes and mapped (own-model/modelFile.js) to the page's X and
// weights. A file that does not fit leaves the page as it was, with a message naming the tensor and both shapes.
import { openSafetensors, readNpy, readNpz } from '../../../src/js/io/index.js';
import {
  AS_THE_MODEL,
  checkMapping,
  extract,
  familyWeights,
  guessMapping,
  squeeze,
  widenKvHeads,
} from './modelFile.js';
import { checkSizes, withSizes } from '../shared/state.js';
import { tokenWord } from '../shared/tokens.js';
import { el, setError } from '../shared/dom.js';
import { TensorChooser } from './tensorChooser.js';

/** Files larger than this are refused before they are read (a safetensors file is only opened, never copied). */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** Reads the files into one list of tensors (read lazily) and a config or token list from JSON. */
async function readFiles(files) {
  const tensors = new Map();
  let tokens = null;
  let config = null;
  for (const file of files) {
    const lower = file.name.toLowerCase();
    if (lower.endsWith('.safetensors')) {
      const opened = await openSafetensors(file);
      for (const t of opened.tensors) tensors.set(t.name, { shape: t.shape, read: () => opened.read(t.name) });
      continue;
    }
    if (file.size > MAX_FILE_BYTES) {
      throw new Error(
        `${file.name} is ${(file.size / 2 ** 20).toFixed(0)} MB, over the page's limit of ${MAX_FILE_BYTES / 2 ** 20} MB for .npz, .npy and .json files; nothing was read`,
      );
    }
    if (lower.endsWith('.npz')) {
      for (const [name, t] of Object.entries(await readNpz(file)))
        tensors.set(name, { shape: t.shape, read: async () => t });
    } else if (lower.endsWith('.npy')) {
      const t = readNpy(new Uint8Array(await file.arrayBuffer()));
      tensors.set(file.name.replace(/\.npy$/iu, ''), { shape: t.shape, read: async () => t });
    } else if (lower.endsWith('.json')) {
      const value = JSON.parse(await file.text());
      if (Array.isArray(value)) tokens = value.map(String);
      else if (Array.isArray(value?.tokens)) {
        tokens = value.tokens.map(String);
        config = value;
      } else config = value;
    } else throw new Error(`${file.name}: the page reads .safetensors, .npz, .npy and .json files`);
  }
  return { tensors, tokens, config };
}

export class ModelPanel {
  /** @param {{ state: object, result: object | null, setState: Function }} app */
  constructor(app) {
    this.app = app;
    this.loaded = null;
    this.input = el('input', {
      type: 'file',
      multiple: true,
      accept: '.safetensors,.npz,.npy,.json',
      on: { change: () => this.#load([...this.input.files]) },
    });
    this.layer = el('select', { on: { change: () => this.#map() } });
    // The heads: from the file's config or attentions when it has them, else a guess the panel says is one; the user
    // can always say otherwise.
    this.headsHint = el('p', { class: 'hint', id: 'mp-heads-hint' });
    this.heads = el('input', {
      type: 'number',
      min: 1,
      max: 16,
      step: 1,
      attrs: { 'aria-describedby': this.headsHint.id },
      on: {
        input: () => {
          this.headsTyped = true;
          this.#map();
        },
      },
    });
    this.chooser = new TensorChooser(() => this.#map());
    this.list = el('ul', { class: 'mp-list' });
    this.mapping = el('ul', { class: 'mp-mapping' });
    this.error = el('p', { class: 'inline-error', attrs: { role: 'alert' } });
    this.done = el('p', { class: 'hint', attrs: { role: 'status' } });
    this.use = el('button', { type: 'button', text: 'Use these numbers', on: { click: () => this.#apply() } });
    this.use.disabled = true;
    setError(this.error, null);
    this.element = el(
      'section',
      { class: 'panel model-panel', attrs: { 'aria-label': 'Use your own model' } },
      el('h2', { text: 'Use your own model' }),
      el('p', {
        class: 'hint',
        text: 'Drop or pick one layer exported from a model: .safetensors, .npz or .npy tensors, and .json tokens or config. Links never hold a file’s numbers: a link made now opens the random example of the same sizes.',
      }),
      el('label', { class: 'field' }, el('span', { text: 'Files' }), this.input),
      el('label', { class: 'field' }, el('span', { text: 'Layer' }), this.layer),
      el('label', { class: 'field' }, el('span', { text: 'Heads' }), this.heads),
      this.headsHint,
      this.list,
      this.mapping,
      this.chooser.element,
      this.use,
      this.error,
      this.done,
    );
    this.element.addEventListener('dragover', (event) => event.preventDefault());
    this.element.addEventListener('drop', (event) => {
      event.preventDefault();
      this.#load([...(event.dataTransfer?.files ?? [])]);
    });
  }

  async #load(files) {
    setError(this.error, null);
    this.done.textContent = '';
    try {
      this.loaded = await readFiles(files);
    } catch (error) {
      this.loaded = null;
      this.use.disabled = true;
      return setError(this.error, `The files could not be read, so the page is unchanged: ${error.message}`);
    }
    const infos = [...this.loaded.tensors].map(([name, t]) => ({ name, shape: t.shape }));
    this.list.replaceChildren(...infos.map((t) => el('li', { text: `${t.name} [${t.shape.join(', ')}]` })));
    // The layer the JSON names (the README script's "layer"), else the first: the select starts on it.
    const guess = guessMapping(infos, { config: this.loaded.config });
    this.layer.replaceChildren(...guess.layers.map((l) => el('option', { value: String(l), text: `layer ${l}` })));
    this.layer.value = String(guess.layer);
    this.layer.disabled = guess.layers.length === 0; // a layout without layers (nn.MultiheadAttention, plain names)
    this.headsTyped = false;
    this.heads.value = String(guess.numHeads ?? 1);
    this.chooser.setTensors(infos, guess.slots);
    this.#map();
  }

  /** The heads typed by the user, else the guess, else 1. */
  #heads(guess) {
    const typed = Number(this.heads.value);
    return Number.isInteger(typed) && typed >= 1 ? typed : (guess.numHeads ?? 1);
  }

  /** What the heads field says of its number: from the JSON, from the attentions, typed, or a guess. */
  #headsText(g, numHeads) {
    if (this.headsTyped) return `${numHeads} head${numHeads > 1 ? 's' : ''}, as typed.`;
    if (g.headsFrom === 'config')
      return `${numHeads} head${numHeads > 1 ? 's' : ''}, from the JSON's num_attention_heads.`;
    if (g.headsFrom === 'attentions')
      return `${numHeads} head${numHeads > 1 ? 's' : ''}, from the file's attention probabilities.`;
    return `Neither a JSON (num_attention_heads) nor the file's attention probabilities say how many heads this layer has: ${numHeads} is a guess. Type the model's number of heads (num_heads of nn.MultiheadAttention) in Heads.`;
  }

  #map() {
    if (!this.loaded) return;
    const { tensors, config } = this.loaded;
    const infos = [...tensors].map(([name, t]) => ({ name, shape: t.shape }));
    const guessed = guessMapping(infos, {
      layer: this.layer.value === '' ? undefined : Number(this.layer.value),
      config,
    });
    // A layout the page does not know is mapped by hand, in the chooser.
    this.chooser.element.hidden = guessed.layout !== null;
    this.guess = guessed.layout === null ? { ...guessed, slots: this.chooser.slots() } : guessed;
    const g = this.guess;
    const numHeads = this.#heads(g);
    this.headsHint.textContent = this.#headsText(g, numHeads);
    const lines = [
      `layout: ${g.title}`,
      `heads: ${numHeads}${this.headsTyped || g.headsFrom ? '' : ' (a guess)'}${g.numKvHeads ? `, key/value heads ${g.numKvHeads}` : ''}`,
    ];
    for (const [slot, source] of Object.entries(g.slots)) {
      const part = source.part ? ` (part ${source.part.index + 1} of 3)` : '';
      lines.push(`${slot} ← ${source.name}${part}${source.transpose ? ', transposed' : ''}`);
    }
    for (const slot of ['wq', 'wk', 'wv', 'wo'])
      if (!g.slots[slot]) lines.push(`${slot} ← the page's seed (no tensor)`);
    if (['bq', 'bk', 'bv', 'bo'].some((b) => g.slots[b]))
      lines.push('The biases are passed to attention-wasm (bq, bk, bv, bo); the grids of Q, K, V include them.');
    lines.push(...g.notes);
    this.mapping.replaceChildren(...lines.map((text) => el('li', { text })));
    const errors = checkMapping(g.slots, (name) => tensors.get(name)?.shape, { numHeads, numKvHeads: g.numKvHeads });
    setError(this.error, errors.length ? errors.join('. ') : null);
    this.use.disabled = errors.length > 0;
  }

  async #apply() {
    const g = this.guess;
    const before = this.app.result;
    const { tensors, tokens } = this.loaded;
    const numHeads = this.#heads(g);
    // A family's (GPT-2, BERT, LLaMA, GPT-NeoX, …): attention-wasm/model's attentionWeightsFrom reads them, as its
    // family file says; other layouts are cut here.
    const headCounts = { numHeads, numKvHeads: g.numKvHeads };
    const family = await familyWeights(g, (name) => tensors.get(name).read(), headCounts);
    const read = async (slot) =>
      family?.[slot] ??
      (g.slots[slot] ? extract(await tensors.get(g.slots[slot].name).read(), g.slots[slot], headCounts) : null);
    // Grouped-query attention (fewer key/value heads): the page runs it as such, kvHeads = H_kv (step 13).
    const kvHeads = g.numKvHeads && g.numKvHeads !== numHeads ? g.numKvHeads : null;
    const kv = kvHeads ?? numHeads;
    const [x, wq, wo] = [await read('x'), await read('wq'), await read('wo')];
    let [wk, wv] = [await read('wk'), await read('wv')];
    const state = this.app.state;
    const sizes = {
      n: x.length,
      dModel: x[0].length,
      dK: wq ? wq[0].length / numHeads : wk ? wk[0].length / kv : state.dK,
      dV: wv ? wv[0].length / kv : wo ? wo.length / numHeads : state.dV,
      numHeads,
    };
    const errors = Object.values(checkSizes(sizes));
    if (errors.length)
      return setError(this.error, `This layer does not fit the page, which is unchanged: ${errors.join('; ')}`);
    if (kvHeads) {
      if (wk) wk = widenKvHeads(wk, kvHeads, numHeads);
      if (wv) wv = widenKvHeads(wv, kvHeads, numHeads);
    }
    const words = (tokens ?? []).slice(0, sizes.n).map((token, i) => tokenWord(token, `t${i}`));
    while (words.length < sizes.n) words.push(`t${words.length}`);
    const base = withSizes(
      { ...state, sentence: words.join(' '), x: null, wq: null, wk: null, wv: null, wo: null },
      sizes,
    );
    const biases = {};
    for (const key of ['bq', 'bk', 'bv', 'bo']) {
      const values = await read(key);
      if (values) biases[key] = { data: Float32Array.from(values), shape: [values.length] };
    }
    // GPT-2 and LLaMA are decoders: each token attends only to itself and the tokens before it.
    const causal = Boolean(g.choices?.causal);
    this.app.setState({
      ...base,
      x,
      wq,
      wk,
      wv,
      wo,
      kvHeads,
      ...AS_THE_MODEL,
      causal,
      biases,
    });
    const heads = `${numHeads} head${numHeads > 1 ? 's' : ''}${this.headsTyped || g.headsFrom ? '' : ' (a guess: set Heads)'}`;
    const grouped = kvHeads ? ` sharing ${kvHeads} key/value heads (grouped-query attention, step 13)` : '';
    this.done.textContent = `Loaded layer ${g.layer}: n = ${sizes.n}, d_model = ${sizes.dModel}, ${heads}${grouped}${causal ? ', causal' : ''}.`;
    if (g.slots.attentions) this.#whenComputed(before, () => this.#compare(g));
  }

  /** Calls `then` once the page has a result other than `before` (it computes in an animation frame). */
  #whenComputed(before, then, frames = 120) {
    if (this.app.result && this.app.result !== before) return then();
    if (frames > 0) requestAnimationFrame(() => this.#whenComputed(before, then, frames - 1));
  }

  /** The model's own attention probabilities of the layer loaded (`g`, its mapping) beside ours: the largest difference. */
  async #compare(g) {
    const result = this.app.result;
    if (!result) return;
    const theirs = await this.loaded.tensors.get(g.slots.attentions.name).read();
    const shape = squeeze(theirs.shape);
    if (shape.length !== 3 || result.weights.data.length !== theirs.data.length) return;
    let max = 0;
    for (let k = 0; k < theirs.data.length; k++) max = Math.max(max, Math.abs(theirs.data[k] - result.weights.data[k]));
    this.done.textContent += ` Largest difference from the file's own attention probabilities: ${max.toExponential(2)}.`;
    // LLaMA-style models (LLaMA, Mistral, Qwen…) rotate Q and K by position before the scores; the page does not.
    if (this.guess.choices?.rope)
      this.done.textContent +=
        ' This layout comes from a rotary model: it rotates each query and key by its position (rotary position embeddings, RoPE) before the scores, which the page does not do, so a large difference is expected.';
  }
}
