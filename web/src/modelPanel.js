// "Use your own model": a panel in the settings where files are dropped or picked (.safetensors, .npz, .npy,
// .json), read with attention-wasm/io, listed with their shapes and mapped (model/modelFile.js) to the page's X and
// weights. A file that does not fit leaves the page as it was, with a message naming the tensor and both shapes.
import { openSafetensors, readNpy, readNpz } from '../../src/js/io/index.js';
import { checkMapping, extract, guessMapping, repeatKvHeads, squeeze } from './model/modelFile.js';
import { checkSizes, withSizes } from './model/state.js';
import { el, setError } from './view/dom.js';

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

/** A token as a label: no spaces inside (each word of the sentence is a token), GPT-2's "Ġ" dropped. */
const label = (token, i) => token.replace(/^Ġ/u, '').replace(/\s+/gu, '·') || `t${i}`;

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
    // The heads: from the file's config or attentions when it has them; the user can always say otherwise.
    this.heads = el('input', { type: 'number', min: 1, max: 16, step: 1, on: { input: () => this.#map() } });
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
      this.list,
      this.mapping,
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
    const guess = guessMapping(infos, { config: this.loaded.config });
    this.layer.replaceChildren(...guess.layers.map((l) => el('option', { value: String(l), text: `layer ${l}` })));
    this.heads.value = String(guess.numHeads ?? 1);
    this.#map();
  }

  /** The heads typed by the user, else the guess, else 1. */
  #heads(guess) {
    const typed = Number(this.heads.value);
    return Number.isInteger(typed) && typed >= 1 ? typed : (guess.numHeads ?? 1);
  }

  #map() {
    if (!this.loaded) return;
    const { tensors, config } = this.loaded;
    const infos = [...tensors].map(([name, t]) => ({ name, shape: t.shape }));
    this.guess = guessMapping(infos, { layer: Number(this.layer.value), config });
    const g = this.guess;
    const numHeads = this.#heads(g);
    const lines = [
      `layout: ${g.title}`,
      `heads: ${numHeads}${g.numKvHeads ? `, key/value heads ${g.numKvHeads}` : ''}`,
    ];
    for (const [slot, source] of Object.entries(g.slots)) {
      const part = source.part ? ` (part ${source.part.index + 1} of 3)` : '';
      lines.push(`${slot} ← ${source.name}${part}${source.transpose ? ', transposed' : ''}`);
    }
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
    const read = async (slot) => extract(await tensors.get(g.slots[slot].name).read(), g.slots[slot]);
    const numHeads = this.#heads(g);
    const x = await read('x');
    let wk = await read('wk');
    let wv = await read('wv');
    if (g.numKvHeads && g.numKvHeads !== numHeads) {
      wk = repeatKvHeads(wk, g.numKvHeads, numHeads);
      wv = repeatKvHeads(wv, g.numKvHeads, numHeads);
    }
    const wq = await read('wq');
    const sizes = {
      n: x.length,
      dModel: x[0].length,
      dK: wq[0].length / numHeads,
      dV: wv[0].length / numHeads,
      numHeads,
    };
    const errors = Object.values(checkSizes(sizes));
    if (errors.length)
      return setError(this.error, `This layer does not fit the page, which is unchanged: ${errors.join('; ')}`);
    const words = (tokens ?? []).slice(0, sizes.n).map(label);
    while (words.length < sizes.n) words.push(`t${words.length}`);
    const base = withSizes({ ...this.app.state, sentence: words.join(' ') }, sizes);
    const wo = g.slots.wo ? await read('wo') : null;
    const biases = {};
    for (const key of ['bq', 'bk', 'bv', 'bo']) {
      if (!g.slots[key]) continue;
      let values = await read(key);
      if ((key === 'bk' || key === 'bv') && g.numKvHeads && g.numKvHeads !== numHeads)
        values = repeatKvHeads([values], g.numKvHeads, numHeads)[0];
      biases[key] = { data: Float32Array.from(values), shape: [values.length] };
    }
    // GPT-2 and LLaMA are decoders: each token attends only to itself and the tokens before it.
    const causal = g.layout === 'gpt2' || g.layout === 'llama';
    this.app.setState({
      ...base,
      x,
      wq,
      wk,
      wv,
      wo,
      mask: null,
      positions: false,
      temperature: 1,
      scaling: true,
      shareQK: false,
      causal,
      biases,
      fromFile: true,
    });
    this.done.textContent = `Loaded layer ${g.layer}: n = ${sizes.n}, d_model = ${sizes.dModel}, ${numHeads} heads${causal ? ', causal' : ''}.`;
    if (g.slots.attentions) this.#whenComputed(before, () => this.#compare());
  }

  /** Calls `then` once the page has a result other than `before` (it computes in an animation frame). */
  #whenComputed(before, then, frames = 120) {
    if (this.app.result && this.app.result !== before) return then();
    if (frames > 0) requestAnimationFrame(() => this.#whenComputed(before, then, frames - 1));
  }

  /** The model's own attention probabilities beside ours: the largest difference. */
  async #compare() {
    const result = this.app.result;
    if (!result) return;
    const theirs = await this.loaded.tensors.get(this.guess.slots.attentions.name).read();
    const shape = squeeze(theirs.shape);
    if (shape.length !== 3 || result.weights.data.length !== theirs.data.length) return;
    let max = 0;
    for (let k = 0; k < theirs.data.length; k++) max = Math.max(max, Math.abs(theirs.data[k] - result.weights.data[k]));
    this.done.textContent += ` Largest difference from the file's own attention probabilities: ${max.toExponential(2)}.`;
    // LLaMA-style models (LLaMA, Mistral, Qwen…) rotate Q and K by position before the scores; the page does not.
    if (this.guess.layout === 'llama')
      this.done.textContent +=
        ' This layout comes from a rotary model: it rotates each query and key by its position (rotary position embeddings, RoPE) before the scores, which the page does not do, so a large difference is expected.';
  }
}
