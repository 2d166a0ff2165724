// A loaded model: its config, its checkpoint opened by the headers, every tensor of the forward found and checked,
// and the model's WebAssembly module. run() walks the forward one call at a time (forward.h): the embeddings of the
// tokens used, then each layer with its weights read from the checkpoint and written into WebAssembly memory for
// that layer's call only, then the final norm and the LM head by blocks of the vocabulary.
import { AttentionError } from '../errors.js';
import { Attention, runPlan } from '../attention.js';
import { ropeTables } from '../rope.js';
import { Tensor } from '../tensor.js';
import { layerOutputs, layerScratchBytes, made, modelDims, modelPlan, weight } from './calls.js';
import { editWeights, layerEdits, readEdits } from './edits.js';
import { readRunInput, readRunOptions, sliceCapture, topK } from './results.js';
import { runBytes } from './run-bytes.js';
import { checkAborted } from './signal.js';

// Rows of the LM head's matrix per call: 16 MiB of float32 at a time, whatever the vocabulary.
const HEAD_BLOCK_BYTES = 16 * 2 ** 20;

export class Model {
  #attention;
  #checkpoint;
  #tensors; // { embeddings, embedNorm, layers: [...], final, head, headBias }: resolved rows (checkpoint.js)
  #onProgress;
  #tokenizer;

  /** @internal use loadModel */
  constructor({ module, checkpoint, config, json, tensors, onProgress, tokenizer = null }) {
    this.#tokenizer = tokenizer;
    /** Whether the folder had a tokenizer.json: run() then takes text. */
    this.hasTokenizer = tokenizer !== null;
    this.#attention = new Attention(module);
    this.#checkpoint = checkpoint;
    this.#tensors = tensors;
    this.#onProgress = onProgress;
    /** 'gpt2' | 'bert' | 'llama' */
    this.family = config.family;
    /** config.json as parsed. */
    this.config = json;
    /** The sizes and choices read from config.json (config.js). */
    this.spec = config;
    this.run = this.run.bind(this);
    this.dispose = this.dispose.bind(this);
    this.heapBytesInUse = this.heapBytesInUse.bind(this);
  }

  /** Bytes of tensors read from the checkpoint so far (headers not counted). */
  get bytesRead() {
    return this.#checkpoint?.bytesRead ?? 0;
  }

  /** Bytes of the model's WebAssembly memory: it grows to one layer's call at most, and never shrinks. */
  get memoryBytes() {
    return this.#attention?.memoryBytes ?? 0;
  }

  /** Bytes of its heap in use now: back to the same baseline after every run, failed or not. */
  heapBytesInUse() {
    return this.#attention?.heapBytesInUse() ?? 0;
  }

  /** Forgets the checkpoint and the module; later runs throw TERMINATED. */
  async dispose() {
    this.#attention = this.#checkpoint = this.#tensors = null;
  }

  /**
   * One forward pass.
   *
   * | result        | shape                                                                  |
   * |---------------|------------------------------------------------------------------------|
   * | ids           | number[] n                                                             |
   * | attentions    | num_layers Tensors [H, n, n] (as output_attentions, no batch)          |
   * | hiddenStates  | num_layers + 1 Tensors [n, d_model] (as output_hidden_states)          |
   * | logits        | Tensor [n, vocab], or null without an LM head (BertModel)              |
   * | next          | top-k of the last position: [{ id, p, logit }]                          |
   * | captures      | per { layer, head } asked: that head's steps and its layer's           |
   * With `edits`, every step after an edited number follows from it (edits.js).
   */
  async run(input, options) {
    if (!this.#attention) {
      throw new AttentionError('TERMINATED', 'this model was disposed: load it again with loadModel');
    }
    const config = this.spec;
    const { ids, tokens, rawTokens } = readRunInput(input, config, this.#tokenizer);
    const o = readRunOptions(options, config);
    // What the progress events and the reads of this run share: its signal, and the bytes read once it is done.
    const ctx = { signal: o.signal, total: this.bytesRead + runBytes(this.#tensors, ids, o) };
    checkAborted(ctx.signal, 'run');
    const n = ids.length;
    const edits = readEdits(o.edits, config, n);
    const tables =
      config.rope &&
      ropeTables(
        config.rope.invFreq,
        Array.from({ length: n }, (_, i) => i),
      );
    let hidden = await this.#embed(ids, o.tokenTypeIds, ctx);
    const hiddenStates = [hidden];
    const attentions = [];
    const captured = new Map();
    const layers = this.#tensors.layers;
    for (let l = 0; l < layers.length; l++) {
      this.#progress('layer', l, ctx);
      const capture = o.capture.some((c) => c.layer === l);
      const inputs = { x: made(hidden.data, hidden.shape, `hiddenStates[${l}]`) };
      for (const entry of layers[l]) inputs[entry.slot] = await this.#read(entry, undefined, ctx);
      editWeights(edits, l, inputs, config);
      if (tables) {
        inputs.ropeCos = made(tables.cos, [n, config.rope.dim / 2], 'rope.cos');
        inputs.ropeSin = made(tables.sin, [n, config.rope.dim / 2], 'rope.sin');
      }
      const ablated = o.ablate.filter(([layer]) => layer === l).map(([, head]) => head);
      if (ablated.length) {
        const mask = new Float32Array(config.numHeads).fill(1);
        for (const head of ablated) mask[head] = 0;
        inputs.headMask = made(mask, [config.numHeads], 'ablate');
      }
      const edit = layerEdits(edits, l, config, n);
      if (edit) inputs.edits = edit.tensor;
      const outputs = layerOutputs(config, n, { weights: o.attentions, capture });
      const dims = { ...modelDims(config, n, l), editCount: edit?.count ?? 0 };
      const plan = modelPlan('modelLayer', dims, inputs, outputs, {
        causal: config.choices.causal,
        scratchBytes: layerScratchBytes(config, n) + (edit?.scratchBytes ?? 0),
      });
      const result = runPlan(this.#attention, plan);
      hidden = result.output;
      hiddenStates.push(hidden);
      if (o.attentions) attentions.push(result.weights);
      if (capture) captured.set(l, { ...result, input: hiddenStates[l] });
    }
    const final = this.#tensors.final.length ? await this.#final(hidden, ctx) : null;
    // GPT-2's and LLaMA's last hidden state is after the final norm; BERT's final rows are its MLM head's transform.
    if (final && config.family !== 'bert') hiddenStates[hiddenStates.length - 1] = final;
    const logits = o.logits && this.#tensors.head ? await this.#logits(final ?? hidden, ctx) : null;
    this.#progress('done', undefined, ctx);
    return {
      ids,
      ...(tokens ? { tokens } : {}),
      ...(rawTokens ? { rawTokens } : {}),
      ...(o.attentions ? { attentions } : {}),
      ...(o.hiddenStates ? { hiddenStates } : {}),
      logits,
      next: logits && topK(logits, o.topK, this.#tokenizer),
      captures: o.capture.map(({ layer, head }) => sliceCapture(captured.get(layer), layer, head, config)),
    };
  }

  /** A progress event ({ phase, layer, loaded, total }), once the run's signal is checked. */
  #progress(phase, layer, ctx) {
    checkAborted(ctx?.signal, 'run');
    this.#onProgress?.({ phase, layer, loaded: this.bytesRead, total: ctx?.total });
  }

  async #read(entry, rows, ctx) {
    return weight(await this.#checkpoint.read(entry, rows, ctx?.signal), entry.name);
  }

  /** The embeddings' output [n, d]: the token rows read for the ids used, plus positions and types. */
  async #embed(ids, tokenTypeIds, ctx) {
    this.#progress('embeddings', undefined, ctx);
    const config = this.spec;
    const { dModel: d } = config;
    const n = ids.length;
    const byId = new Map();
    const { tokens, positions, types } = this.#tensors.embeddings;
    for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
      byId.set(id, (await this.#checkpoint.read(tokens, [id, id + 1], ctx?.signal)).data);
    }
    const rows = new Float32Array(n * d); // [n, d]
    ids.forEach((id, i) => rows.set(byId.get(id), i * d));
    const inputs = { x: made(rows, [n, d], tokens.name) };
    if (positions) inputs.positionEmbeddings = await this.#read(positions, [0, n], ctx);
    if (types) {
      const typeRows = new Float32Array(n * d);
      const read = new Map();
      for (let i = 0; i < n; i++) {
        const type = tokenTypeIds?.[i] ?? 0;
        if (!read.has(type)) read.set(type, (await this.#checkpoint.read(types, [type, type + 1], ctx?.signal)).data);
        typeRows.set(read.get(type), i * d);
      }
      inputs.typeEmbeddings = made(typeRows, [n, d], types.name);
    }
    for (const entry of this.#tensors.embedNorm) inputs[entry.slot] = await this.#read(entry, undefined, ctx);
    const plan = modelPlan('modelEmbed', modelDims(config, n), inputs, { output: [n, d] });
    return runPlan(this.#attention, plan).output;
  }

  /** The final norm (GPT-2's ln_f, LLaMA's norm) or BERT's prediction-head transform, on [n, d]. */
  async #final(hidden, ctx) {
    this.#progress('final', undefined, ctx);
    const config = this.spec;
    const inputs = { x: made(hidden.data, hidden.shape, 'the last hidden state') };
    for (const entry of this.#tensors.final) inputs[entry.slot] = await this.#read(entry, undefined, ctx);
    const plan = modelPlan('modelNorm', modelDims(config, hidden.shape[0]), inputs, { output: hidden.shape });
    return runPlan(this.#attention, plan).output;
  }

  /** logits [n, vocab] = h · W_headᵀ (+ bias), W_head read and applied by blocks of rows. */
  async #logits(h, ctx) {
    const config = this.spec;
    const [n, d] = h.shape;
    const { vocabSize: V } = config;
    const logits = new Float32Array(n * V); // [n, V]
    const block = Math.max(1, Math.floor(HEAD_BLOCK_BYTES / (d * 4)));
    const bias =
      this.#tensors.headBias && (await this.#checkpoint.read(this.#tensors.headBias, undefined, ctx?.signal));
    for (let v0 = 0; v0 < V; v0 += block) {
      this.#progress('head', undefined, ctx);
      const rows = Math.min(block, V - v0);
      const inputs = {
        x: made(h.data, h.shape, 'the final hidden state'),
        wHead: await this.#read(this.#tensors.head, [v0, v0 + rows], ctx),
      };
      if (bias)
        inputs.bHead = weight({ data: bias.data.subarray(v0, v0 + rows), shape: [rows] }, this.#tensors.headBias.name);
      const dims = { ...modelDims(config, n), dOut: rows };
      const { output } = runPlan(this.#attention, modelPlan('modelLogits', dims, inputs, { output: [n, rows] }));
      for (let i = 0; i < n; i++) logits.set(output.data.subarray(i * rows, (i + 1) * rows), i * V + v0);
    }
    return new Tensor(logits, [n, V]);
  }
}
