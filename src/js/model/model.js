// A loaded model: its config.json (`config`) and the description read from it (`spec`), its checkpoint opened by
// the headers, every tensor of the forward found and checked, and the model's WebAssembly module. run() walks the
// forward one call at a time (forward-pass.js over forward.h): the embeddings of the tokens used, then each layer with
// its weights read from the checkpoint and written into WebAssembly memory for that layer's calls only, then the final
// norm and the LM head by blocks of the vocabulary (the two ends: model-ends.js); the instruments (unembed, attribute,
// headScores, patchSweep) run the same forward with their own outputs, and tokenize gives the tokens run reads in a
// text (tokenize.js). When every tensor of the forward fits loadModel's `residentBytes`, each is kept in WebAssembly
// memory the first time a run (or generate) uses it (resident.js), and later runs pass its address to the call: they
// read and copy no weight.
import { AttentionError } from '../errors.js';
import { Attention, runPlan } from '../attention.js';
import { callLayout, checkCallBytes } from '../plan.js';
import { firstNonFinite } from '../scan.js';
import { elementName, valueError } from '../tensor.js';
import { modelScratchBytes, weight } from './calls.js';
import { readRunPlan } from './run-plan.js';
import { runModel } from './run.js';
import { checkAborted, eitherSignal } from './signal.js';
import { generate } from './generate.js';
import { layerAttentionWeights } from './model-attention-weights.js';
import { modelResidency } from './resident.js';
import { unembed } from './unembed.js';
import { attribute } from './attribute.js';
import { headScores } from './head-scores.js';
import { patchSweep } from './patch-sweep.js';
import { embed, finalNorm, headLogits } from './model-ends.js';
import { tokenize } from './tokenize.js';

/** TERMINATED: the model was disposed (during the work that `cause` stopped, if any). */
const terminated = (cause) =>
  new AttentionError('TERMINATED', 'this model was disposed: load it again with loadModel', cause && { cause });

/** loadModel's default `residentBytes`: models whose float32 weights fit 1 GiB (GPT-2 small: 475 MiB) stay resident. */
export const MODEL_RESIDENT_BYTES = 2 ** 30;

export class Model {
  #attention;
  #checkpoint;
  #tensors; // { embeddings, embedNorm, layers: [...], final, head, headBias }: resolved rows (checkpoint.js)
  #onProgress;
  #tokenizer;
  #module;
  #sessions = new Set(); // generations under way (decode.js), freed by dispose()
  #resident; // the weights kept across runs (resident.js), or null: read at every run
  #closing = new AbortController(); // aborted by dispose(): the reads under way stop, and their run is TERMINATED
  #shards; // loadModel's workers (shards.js), or null: every layer runs on this thread
  #parts; // what model-ends.js reads and calls through (#partsOf)

  /** @internal use loadModel */
  constructor({ module, checkpoint, config, spec, tensors, onProgress, tokenizer = null, residentBytes, shards }) {
    this.#tokenizer = tokenizer;
    /** Whether the folder had a tokenizer.json: run() then takes text. */
    this.hasTokenizer = tokenizer !== null;
    this.#attention = new Attention(module);
    this.#module = module;
    this.#checkpoint = checkpoint;
    this.#tensors = tensors;
    this.#onProgress = onProgress;
    this.#resident = modelResidency({ module, checkpoint, tensors, spec }, residentBytes ?? MODEL_RESIDENT_BYTES);
    /** Whether the model keeps its weights in WebAssembly memory across runs (loadModel's residentBytes). */
    this.resident = this.#resident !== null;
    this.#shards = shards ?? null;
    shards?.register(this, (plan) => this.#call(plan));
    /** How many workers run the layers (loadModel's `workers`); 0: every layer runs on this thread. */
    this.workers = shards?.size ?? 0;
    /** The family's name (spec.family): 'gpt2', 'bert', 'llama', … (families/). */
    this.family = spec.family;
    /** config.json as parsed: the raw object. */
    this.config = config;
    /** The normalized description read from config.json (spec.js): sizes, choices, labels. */
    this.spec = spec;
    this.#parts = this.#partsOf(spec);
    this.run = this.run.bind(this);
    this.dispose = this.dispose.bind(this);
    this.heapBytesInUse = this.heapBytesInUse.bind(this);
    this.generate = this.generate.bind(this);
    this.attentionWeights = this.attentionWeights.bind(this);
    for (const name of ['tokenize', 'unembed', 'attribute', 'headScores', 'patchSweep', 'workerMemory'])
      this[name] = this[name].bind(this);
  }

  /** Layer `layer`'s attention weights as attentionWeightsFrom gives them: from WebAssembly memory when kept there. */
  async attentionWeights(layer, options) {
    this.#checkOpen();
    const parts = { spec: this.spec, config: this.config, entries: this.#tensors.layers, resident: this.#resident };
    return layerAttentionWeights(
      { ...parts, checkpoint: this.#checkpoint, heap: () => this.#module.HEAPF32 },
      layer,
      options,
    );
  }

  /** Bytes of tensors read from the checkpoint so far (headers not counted). */
  get bytesRead() {
    return this.#checkpoint?.bytesRead ?? 0;
  }

  /** Bytes of the model's WebAssembly memory: it grows to one layer's call (plus resident weights), never shrinks. */
  get memoryBytes() {
    return this.#attention?.memoryBytes ?? 0;
  }

  /**
   * Bytes of its heap in use now: back to the same baseline after every run, failed or not. The weights a resident
   * model keeps are part of that baseline from the run that first uses them until dispose().
   */
  heapBytesInUse() {
    return this.#attention?.heapBytesInUse() ?? 0;
  }

  /** Each worker's WebAssembly memory (loadModel's `workers`), weights included: [{ memoryBytes, heapBytesInUse }]. */
  async workerMemory() {
    return this.#guard(() => this.#shards?.memory() ?? []);
  }

  /**
   * Forgets the checkpoint and the module and ends the workers; a run or a generation under way stops (its reads too) with TERMINATED,
   * and so do later calls.
   */
  async dispose() {
    for (const session of this.#sessions) session.free();
    this.#sessions.clear();
    this.#resident?.free();
    this.#checkpoint?.close?.(); // a Node folder's open files
    const ending = this.#shards?.terminate();
    this.#attention = this.#checkpoint = this.#tensors = this.#resident = this.#shards = null;
    this.#closing.abort(terminated());
    await ending;
  }

  /** The signal of a run's (or a generation's) reads: its own, or the model's dispose(). */
  #signalOf(signal) {
    return eitherSignal(signal, this.#closing.signal);
  }

  /** A run's error: TERMINATED when the model was disposed meanwhile (whatever stopped it then), else as it is. */
  #failure(error) {
    return this.#attention || error?.code === 'TERMINATED' ? error : terminated(error);
  }

  /**
   * Generation with a KV cache in WebAssembly memory (generate.js): an async iterator of one step per new token.
   *
   * | step        | shape                                                                   |
   * |-------------|-------------------------------------------------------------------------|
   * | id, p       | the token chosen and its probability (softmax of the logits)            |
   * | next        | top-k of the same position: [{ id, p, logit, token? }]                  |
   * | attentions  | num_layers Tensors [H, 1, n]: the attention row of the query that chose |
   * | ids         | number[]: the prompt and the tokens so far, this one included           |
   */
  generate(input, options) {
    const engine = {
      ...this.#engine(), // spec, tensors, resident, shards, tokenizer, signal, checkCall, checkOpen, flush (after it)
      failure: (error) => this.#failure(error),
      module: this.#module,
      checkpoint: this.#checkpoint,
      run: (plan) => this.#call(plan),
      embed: (ids, first, signal) => embed(this.#parts, ids, undefined, first, { signal }),
      final: (h, signal) => finalNorm(this.#parts, h, { signal }),
      logits: (h, signal) => headLogits(this.#parts, h, { signal }),
      hold: (session) => {
        this.#sessions.add(session);
        return () => this.#sessions.delete(session);
      },
    };
    this.#checkOpen();
    return generate(engine, input, options);
  }

  #checkOpen() {
    if (!this.#attention) throw terminated();
  }

  /**
   * Runs a model call's plan on the model's module (TERMINATED when the model was disposed meanwhile), with the
   * scratch its core allocates as the core reckons it (calls.js's modelScratchBytes), for the size check.
   */
  #call(plan) {
    this.#checkOpen();
    return runPlan(this.#attention, { ...plan, scratchBytes: modelScratchBytes(this.#module, plan) });
  }

  /** TOO_LARGE when a call of `plan` would not fit, sized as #call sizes it: call-sizes.js's, before any read. */
  #checkSize(plan) {
    this.#checkOpen();
    checkCallBytes(plan, callLayout({ ...plan, scratchBytes: modelScratchBytes(this.#module, plan) }).totalBytes);
  }

  /** Runs `work` (an instrument or a run): TERMINATED when the model was disposed meanwhile. */
  async #guard(work) {
    try {
      this.#checkOpen();
      return await work();
    } catch (error) {
      throw this.#failure(error);
    }
  }

  /**
   * One forward pass.
   *
   * | result        | shape                                                                  |
   * |---------------|------------------------------------------------------------------------|
   * | ids           | number[] n                                                             |
   * | attentions    | num_layers Tensors [H, n, n] (as output_attentions, no batch)          |
   * | hiddenStates  | num_layers + 1 Tensors [n, d_model] (as output_hidden_states)          |
   * | logits        | Tensor [n, vocab] ([rows, vocab] for `logits` rows), or null without an LM head |
   * | next          | top-k of the last position: [{ id, p, logit }]                          |
   * | captures      | per { layer, head } asked: that head's steps and its layer's, and its headResult |
   * | loss          | with `loss`: { perToken: Float32Array(n − 1), mean }: next-token cross-entropy (loss.js) |
   * With `edits` and `patches`, every step after an edited number or a patched activation follows from it (edits.js,
   * patches.js); `ablate` zeroes a head's output or replaces it by a mean or another prompt's (ablation.js).
   * toNpz() and toSafetensors() write the result's tensors (export.js).
   * With `from`, the layers before from.layer are not run: null in attentions and hiddenStates. The input and the
   * options are read once into a run plan (run-plan.js), before anything is read or computed.
   */
  async run(input, options) {
    return this.#guard(() => {
      const plan = readRunPlan(input, options, this.spec, this.#tokenizer); // every option read and checked (run-plan.js)
      return runModel(this.#engine(), plan, this.#tokenizer);
    });
  }

  /**
   * The text's tokens as run(text) computes on them (tokenize.js: one encoding for both), the tokenizer's special
   * tokens included, no weight read; BAD_OPTION for anything but a string or without a tokenizer.json, TERMINATED
   * after dispose(). Synchronous.
   *
   * | result    | shape                                                      |
   * |-----------|------------------------------------------------------------|
   * | ids       | number[] n                                                 |
   * | tokens    | string[] n: each token as text (as run's `tokens`)         |
   * | rawTokens | string[] n: as the tokenizer writes them (as run's)        |
   */
  tokenize(text) {
    this.#checkOpen();
    return tokenize(text, this.#tokenizer);
  }

  /** The logit lens (unembed.js): rows [n, d_model] of the residual stream → logits [n, vocab]. */
  async unembed(hidden, options) {
    return this.#guard(() => unembed(this.#engine(), hidden, options));
  }

  /** Direct logit attribution (attribute.js): { total, embeddings, heads [L, H], attnBiases, mlps, finalBias }. */
  async attribute(input, options) {
    return this.#guard(() => attribute(this.#engine(), input, options));
  }

  /** TransformerLens's head detectors (head-scores.js): a Tensor [L, H] of `kind`'s scores. */
  async headScores(kind, options) {
    return this.#guard(() => headScores(this.#engine(), kind, options));
  }

  /** A patching sweep (patch-sweep.js): { scores [L, n] or [L, H], clean, corrupted }. */
  async patchSweep(options) {
    return this.#guard(() => patchSweep(this.#engine(), options));
  }

  /** The model's parts that a forward and the instruments use (forward-pass.js's `engine`). */
  #engine() {
    return {
      spec: this.spec,
      tensors: this.#tensors,
      resident: this.#resident,
      shards: this.#shards,
      tokenizer: this.#tokenizer,
      heap: () => this.#module.HEAPF32,
      signal: (signal) => this.#signalOf(signal),
      bytesRead: () => this.bytesRead,
      call: (plan) => this.#call(plan),
      checkCall: (plan) => this.#checkSize(plan),
      embed: (ids, types, first, ctx) => embed(this.#parts, ids, types, first, ctx),
      final: (h, ctx) => finalNorm(this.#parts, h, ctx),
      logits: (h, ctx) => headLogits(this.#parts, h, ctx),
      readLayer: (l, ctx) => this.#readLayer(l, ctx),
      group: (key, entries, ctx) => this.#group(key, entries, ctx),
      rows: async (entry, range, ctx) => this.#rows(entry, range, await this.#matrix(entry, ctx), ctx),
      progress: (phase, layer, ctx) => this.#progress(phase, layer, ctx),
      flush: () => this.#checkpoint?.flush?.(), // a web source's cache is written now, after the run
      checkOpen: () => this.#checkOpen(),
    };
  }

  /** What the forward's ends (model-ends.js: the embeddings, the final norm, the LM head) use of this model. */
  #partsOf(spec) {
    return {
      spec,
      tensors: () => this.#tensors,
      shards: () => this.#shards,
      call: (plan) => this.#call(plan),
      progress: (phase, layer, ctx) => this.#progress(phase, layer, ctx),
      group: (key, entries, ctx) => this.#group(key, entries, ctx),
      matrix: (entry, ctx) => this.#matrix(entry, ctx),
      rows: (entry, range, address, ctx) => this.#rows(entry, range, address, ctx),
      read: (entry, rows, ctx) => this.#read(entry, rows, ctx),
    };
  }

  /** A progress event ({ phase, layer, loaded, total }), once the run's signal is checked. */
  #progress(phase, layer, ctx) {
    this.#checkOpen();
    checkAborted(ctx?.signal, 'run');
    this.#onProgress?.({ phase, layer, loaded: this.bytesRead, total: ctx?.total });
  }

  /** Layer l's weights: { inputs: { slot: tensor }, addresses: { slot: address } of the resident ones }. */
  #readLayer(l, ctx) {
    const read = this.#group(`layer ${l}`, this.#tensors.layers[l], ctx);
    read.catch(() => {}); // awaited by the loop, or dropped after an earlier layer's error
    return read;
  }

  /** A group of tensors: resident (as addresses) when the model keeps its weights, else read all at once. */
  async #group(key, entries, ctx) {
    if (this.#resident) return this.#resident.group(key, entries, ctx?.signal);
    const tensors = await Promise.all(entries.map((entry) => this.#read(entry, undefined, ctx)));
    return { inputs: Object.fromEntries(tensors.map((t, i) => [entries[i].slot, t])), addresses: {} };
  }

  /** A whole table's address in WebAssembly memory when the model keeps it, else 0. */
  async #matrix(entry, ctx) {
    return (this.#resident && entry && (await this.#resident.matrix(entry, ctx?.signal))) || 0;
  }

  /** Rows of a table: copied from its resident copy at `address` (scanned when kept), else read and scanned here. */
  async #rows(entry, [r0, r1], address, ctx) {
    const d = entry.shape[1];
    if (!address) {
      const { data } = await this.#checkpoint.read(entry, [r0, r1], ctx?.signal);
      const at = firstNonFinite(data, false); // NON_FINITE naming the table's element, as a call's scan does
      if (at >= 0) throw valueError(data[at], elementName(entry.name, r0 * d + at, entry.shape), false);
      return data;
    }
    return this.#module.HEAPF32.slice(address / 4 + r0 * d, address / 4 + r1 * d);
  }

  async #read(entry, rows, ctx) {
    return weight(await this.#checkpoint.read(entry, rows, ctx?.signal), entry.name);
  }
}
