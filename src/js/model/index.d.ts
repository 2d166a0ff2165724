// Hand-written declarations for attention-wasm/model: checkpoints of the SUPPORTED_FAMILIES (config.json and
// model.safetensors, or its shards) run in WebAssembly, with every layer's attention and any head's steps.
// Shape names: n tokens, d d_model, H / H_kv heads and key-value heads, d_k head width, d_ff the MLP's, V vocabulary.
/**
 * Runs GPT-2, BERT, LLaMA-family, Pythia and Qwen3 checkpoints (SUPPORTED_FAMILIES) from their own files, with every
 * layer's attention and any head's steps.
 * @module attention-wasm/model
 */
import type { MultiHeadWeights, RopeOptions, Tensor, TensorInput } from '../index.js';

/**
 * A checkpoint folder: Files (a dropped folder, `<input webkitdirectory>`, picked files), a Map or object of file
 * names to Blobs, bytes or text, a folder URL (an http(s) string or a URL, read by Range requests), a model on the
 * Hub (`{ hub }`), or in Node a folder path (a string that is not an http(s) URL, or a file: URL). It must hold config.json and
 * model.safetensors (or model.safetensors.index.json and its shards). A string is never a Hub id.
 */
export type ModelSource =
  | FileList
  | readonly File[]
  | readonly Blob[]
  | Map<string, Blob | ArrayBuffer | ArrayBufferView | string>
  | Record<string, Blob | ArrayBuffer | ArrayBufferView | string>
  | URL
  | HubModel
  | string;

/** A model on the Hub, or on a mirror of its layout: files at `${base}/${hub}/resolve/${revision}/${file}`. */
export interface HubModel {
  /** The model id, 'owner/name' (or a legacy 'name'). */
  hub: string;
  /** A branch, tag or commit hash. Default 'main'. */
  revision?: string;
  /** The Hub's address or a mirror's. Default {@link HUB_URL}. */
  base?: string | URL;
}

/** The Hub's public address, the default `base` of a {@link HubModel}: 'https://huggingface.co'. */
export const HUB_URL: string;

/**
 * The folder of the model shipped in the package (`web/public/models/induction/`: a GPT-2 of 2 layers × 4 heads,
 * trained with a previous-token head, layer 0 head 2, and four induction heads in layer 1; its README.md is its
 * model card), as a URL that {@link loadModel} takes:
 *
 * | where the package runs                                        | BUILTIN_MODEL                                                  |
 * |---------------------------------------------------------------|----------------------------------------------------------------|
 * | Node, Bun, Deno                                               | the installed folder's `file:` URL                            |
 * | the package's files as they are: a CDN, a server of node_modules | the folder's URL beside them (read by Range requests)       |
 * | an app a bundler built (Vite, webpack, …)                     | `models/induction/` under the page's base URL: copy the folder there (docs/model.md's Vite recipe) |
 *
 * @example
 * ```js
 * import { BUILTIN_MODEL, loadModel } from 'attention-wasm/model';
 *
 * const model = await loadModel(BUILTIN_MODEL);
 * const r = await model.run('the cat saw a red ball near the old tree . the cat saw a red');
 * console.log(r.next[0].token, r.next[0].p.toFixed(2)); // prints: ball 0.12
 * ```
 */
export const BUILTIN_MODEL: URL;

/** One family this package runs (SUPPORTED_FAMILIES). */
export interface SupportedFamily {
  /** Its name, as model.family gives it. */
  readonly family: ModelFamily;
  /** Its name as people write it, e.g. 'GPT-NeoX'. */
  readonly label: string;
  /** The config.json model_types it reads, e.g. ['llama', 'mistral', 'qwen2']. */
  readonly modelTypes: readonly string[];
}

/**
 * The families loadModel runs, in the order a config.json is matched against them; a page lists them from here
 * rather than keeping its own list.
 *
 * @example
 * ```js
 * import { SUPPORTED_FAMILIES } from 'attention-wasm/model';
 *
 * const llama = SUPPORTED_FAMILIES.find((f) => f.family === 'llama');
 * console.log(`${llama.label} (${llama.modelTypes.join(', ')})`); // prints: LLaMA (llama, mistral, qwen2)
 * ```
 */
export const SUPPORTED_FAMILIES: readonly SupportedFamily[];

/** parseModelSource's options. */
export interface ParseModelSourceOptions {
  /** What a relative folder URL (./folder/, ../folder/, /folder/) is resolved against: a page's base URL, say. */
  base?: string | URL;
  /** The Hub's address, or a mirror's of its layout: each `{ hub }` result carries it as `base`. Default {@link HUB_URL}. */
  hub?: string | URL;
}

/**
 * Reads a model source typed by a person (a text field, an attribute, a link) into what {@link loadModel} takes.
 *
 * | text                                           | result                                   |
 * |------------------------------------------------|------------------------------------------|
 * | `https://host/folder` (http or https)          | `'https://host/folder/'`                 |
 * | `./folder/`, `../folder/`, `/folder/`          | the same, resolved against `base`        |
 * | `owner/name`                                   | `{ hub: 'owner/name' }`                  |
 * | `owner/name@revision`                          | `{ hub: 'owner/name', revision }`        |
 * | the Hub's page of a model (`…/owner/name`, `…/owner/name/tree/revision`) | `{ hub, revision? }` |
 *
 * With `hub`, a `{ hub }` result also has `base`. Never a file path. Anything else: AttentionError BAD_OPTION.
 */
export function parseModelSource(text: string, options?: ParseModelSourceOptions): string | HubModel;

/** The folder URL loadModel reads a web source from, ending in '/': a `{ hub }` model's is `${base}/${hub}/resolve/${revision}/`. */
export function modelFolderUrl(source: string | URL | HubModel): string;

/** Where a cache entry comes from: a file's URL, and a byte range [begin, end) of it (none: the whole file). */
export interface ModelCacheKey {
  /** The file's URL. */
  url: string;
  /** The range's first byte. */
  begin?: number;
  /** The byte after the range's last. */
  end?: number;
}

/**
 * A cache entry: bytes fetched, or a file the server does not have (HTTP 404). An entry that is not one, or whose
 * bytes are not the length of its range, is taken as a miss and fetched again.
 */
export type ModelCacheEntry =
  | {
      /** The bytes of the range (or of the whole file). */
      bytes: Uint8Array;
      /** The file's size, or null when the server did not say. */
      total: number | null;
      /** Whether `bytes` is the whole file (a server that ignored Range for a small file). */
      whole: boolean;
      /** The file's ETag when the server stated it: an entry of another version than the file loaded is fetched again. */
      etag?: string | null;
      /** The file's Last-Modified when the server stated it, compared likewise. */
      modified?: string | null;
    }
  | {
      /** The server answered 404. */
      missing: true;
    };

/** A cache of what a web source fetched (attention-wasm/model/cache's openModelCache(), or your own). */
export interface ModelCache {
  /** The entry of a key, or undefined. */
  get(key: ModelCacheKey): Promise<ModelCacheEntry | undefined>;
  /** Keeps an entry. */
  set(key: ModelCacheKey, value: ModelCacheEntry): Promise<void>;
}

/** One step of a load from the web or of a run, for a progress bar. */
export interface ProgressEvent {
  /**
   * 'download' (a web source's JSON file coming in, at load), then per run 'embeddings', 'layer', 'final', 'head'
   * (one per block of the vocabulary), 'done'; 'cache' once what a web source fetched is written into the `cache`
   * (after the run that fetched it: `loaded` and `total` are the bytes written).
   */
  readonly phase: 'download' | 'embeddings' | 'layer' | 'final' | 'head' | 'done' | 'cache';
  /** The layer about to run (phase 'layer'). */
  readonly layer?: number;
  /** The file coming in (phase 'download'). */
  readonly file?: string;
  /** Bytes of tensors read from the checkpoint so far (of the file, for 'download'). */
  readonly loaded: number;
  /** What `loaded` will be when the run is done (of the file, for 'download', where the server says). */
  readonly total?: number;
}

/** loadModel's options. */
export interface LoadModelOptions {
  /** Called as a run reads and computes: one event per step. */
  onProgress?: (event: ProgressEvent) => void;
  /** The SIMD build (true) or the scalar one (false); default: SIMD where supported. */
  simd?: boolean;
  /** Stops the load: it rejects with AttentionError ABORTED (the signal's reason as its cause). */
  signal?: AbortSignal;
  /** Keeps what a web source fetched, for the next load (attention-wasm/model/cache). */
  cache?: ModelCache;
  /**
   * When every weight of the forward fits this many bytes as float32, the model keeps each in WebAssembly memory
   * from the first run (or generation) that uses it until dispose(): later runs read nothing from the checkpoint and
   * copy no weight (a checkpoint changed after is not read again). 0: read at every run. Default 1 GiB.
   */
  residentBytes?: number;
  /**
   * Runs each layer split over this many workers (Web Workers; worker_threads in Node), from 1 to 64, or 'auto'.
   * 'auto' starts from one less than the processors (navigator.hardwareConcurrency; os.availableParallelism in Node),
   * at least 1, and takes more workers, up to 8, until the largest worker's share of the weights (float32, from the
   * tensors' shapes, before any read) fits 1 GiB, half of a worker's WebAssembly memory (at most 2 GB: the rest is
   * for a run's activations and a generation's KV cache); when no count up to 8 fits, it takes none: every layer runs
   * on the calling thread, read from the checkpoint at each run as without workers (model.workers is then 0). Every
   * family splits (OLMo-2's q/k norms over the whole projection too). Each worker keeps its share of every layer's
   * weights (its heads' q, k, v and W_o slices, its part of the
   * MLP's hidden units) in its own memory from the load until dispose(); nothing needs SharedArrayBuffer or
   * cross-origin isolation. A run's attentions, hidden states and logits equal one thread's within float32 rounding
   * (bit for bit with 1 worker), whatever run's options; so do generate()'s steps (the KV cache split with the heads).
   * attribute, headScores and patchSweep run their layers there too (their cells included), within float32 rounding
   * of one thread's (bit for bit with 1 worker). Default: none, every layer on the calling thread.
   */
  workers?: number | 'auto';
}

/** A head of a layer, for `capture`. */
export interface LayerHead {
  /** The layer, from 0. */
  layer: number;
  /** The query head, from 0. */
  head: number;
}

/** A head's steps (`head` required; for k, v and kRotated any head reading that key-value head). */
export type HeadStep =
  'q' | 'k' | 'v' | 'qRotated' | 'kRotated' | 'rawScores' | 'scaledScores' | 'scores' | 'weights' | 'headOutput';
/** A layer's steps (no `head`), and its attention weights in attentionWeightsFrom's layout. */
export type LayerStep =
  | 'x'
  | 'concat'
  | 'output'
  | 'residual'
  | 'mlpInput'
  | 'mlpHidden'
  | 'mlpOutput'
  | 'hidden'
  | 'wq'
  | 'wk'
  | 'wv'
  | 'wo';

/**
 * One number of one step replaced, right after the forward computes that step; the steps and shapes are those of
 * HeadCapture (`row` a token, `col` a column of the step: a key for the scores and weights). qRotated and kRotated
 * exist with RoPE (LLaMA family) only. A bad edit is a BAD_OPTION naming it (`edits[i]`).
 *
 * | step                                               | [rows, cols]        |
 * |----------------------------------------------------|---------------------|
 * | x, output, residual, mlpInput, mlpOutput, hidden   | [n, d_model]        |
 * | q, k, v, qRotated, kRotated, headOutput            | [n, d_k]            |
 * | rawScores, scaledScores, scores, weights           | [n, n]              |
 * | concat                                             | [n, H·d_k]          |
 * | mlpHidden                                          | [n, d_ff]           |
 * | wq; wk, wv (this run only)                         | [d_model, H·d_k]; [d_model, H_kv·d_k] |
 * | wo (this run only)                                 | [H·d_k, d_model]    |
 */
export type StepEdit = HeadStepEdit | LayerStepEdit;

/** An edit of a head's step (StepEdit). */
export interface HeadStepEdit {
  /** The layer, from 0. */
  layer: number;
  /** The query head, from 0. */
  head: number;
  /** The step. */
  step: HeadStep;
  /** The token (row), from 0. */
  row: number;
  /** The column of the step, from 0. */
  col: number;
  /** The number written there (a finite float32). */
  value: number;
}

/** An edit of a layer's step (StepEdit). */
export interface LayerStepEdit {
  /** The layer, from 0. */
  layer: number;
  /** None: a layer's step belongs to no head. */
  head?: undefined;
  /** The step. */
  step: LayerStep;
  /** The token (row), from 0. */
  row: number;
  /** The column of the step, from 0. */
  col: number;
  /** The number written there (a finite float32). */
  value: number;
}

/** model.run's options. */
export interface RunOptions {
  /** Stops the run, a download under way included: it rejects with AttentionError ABORTED. */
  signal?: AbortSignal;
  /** Return `attentions`. Default true. */
  attentions?: boolean;
  /** Return `hiddenStates`. Default true. */
  hiddenStates?: boolean;
  /**
   * Compute the LM head: `logits` and `next`. Default true (every row). 'last' or a list of rows (tokens, from 0): the
   * LM head of those rows only, `logits` [rows, V] in that order, and `next` of the last of them.
   */
  logits?: boolean | 'last' | readonly number[];
  /**
   * Start at layer `layer` with `hiddenState` [n, d_model] as its input (hiddenStates[layer] of an earlier run of the
   * same ids): no embeddings and no earlier layer are read or computed, and `attentions` and `hiddenStates` hold null
   * for the layers before it. A capture, ablation or edit of an earlier layer is BAD_OPTION; another shape is
   * SHAPE_MISMATCH. With the same hidden state, its layers equal a whole run's, bit for bit.
   */
  from?: RunFrom;
  /** Heads whose every step to return, in `captures`. */
  capture?: readonly LayerHead[];
  /**
   * Heads whose output (headOutput, before W_O) is replaced: [layer, head] (zeroed) or { layer, head, mode, reference }
   * (Ablation). Their weights are still returned.
   */
  ablate?: readonly (readonly [number, number] | Ablation)[];
  /** Numbers of layers' steps replaced inside the forward: everything after each (its layer, the later layers, the logits) follows. */
  edits?: readonly StepEdit[];
  /**
   * Whole activations replaced inside the forward, in order (a later patch of the same rows wins, and patches come
   * after `edits`): everything after each follows. See Patch.
   */
  patches?: readonly Patch[];
  /**
   * Also return `loss`: each position's next-token cross-entropy and their mean (decoders: GPT-2 and the LLaMA family;
   * BERT is UNSUPPORTED_MODEL). The LM head then runs on every row; `logits` still returns the rows asked for.
   */
  loss?: boolean;
  /** How many tokens `next` lists. Default 5. */
  topK?: number;
  /**
   * Run the first `layers` layers only (1 to num_layers; default all): only their weights are read, `attentions` and
   * `hiddenStates` hold those layers (the last hidden state before any final norm), and `logits` and `next` are null.
   */
  layers?: number;
  /** BERT: each token's type (segment), from 0 to type_vocab_size − 1. Default all 0. */
  tokenTypeIds?: ArrayLike<number>;
}

/** The steps a patch may replace: 'input' (the residual stream entering the layer) and every step an edit may change. */
export type PatchStep = 'input' | HeadStep | LayerStep;

/**
 * An activation replaced inside the forward (TransformerLens's hooks), right after the forward computes it: rows
 * `rows` (default all) of step `step` of layer `layer` (of head `head`, for a head's step) take those rows of `value`,
 * which has the step's full shape. Steps and shapes as StepEdit's, plus:
 *
 * | step    | [rows, cols]   | what                                                                 |
 * |---------|----------------|----------------------------------------------------------------------|
 * | input   | [n, d_model]   | the residual stream entering the layer: hiddenStates[layer] (resid_pre) |
 *
 * For a weight (wq, wk, wv, wo: [in, out]) `rows` are its input rows, for this run only. Values are finite float32
 * (scores may hold −Infinity: a masked key). BAD_OPTION for a step the model lacks (qRotated and kRotated without
 * RoPE), a layer, head or row out of range; SHAPE_MISMATCH for a value of another shape; NON_FINITE for NaN or ±Infinity;
 * all before anything is read.
 */
export interface Patch {
  /** The layer, from 0. */
  layer: number;
  /** The query head, from 0: for a head's step only (for k, v and kRotated any head reading that key-value head). */
  head?: number;
  /** The step. */
  step: PatchStep;
  /** The rows replaced (tokens; a weight's input rows), from 0. Default all. */
  rows?: readonly number[];
  /** The step's whole value: [n, cols] (a weight's [in, out]). */
  value: TensorInput;
}

/** A prompt given as token ids (text goes as a string, through the folder's tokenizer.json). */
export interface TokenIds {
  /** The token ids, each below the vocabulary's size. */
  readonly ids: ArrayLike<number>;
}

/** How an ablation replaces a head's output. */
export type AblationMode = 'zero' | 'mean' | 'resample';

/**
 * A head's output (headOutput, before W_O: TransformerLens's hook_z) replaced at every position:
 *
 * | mode      | by                                                                                           |
 * |-----------|----------------------------------------------------------------------------------------------|
 * | zero      | 0 (the default; as [layer, head] and transformers' head_mask)                                 |
 * | mean      | its mean over the positions of this run, as the forward computes it, or over a `reference` run's |
 * | resample  | its output, row by row, in a run of `reference` (a prompt of the same length: else SHAPE_MISMATCH) |
 */
export interface Ablation extends LayerHead {
  /** Default 'zero'. */
  mode?: AblationMode;
  /** The prompt of the run that gives the values ('mean': optional; 'resample': required): text or { ids }. */
  reference?: string | TokenIds;
}

/** RunResult.loss: the next-token cross-entropy (TransformerLens's lm_cross_entropy_loss, per token). */
export interface RunLoss {
  /** [n − 1]: position i's −log softmax(logits[i])[ids[i + 1]], in float64 rounded to float32. */
  readonly perToken: Float32Array;
  /** Their mean, in float64 (NaN for one token). */
  readonly mean: number;
}

/** RunOptions.from: where a run starts. */
export interface RunFrom {
  /** The first layer run, from 0 (below RunOptions.layers). */
  layer: number;
  /** [n, d_model]: that layer's input, e.g. hiddenStates[layer] of an earlier run. */
  hiddenState: TensorInput;
}

/** One head's steps and its layer's, named as selfAttention names them where they mean the same. */
export interface HeadCapture extends LayerHead {
  /** [n, d]: the layer's input (hiddenStates[layer]). */
  readonly input: Tensor;
  /** [n, d]: attention's input, after the norm (GPT-2, LLaMA) or the input itself (BERT). */
  readonly x: Tensor;
  /** [n, d_k]: this head's q. */
  readonly q: Tensor;
  /** [n, d_k]: its key-value head's k (shared by a group of heads in grouped-query attention). */
  readonly k: Tensor;
  /** [n, d_k]: its key-value head's v. */
  readonly v: Tensor;
  /** [n, d_k]: q after RoPE (LLaMA family). */
  readonly qRotated?: Tensor;
  /** [n, d_k]: k after RoPE (LLaMA family). */
  readonly kRotated?: Tensor;
  /** [n, n]: q·kᵀ, before the scaling. */
  readonly rawScores: Tensor;
  /** [n, n]: q·kᵀ / √d_k, before the mask. */
  readonly scaledScores: Tensor;
  /** [n, n]: the softmax's input, −Infinity where masked (causal, sliding window). */
  readonly scores: Tensor;
  /** [n, n]: the attention weights. */
  readonly weights: Tensor;
  /** [n, d_k]: the head's output (as ablated or patched). */
  readonly headOutput: Tensor;
  /** [n, d]: what the head writes into the residual stream: headOutput · its rows of W_O, no bias (hook_result). */
  readonly headResult: Tensor;
  /** [n, H·d_k]: every head's output side by side. */
  readonly concat: Tensor;
  /** [n, d]: concat·W_o + b_o. */
  readonly output: Tensor;
  /** [n, d]: input + output. */
  readonly residual: Tensor;
  /** [n, d]: what the MLP reads (after its norm). */
  readonly mlpInput: Tensor;
  /** [n, d_ff]: the MLP's activation (LLaMA: silu(gate)·up). */
  readonly mlpHidden: Tensor;
  /** [n, d]: the MLP's output. */
  readonly mlpOutput: Tensor;
  /** [n, d]: the layer's output (before GPT-2's and LLaMA's final norm). */
  readonly hidden: Tensor;
}

/** A token after the last position, with its probability. */
export interface NextToken {
  /** The token id. */
  readonly id: number;
  /** Its probability (the softmax of the last row of the logits, in float64). */
  readonly p: number;
  /** Its logit. */
  readonly logit: number;
  /** The token as text, with the folder's tokenizer.json. */
  readonly token?: string;
}

/** What model.tokenize returns: one entry per position, as run(text) computes on them. */
export interface TokenizeResult {
  /** The token ids, the tokenizer's special tokens included (BERT's [CLS] … [SEP]), as RunResult.ids. */
  readonly ids: number[];
  /** Each token as text (bytes decoded, Ġ and ▁ as spaces, no WordPiece ##), as RunResult.tokens. */
  readonly tokens: string[];
  /** The tokenizer's own tokens (Ġ, ▁, ## and byte characters as the vocabulary writes them), as RunResult.rawTokens. */
  readonly rawTokens: string[];
}

/** What model.run returns (with `attentions` and `hiddenStates` left on, as they are by default). */
export interface RunResult {
  /** The token ids run. */
  readonly ids: number[];
  /** With a tokenizer.json: each token as text (bytes decoded, Ġ and ▁ as spaces, no WordPiece ##). */
  readonly tokens?: string[];
  /** With text in: the tokenizer's own tokens (Ġ, ▁, ## and byte characters as the vocabulary writes them). */
  readonly rawTokens?: string[];
  /** One per layer, [H, n, n]: each head's attention weights, as transformers' output_attentions (no batch dimension). */
  readonly attentions: Tensor[];
  /**
   * num_layers + 1, [n, d]: the embeddings, then each layer's output, as transformers' output_hidden_states (the last
   * after the final norm for GPT-2 and LLaMA).
   */
  readonly hiddenStates: Tensor[];
  /**
   * [n, V]: the LM head (tied or lm_head), or BERT's masked-LM head ([rows, V] with `logits: 'last'` or rows); null
   * without one (BertModel) or logits: false.
   */
  readonly logits: Tensor | null;
  /** The topK most probable tokens after the last position (with `logits` rows: of the last of them); null without logits. */
  readonly next: NextToken[] | null;
  /** One per `capture` entry, in its order. */
  readonly captures: HeadCapture[];
  /** With `loss: true`: each position's next-token cross-entropy and their mean. */
  readonly loss?: RunLoss;
  /**
   * The result's tensors as a NumPy .npz file (attention-wasm/io's writeNpz, imported on the first call), which
   * numpy.load and readNpz read back:
   *
   * | name                      | shape                                |
   * |---------------------------|--------------------------------------|
   * | ids                       | [n] int32                            |
   * | attentions.{l}            | [H, n, n] (each layer run)           |
   * | hiddenStates.{l}          | [n, d]                               |
   * | logits                    | [rows, V]                            |
   * | captures.{i}.{step}       | each step of capture i               |
   * | loss.perToken, loss.mean  | [n − 1] (n > 1), [1] float64         |
   */
  toNpz(): Promise<Uint8Array>;
  /** The same tensors as a .safetensors file (writeSafetensors, metadata { format: 'pt' }). */
  toSafetensors(): Promise<Uint8Array>;
}

/** model.unembed's options. */
export interface UnembedOptions {
  /** Apply the final norm first (GPT-2's ln_f, LLaMA's norm). Default true. BERT: its masked-LM head, always. */
  norm?: boolean;
  /** Stops it: AttentionError ABORTED. */
  signal?: AbortSignal;
}

/** model.attribute's options. */
export interface AttributeOptions {
  /** [a]: the logit of token a; [a, b]: logit a − logit b. Ids of the vocabulary. */
  target: readonly [number] | readonly [number, number];
  /** The token whose logits are attributed, from 0. Default the last. */
  position?: number;
  /** Heads ablated in the run attributed (RunOptions.ablate). */
  ablate?: RunOptions['ablate'];
  /** Stops it: AttentionError ABORTED. */
  signal?: AbortSignal;
}

/**
 * Direct logit attribution: the parts of the final residual at `position`, each through the final norm with its
 * scale s frozen (TransformerLens's decompose_resid, apply_ln_to_stack, logit_attrs). A part c contributes
 * ((c − mean(c)) / s) · (γ ⊙ u) (LayerNorm) or (c / s) · (γ ⊙ u) (RMSNorm), u the LM head's row of a (minus row b).
 * They sum to `total` within float32 rounding.
 */
export interface Attribution {
  /** The logit (difference) the run computes at `position`. */
  readonly total: number;
  /** The embeddings' part (token + position: hook_embed + hook_pos_embed). */
  readonly embeddings: number;
  /** [L, H]: each head's result's part. */
  readonly heads: Tensor;
  /** [L]: each layer's attention output bias (b_O) part; 0 without one. */
  readonly attnBiases: Float32Array;
  /** [L]: each MLP output's part. */
  readonly mlps: Float32Array;
  /** β · u: the final norm's bias (plus an LM-head bias difference); 0 for RMSNorm. */
  readonly finalBias: number;
}

/** The patterns of model.headScores (TransformerLens's head_detector). */
export type HeadScoreKind = 'previousToken' | 'duplicateToken' | 'induction';

/** model.headScores' options. */
export interface HeadScoresOptions {
  /** One sequence of token ids, or several (the scores are averaged). */
  ids: ArrayLike<number> | readonly ArrayLike<number>[];
  /** Leave key 0 (the first token) out of every sum. Default false. */
  excludeBos?: boolean;
  /** Leave each token's own key (the diagonal) out. Default false. */
  excludeCurrentToken?: boolean;
  /** Stops it: AttentionError ABORTED. */
  signal?: AbortSignal;
}

/** The steps model.patchSweep patches. */
export type SweepStep = 'input' | 'output' | 'mlpOutput' | 'headOutput';

/** model.patchSweep's options. */
export interface PatchSweepOptions {
  /** The clean prompt: its activations are patched in. */
  clean: string | TokenIds;
  /** The corrupted prompt, of the same length (else SHAPE_MISMATCH): the runs patched. */
  corrupted: string | TokenIds;
  /**
   * [a, b]: the metric m = logit a − logit b at `position` ([a]: logit a). 'top': a is the clean run's top token at
   * `position` and b the corrupted run's (the lowest id of a tie), or [a] when they are the same token; the result
   * and each progress event say the pair (`target`). Anything else: BAD_OPTION.
   */
  target: readonly [number] | readonly [number, number] | 'top';
  /** What a cell patches: resid_pre, attn_out, mlp_out (a layer at a token), or z (a head at every token). */
  step: SweepStep;
  /** The token of the metric, from 0. Default the last. */
  position?: number;
  /** Stops it: AttentionError ABORTED. */
  signal?: AbortSignal;
  /**
   * Called after each layer's cells, with the scores so far (NaN where not computed yet); the sweep then lets a task
   * in (a page paints, a click runs) before the next layer. With it the sweep also lets a task in between two layer
   * calls of its cells: no task runs longer than one layer call.
   */
  onProgress?: (event: PatchSweepProgress) => void;
  /**
   * In a decoder, the most rows of cells in one layer call (a cell of more rows runs alone): fewer make each layer
   * call shorter (a page's task) and the sweep a little slower; the scores are the same. An integer ≥ 1 (else
   * BAD_OPTION). Default 96.
   */
  batchRows?: number;
}

/** A patching sweep's progress, after a layer's cells. */
export interface PatchSweepProgress {
  /** 'patch'. */
  readonly phase: 'patch';
  /** The layer whose cells are done, from 0. */
  readonly layer: number;
  /** Cells done, and of all. */
  readonly done: number;
  /** Cells in all. */
  readonly total: number;
  /** The scores so far: PatchSweepResult.scores, NaN where not computed yet. */
  readonly scores: Tensor;
  /** The token ids of m: PatchSweepResult.target. */
  readonly target: readonly number[];
}

/** What model.patchSweep returns. */
export interface PatchSweepResult {
  /** [L, n] (input, output, mlpOutput) or [L, H] (headOutput): (m − m_corrupted) / (m_clean − m_corrupted). */
  readonly scores: Tensor;
  /** m of the clean run. */
  readonly clean: number;
  /** m of the corrupted run. */
  readonly corrupted: number;
  /** The token ids of m, [a] or [a, b]: the target given, or the runs' top tokens (target 'top'). */
  readonly target: readonly number[];
}

/** What model.run returns with `from`: the layers before `from.layer` did not run, and hold null. */
export interface RunFromResult extends Omit<RunResult, 'attentions' | 'hiddenStates'> {
  /** One per layer, [H, n, n]: each head's attention weights; null before `from.layer`. */
  readonly attentions: (Tensor | null)[];
  /** num_layers + 1, [n, d]: the layers' inputs and the last output; null before `from.layer`, whose entry is the hidden state given. */
  readonly hiddenStates: (Tensor | null)[];
}

/**
 * What model.run returns when its options may turn `attentions` or `hiddenStates` off (`false`, or a boolean not
 * known when compiling) or may hold `from`: each of the two is absent when off, and null for the layers before
 * `from.layer`.
 */
export interface RunResultOf extends Omit<RunResult, 'attentions' | 'hiddenStates'> {
  /** One per layer, [H, n, n], unless `attentions: false`; null before `from.layer`. */
  readonly attentions?: (Tensor | null)[];
  /** num_layers + 1, [n, d], unless `hiddenStates: false`; null before `from.layer`. */
  readonly hiddenStates?: (Tensor | null)[];
}

/** RunOptions that leave `attentions` and `hiddenStates` on (the default) and have no `from`: run's plain form. */
export type DefaultRunOptions = RunOptions & {
  /** None: the plain form. */
  from?: undefined;
  /** On (true or left out). */
  attentions?: true;
  /** On (true or left out). */
  hiddenStates?: true;
};

/** model.generate's options. */
export interface GenerateOptions {
  /** The most tokens to generate. Default 16. */
  maxNewTokens?: number;
  /** 0 (the default): greedy, the most probable token; above 0: sampling at this temperature. */
  temperature?: number;
  /** Sampling keeps the topK most probable tokens. Default: all. */
  topK?: number;
  /** Then the fewest most probable whose probabilities reach topP, in (0, 1]. Default 1. */
  topP?: number;
  /** The sampler's seed (mulberry32), an integer in [0, 2³²). Default 0. */
  seed?: number;
  /** Token ids that end the generation after the step that chooses one. */
  stop?: readonly number[];
  /** Aborting rejects the next step with AttentionError ABORTED (the signal's reason as its cause); the cache is freed. */
  signal?: AbortSignal;
  /** Return each step's attention rows. Default true. */
  attentions?: boolean;
  /** How many tokens each step's `next` lists. Default 5. */
  next?: number;
  /**
   * Bytes of weights kept in WebAssembly memory during the generation (the rest read at every step), when the model
   * keeps none across runs (LoadModelOptions.residentBytes); a resident model's weights serve it instead. Default 1 GiB.
   */
  residentBytes?: number;
  /** Heads switched off at every step, the prompt's included: [layer, head] pairs, as RunOptions.ablate. */
  ablate?: readonly (readonly [number, number])[];
}

/** One step of model.generate: the token chosen after the sequence so far. */
export interface GenerateStep {
  /** 0, 1, …: the step's index. */
  readonly step: number;
  /** The token chosen. */
  readonly id: number;
  /** With a tokenizer.json: the token as text. */
  readonly token?: string;
  /** Its probability under the model (the softmax of the logits, whatever the temperature). */
  readonly p: number;
  /** Its logit. */
  readonly logit: number;
  /** The most probable tokens at the same position, as run's next. */
  readonly next: NextToken[];
  /** One per layer, [H, 1, n]: the attention row of the query that chose the token (n tokens before it). */
  readonly attentions?: Tensor[];
  /** The prompt and the tokens so far, this one included. */
  readonly ids: number[];
  /** With a tokenizer.json: ids as text. */
  readonly tokens?: string[];
  /** null while steps follow; why this step is the last. */
  readonly finish: null | 'maxNewTokens' | 'stop' | 'positions';
}

/**
 * The choices by which the families differ, each read by the forward or by a page (model.spec.choices): read these
 * rather than asking which family a model is.
 */
export interface ModelChoices {
  /** The norm: LayerNorm, RMSNorm, or Gemma's RMSNorm x̂·(1 + w). */
  readonly norm: 'layerNorm' | 'rmsNorm' | 'rmsNormPlusOne';
  /**
   * A norm before each sub-block (GPT-2, LLaMA), after each residual sum (BERT), before each of two sub-blocks side by
   * side (GPT-NeoX's parallel residual), before and after each sub-block inside the residual branch (Gemma 2 and 3's
   * sandwich), or after each sub-block only (OLMo-2).
   */
  readonly placement: 'preNorm' | 'postNorm' | 'parallel' | 'sandwich' | 'postBranch';
  /** The checkpoint's matrices: [in, out] (GPT-2's Conv1D) or [out, in] (torch.nn.Linear). */
  readonly layout: 'inOut' | 'outIn';
  /** A decoder: each token attends to itself and the tokens before it; generate() runs it. */
  readonly causal: boolean;
  /** Rotary position embeddings on q and k (else learned positions, added to the embeddings). */
  readonly rope: boolean;
  /** Its LM head predicts masked tokens ([MASK]) from the whole sentence (BERT), not the next token. */
  readonly maskedLm: boolean;
  /** A norm after the last layer, which the last of hiddenStates includes (GPT-2's ln_f, LLaMA's norm). */
  readonly finalNorm: boolean;
  /** The family may have fewer key-value heads than query heads (grouped-query attention). */
  readonly groupedKv: boolean;
}

/** What a page shows of a model (model.spec.labels). */
export interface ModelLabels {
  /** The family as people write it: 'GPT-2', 'BERT', 'LLaMA'. */
  readonly family: string;
  /** The MLP's activation that runs: 'GELU (tanh)', 'GELU (erf)' or 'SiLU-gated'. */
  readonly activation: string;
  /** 'LayerNorm' or 'RMSNorm'. */
  readonly norm: string;
  /** 'pre-norm', 'post-norm' or 'parallel'. */
  readonly placement: string;
  /** A layer's two norms as the checkpoint names them, e.g. ['LayerNorm ln_1', 'LayerNorm ln_2']. */
  readonly norms: readonly string[];
}

/** Where a model's learned positions start (model.spec.positions). */
export interface ModelPositions {
  /** The position table's row of the first token (RoBERTa: padding_idx + 1; else 0). */
  readonly offset: number;
  /** A token id whose tokens take row offset − 1 and are not counted (RoBERTa's padding_idx), or null. */
  readonly padId: number | null;
}

/** A family this package runs (model.family): one file each of src/js/model/families/. */
export type ModelFamily =
  | 'gpt2'
  | 'bert'
  | 'llama'
  | 'gpt_neox'
  | 'qwen3'
  | 'roberta'
  | 'distilbert'
  | 'phi3'
  | 'gemma'
  | 'gemma2'
  | 'gemma3'
  | 'olmo2';

/** The normalized description of a model read from its config.json (model.spec): the same fields for every family. */
export interface ModelSpec {
  /** The family. */
  readonly family: ModelFamily;
  /** config.json's model_type (e.g. 'mistral'). */
  readonly modelType: string;
  /** d: the hidden size. */
  readonly dModel: number;
  /** H: query heads. */
  readonly numHeads: number;
  /** H_kv: key-value heads. */
  readonly numKvHeads: number;
  /** d_k: each head's width. */
  readonly headDim: number;
  /** d_ff: the MLP's width. */
  readonly dFf: number;
  /** The layers. */
  readonly numLayers: number;
  /** The most tokens a run takes (RoBERTa: the position table's rows past `padding_idx`). */
  readonly maxPositions: number;
  /**
   * Where learned positions start: token i takes row `offset + i` of the position table; with a `padId` (RoBERTa's
   * `padding_idx`), the tokens that are not `padId` count from `offset` and `padId`'s own take `offset − 1`.
   */
  readonly positions: ModelPositions;
  /** V: the vocabulary's size. */
  readonly vocabSize: number;
  /** The config.json field each required size was read from, e.g. { dModel: 'n_embd', maxPositions: 'n_positions', … }. */
  readonly fields: Readonly<Record<'dModel' | 'numHeads' | 'numLayers' | 'maxPositions' | 'vocabSize', string>>;
  /** The MLP's activation that runs (GPT-2's activation_function "gelu" is 'geluErf'; Gemma's GeGLU 'geluTanhGated'). */
  readonly activation: 'geluTanh' | 'geluErf' | 'siluGated' | 'geluTanhGated';
  /** Each layer's sliding window (0: full attention): Mistral's, Gemma 2's even layers, Gemma 3's five of six. */
  readonly windows: readonly number[];
  /** The scores' scale, Gemma 2 and 3's query_pre_attn_scalar^-½ (0: 1/√d_k). */
  readonly attentionScale: number;
  /** Attention logit softcapping, Gemma 2's attn_logit_softcapping (0: none). */
  readonly softcap: number;
  /** Final logit softcapping, Gemma 2's final_logit_softcapping (0: none). */
  readonly finalSoftcap: number;
  /** The token embeddings' factor, Gemma's √d_model in the checkpoint's dtype (0: none). */
  readonly embedScale: number;
  /** The choices the forward reads and a page shows. */
  readonly choices: ModelChoices;
  /** What a page shows of the model. */
  readonly labels: ModelLabels;
}

/** One worker's WebAssembly memory (Model.workerMemory). */
export interface WorkerMemory {
  /** Bytes of its WebAssembly memory: it grows to its share of the weights and its largest call, never shrinks. */
  memoryBytes: number;
  /** Bytes of its heap in use now, its share of the weights (and a generation's KV cache) included. */
  heapBytesInUse: number;
}

/** A loaded model (loadModel). */
export class Model {
  private constructor();
  /** The family the config names. */
  readonly family: ModelFamily;
  /** config.json as parsed (the raw object). */
  readonly config: Record<string, unknown>;
  /** The normalized description read from config.json: sizes, choices and labels, the same fields for every family. */
  readonly spec: ModelSpec;
  /** Whether the folder had a tokenizer.json: run() then takes text. */
  readonly hasTokenizer: boolean;
  /** Bytes of tensors read from the checkpoint so far. */
  readonly bytesRead: number;
  /** Bytes of the model's WebAssembly memory: it grows to one layer's call (plus resident weights), never shrinks. */
  readonly memoryBytes: number;
  /** Whether it keeps its weights in WebAssembly memory across runs (LoadModelOptions.residentBytes). */
  readonly resident: boolean;
  /** How many workers run its layers (LoadModelOptions.workers); 0: every layer runs on the calling thread. */
  readonly workers: number;
  /**
   * Each worker's WebAssembly memory, in worker order, its share of the weights included ([] without workers).
   * @example
   * ```js
   * import { BUILTIN_MODEL, loadModel } from 'attention-wasm/model';
   *
   * const model = await loadModel(BUILTIN_MODEL, { workers: 2 });
   * const r = await model.run('the cat saw a red ball near the old tree . the cat saw a red');
   * const memory = await model.workerMemory();
   * console.log(model.workers, r.next[0].token, memory.length); // prints: 2 ball 2
   * await model.dispose();
   * ```
   */
  workerMemory(): Promise<WorkerMemory[]>;
  /**
   * Bytes of its heap in use now: back to the same baseline after every run, failed or not. A resident model's kept
   * weights are part of that baseline from the run that first uses them until dispose().
   */
  heapBytesInUse(): number;
  /**
   * The text's tokens as run(text) computes on them, read by the folder's tokenizer.json alone (no weight is read, no
   * layer runs): the same encoding as run's, so its ids and tokens label the positions of a run's figures. The
   * tokenizer's special tokens are included where it adds them (BERT's [CLS] … [SEP]), as run adds them. Not checked
   * against the model: run refuses ids outside config.json's vocabulary and more tokens than its positions
   * (TOO_MANY_TOKENS). Anything but a string is BAD_OPTION, and so is a model without tokenizer.json; TERMINATED
   * after dispose(). Synchronous: it throws rather than rejects.
   *
   * | result    | shape        |
   * |-----------|--------------|
   * | ids       | number[] n   |
   * | tokens    | string[] n   |
   * | rawTokens | string[] n   |
   *
   * @example
   * ```js
   * import { BUILTIN_MODEL, loadModel } from 'attention-wasm/model';
   *
   * const model = await loadModel(BUILTIN_MODEL);
   * const { ids, tokens } = model.tokenize('the cat saw a red ball');
   * console.log(ids.length, tokens.join('|'), model.bytesRead); // prints: 6 the|cat|saw|a|red|ball 0
   * ```
   */
  tokenize(text: string): TokenizeResult;
  /**
   * One forward pass over text (with the folder's tokenizer.json, read by @huggingface/tokenizers) or token ids, at
   * most the model's positions (TOO_MANY_TOKENS). Weights are read from the checkpoint a layer at a time and held in
   * WebAssembly memory for that layer only; a resident model (LoadModelOptions.residentBytes) reads each once and
   * keeps it.
   *
   * | result        | shape                                     |
   * |---------------|-------------------------------------------|
   * | attentions    | num_layers × [H, n, n]                    |
   * | hiddenStates  | (num_layers + 1) × [n, d]                 |
   * | logits        | [n, V]                                    |
   * | next          | the topK most probable next tokens        |
   * | captures      | per { layer, head }: see HeadCapture       |
   * | loss          | with `loss`: { perToken [n − 1], mean }   |
   *
   * @example
   * ```js
   * import { BUILTIN_MODEL, loadModel } from 'attention-wasm/model';
   *
   * const model = await loadModel(BUILTIN_MODEL);
   * const text = 'the cat saw a red ball near the old tree . the cat saw a red';
   * const r = await model.run(text, { capture: [{ layer: 1, head: 3 }] });
   * console.log(r.tokens.length, r.attentions[1].shape, r.hiddenStates[2].shape); // prints: 16 [ 4, 16, 16 ] [ 16, 64 ]
   * console.log(r.next[0].token, r.captures[0].weights.toArray(2)[15][5]); // prints: ball 0.43
   * ```
   */
  run(input: string | { ids: ArrayLike<number> }, options?: DefaultRunOptions): Promise<RunResult>;
  /**
   * With `from: { layer, hiddenState }`: layers `layer` and after only, from that hidden state (RunOptions.from).
   *
   * @example
   * ```js
   * import { BUILTIN_MODEL, loadModel } from 'attention-wasm/model';
   *
   * const model = await loadModel(BUILTIN_MODEL);
   * const text = 'the cat saw a red ball near the old tree . the cat saw a red';
   * const whole = await model.run(text);
   * const part = await model.run(text, { from: { layer: 1, hiddenState: whole.hiddenStates[1] }, logits: 'last' });
   * console.log(part.attentions[0], part.next[0].token); // prints: null ball
   * ```
   */
  run(
    input: string | { ids: ArrayLike<number> },
    options: RunOptions & { from: RunFrom; attentions?: true; hiddenStates?: true },
  ): Promise<RunFromResult>;
  /** With `attentions` or `hiddenStates` that may be false: each is then absent from the result. */
  run(input: string | { ids: ArrayLike<number> }, options?: RunOptions): Promise<RunResultOf>;
  /**
   * Layer `layer`'s attention weights, as attentionWeightsFrom gives them from the checkpoint: copied out of
   * WebAssembly memory when the model keeps them there (resident), else read (that layer's attention tensors only).
   * A layer out of range is BAD_OPTION.
   *
   * | weight          | shape                                   |
   * |-----------------|-----------------------------------------|
   * | wq; wk, wv      | [d_model, H·d_k]; [d_model, H_kv·d_k]   |
   * | wo              | [H·d_k, d_model]                        |
   * | bq, bk, bv, bo  | their columns, when the family has them |
   */
  attentionWeights(
    layer: number,
    options?: {
      signal?: AbortSignal;
      /** The sequence's length, as attentionWeightsFrom's: LongRoPE's long factors past its original length. */
      tokens?: number;
    },
  ): Promise<LayerWeights>;
  /**
   * Generation with a KV cache in WebAssembly memory (GPT-2 and the LLaMA family; BERT: UNSUPPORTED_MODEL): the
   * prompt runs once, then each step runs only the new token through every layer. Options are checked here
   * (BAD_OPTION naming the option); the cache and resident weights are freed however the iteration ends.
   *
   * | step        | shape                                          |
   * |-------------|------------------------------------------------|
   * | id, p       | the token chosen and its probability            |
   * | next        | top tokens at the same position                 |
   * | attentions  | num_layers × [H, 1, n]                          |
   * | ids         | the prompt and the tokens so far                |
   *
   * @example
   * ```js
   * import { BUILTIN_MODEL, loadModel } from 'attention-wasm/model';
   *
   * const model = await loadModel(BUILTIN_MODEL);
   * const words = [];
   * for await (const step of model.generate('the cat saw a red ball near the old tree . the cat saw', { maxNewTokens: 4 }))
   *   words.push(step.token);
   * console.log(words.join(' ')); // prints: a red ball near
   * ```
   */
  generate(input: string | { ids: ArrayLike<number> }, options?: GenerateOptions): AsyncGenerator<GenerateStep, void>;
  /**
   * The logit lens: rows of the residual stream through the final norm (`norm`, default true) and the LM head, as the
   * forward applies them to its last hidden state. BERT: its masked-LM head. SHAPE_MISMATCH for rows not d_model wide,
   * NON_FINITE for NaN or ±Infinity, UNSUPPORTED_MODEL without an LM head.
   *
   * | argument, result | shape          |
   * |------------------|----------------|
   * | hidden           | [n, d_model]   |
   * | result           | [n, V]         |
   */
  unembed(hidden: TensorInput, options?: UnembedOptions): Promise<Tensor>;
  /**
   * Direct logit attribution of the logit of target[0] (minus target[1]'s) at `position`: the embeddings, each head,
   * each attention output bias, each MLP and the final norm's bias, summing to the logit (difference). BERT:
   * UNSUPPORTED_MODEL (its masked-LM head is not linear). A target id outside the vocabulary or a position out of range
   * is BAD_OPTION, before anything is read.
   *
   * | result                         | shape          |
   * |--------------------------------|----------------|
   * | total, embeddings, finalBias   | number         |
   * | heads                          | Tensor [L, H]  |
   * | attnBiases, mlps               | [L]            |
   */
  attribute(input: string | { ids: ArrayLike<number> }, options: AttributeOptions): Promise<Attribution>;
  /**
   * TransformerLens's head detectors ("mul"): per head, sum(A ⊙ P) / sum(A) of its attention weights A against the
   * pattern P of `kind` (previousToken: the sub-diagonal; duplicateToken: earlier positions of the same id; induction:
   * the duplicate pattern shifted one right), after the exclusions, averaged over the sequences. NaN where nothing is
   * left of A.
   *
   * | result | shape         |
   * |--------|---------------|
   * | scores | Tensor [L, H] |
   */
  headScores(kind: HeadScoreKind, options: HeadScoresOptions): Promise<Tensor>;
  /**
   * Activation patching over the model: each cell patches the clean run's activation of `step` into the corrupted run
   * (one layer at one token, or one head at every token) and scores (m − m_corrupted) / (m_clean − m_corrupted).
   *
   * | result            | shape                                        |
   * |-------------------|----------------------------------------------|
   * | scores            | Tensor [L, n] (input, output, mlpOutput)      |
   * |                   | Tensor [L, H] (headOutput)                    |
   * | clean, corrupted  | number: m of each run                         |
   */
  patchSweep(options: PatchSweepOptions): Promise<PatchSweepResult>;
  /** Forgets the checkpoint (and frees any generation's cache); later runs reject with TERMINATED. */
  dispose(): Promise<void>;
}

/**
 * Loads a model: reads config.json and the checkpoint's headers, finds every tensor of the forward and checks its
 * shape against config.json (UNSUPPORTED_MODEL, BAD_CONFIG, MISSING_FILE, MISSING_TENSOR, WEIGHT_SHAPE_MISMATCH,
 * BAD_FILE otherwise), and reads tokenizer.json when there is one; no weight is read until a run.
 *
 * @example
 * ```js
 * import { BUILTIN_MODEL, loadModel } from 'attention-wasm/model';
 *
 * // Or a folder path (Node), a folder URL, { hub: 'openai-community/gpt2' }, a dropped folder's Files.
 * const model = await loadModel(BUILTIN_MODEL);
 * console.log(model.family, model.spec.numLayers, model.spec.numHeads, model.hasTokenizer); // prints: gpt2 2 4 true
 * ```
 */
export function loadModel(source: ModelSource, options?: LoadModelOptions): Promise<Model>;

/** A tensor of a checkpoint, e.g. from readSafetensors. */
export interface CheckpointTensor {
  /** Its values, row-major. */
  data: Float32Array | Float64Array | number[];
  /** Its dimensions. */
  shape: readonly number[];
}

/** A LLaMA layer's rope, as selfAttention's weights.rope takes it. */
export interface LayerRope extends RopeOptions {
  /** config.json's rope_theta. */
  theta: number;
  /** The rotated columns of each head (head_dim, or less with partial_rotary_factor). */
  dim: number;
  /** The inverse frequencies, rope_scaling applied (LongRoPE's short factors). */
  invFreq: number[];
  /** LongRoPE's attention factor (Phi-3's long-context models), when not 1: cos and sin are multiplied by it. */
  attentionFactor?: number;
}

/**
 * The RMS norm of a layer's q and k after their projections, before the rope (Qwen3, Gemma 3: each head's d_k
 * columns; OLMo-2: each token's whole projection). selfAttention refuses weights holding one: norm q and k with it and
 * call scaledDotProductAttention.
 */
export interface LayerQkNorm {
  /** 'rmsNorm': x / √(mean(x²) + eps) · w; 'rmsNormPlusOne': Gemma's · (1 + w). */
  norm: 'rmsNorm' | 'rmsNormPlusOne';
  /** 'head': over each head's d_k columns; 'projection': over each token's whole q (H·d_k) and k (H_kv·d_k). */
  over: 'head' | 'projection';
  /** config.json's rms_norm_eps. */
  eps: number;
  /** q's weights: [d_k], or [H·d_k] over the projection. */
  q: WeightVector;
  /** k's weights: [d_k], or [H_kv·d_k] over the projection. */
  k: WeightVector;
}

/** attentionWeightsFrom's result: selfAttention's weights for one layer of a checkpoint. */
export interface LayerWeights extends MultiHeadWeights {
  /** [d, H·d_k]: W_q, [in, out] (q = x·W_q). */
  wq: WeightMatrix;
  /** [d, H_kv·d_k]: W_k, [in, out]. */
  wk: WeightMatrix;
  /** [d, H_kv·d_k]: W_v, [in, out]. */
  wv: WeightMatrix;
  /** [H·d_k, d]: the output projection W_o. */
  wo: WeightMatrix;
  /** [H·d_k]: q's bias, when the family has one (GPT-2, BERT, Qwen2). */
  bq?: WeightVector;
  /** [H_kv·d_k]: k's bias. */
  bk?: WeightVector;
  /** [H_kv·d_k]: v's bias. */
  bv?: WeightVector;
  /** [d]: the output projection's bias (GPT-2, BERT). */
  bo?: WeightVector;
  /** H: query heads. */
  numHeads: number;
  /** H_kv: key-value heads. */
  numKvHeads: number;
  /** The layer's rope (the rotary families, with config.json). */
  rope?: LayerRope;
  /** The scores' scale when not 1/√d_k (Gemma 2 and 3: query_pre_attn_scalar^-½). */
  scale?: number;
  /** The layer's logit softcap (Gemma 2's attn_logit_softcapping). */
  softcap?: number;
  /** The layer's sliding window (Gemma 2 and 3's sliding layers, Mistral, Phi-3-mini): keys within it, with causal. */
  window?: number;
  /** The layer's q/k norm (Qwen3, Gemma 3, OLMo-2), which selfAttention refuses: see LayerQkNorm. */
  qkNorm?: LayerQkNorm;
}

/** A weight matrix of LayerWeights: float32 values, row-major, [in, out] as the main API takes it. */
export interface WeightMatrix {
  /** The values, row-major. */
  data: Float32Array;
  /** [rows, cols]: [in, out]. */
  shape: [rows: number, cols: number];
}

/** A bias of LayerWeights: float32 values. */
export interface WeightVector {
  /** The values. */
  data: Float32Array;
  /** [length]. */
  shape: [length: number];
}

/**
 * One layer's attention weights of a checkpoint in this package's layout (GPT-2's c_attn split, Linear [out, in]
 * transposed, prefixes handled, LLaMA's rope), so that selfAttention(x, weights, { causal }) computes that layer's
 * attention from its normed input x (with its scale, softcap, window and LongRoPE factor; a q/k norm comes as
 * qkNorm, which selfAttention refuses). An option other than `layer`, `config` and `tokens` is UNKNOWN_OPTION,
 * naming the nearest one.
 *
 * @example
 * ```js
 * import { readFile } from 'node:fs/promises';
 * import { readSafetensors } from 'attention-wasm/io';
 * import { BUILTIN_MODEL, attentionWeightsFrom } from 'attention-wasm/model';
 *
 * const config = JSON.parse(await readFile(new URL('config.json', BUILTIN_MODEL), 'utf8'));
 * const tensors = readSafetensors(await readFile(new URL('model.safetensors', BUILTIN_MODEL)));
 * const weights = attentionWeightsFrom(tensors, { layer: 0, config });
 * console.log(weights.wq.shape, weights.bq.shape, weights.numHeads); // prints: [ 64, 64 ] [ 64 ] 4
 * ```
 */
export function attentionWeightsFrom(
  tensors: Record<string, CheckpointTensor> | Map<string, CheckpointTensor>,
  options: {
    layer: number;
    /** config.json (parsed or as text), or without one: the family and heads (sizes from the shapes, no rope). */
    config: Record<string, unknown> | string | { family: ModelFamily; numHeads: number; numKvHeads?: number };
    /** The sequence's length: LongRoPE's long factors past original_max_position_embeddings. Default 0. */
    tokens?: number;
  },
): LayerWeights;

/** Where one of this package's weights comes from: a tensor, a column block of it (fused c_attn), transposed or not. */
export interface WeightSource {
  /** The tensor's name in the checkpoint. */
  name: string;
  /**
   * A block of a fused tensor: block `index` of `of` (q, k, v of 3: H·d_k, H_kv·d_k and H_kv·d_k wide), its columns
   * (GPT-2's c_attn), its rows (`byRows`: Phi-3's qkv_proj) or each head's `index`-th d_k rows (`perHead`: GPT-NeoX's
   * query_key_value, [q_h | k_h | v_h] by head).
   */
  part?: {
    /** The block: 0 for q, 1 for k, 2 for v. */
    index: number;
    /** How many blocks the tensor holds. */
    of: number;
    /** The blocks are rows of an [out, in] tensor. */
    byRows?: boolean;
    /** The blocks are each head's rows in turn. */
    perHead?: boolean;
  };
  /** True for torch.nn.Linear's [out, in], read as [in, out]. */
  transpose?: boolean;
}

/** attentionTensorsOf's result: a checkpoint's family and one layer's sources. */
export interface LayerTensors {
  /** The family recognised. */
  family: ModelFamily;
  /** The family as people write it ('GPT-2', 'GPT-NeoX', …), as model.spec.labels.family. */
  label: string;
  /** The family's choices, as model.spec.choices (causal, rope, groupedKv, …). */
  choices: ModelChoices;
  /** The base model's prefix of the names ("transformer.", "bert.", "model." or ""). */
  prefix: string;
  /** The layers the names hold, ascending. */
  layers: number[];
  /** The layer of `sources`: the one asked for when the names hold it, else the first. */
  layer: number;
  /** Each weight's source, for the tensors the names hold. */
  sources: Partial<Record<'wq' | 'wk' | 'wv' | 'wo' | 'bq' | 'bk' | 'bv' | 'bo', WeightSource>>;
  /** 'names': the family guessed from the names; 'config': config.json's. */
  by: 'names' | 'config';
}

/**
 * Recognises a checkpoint's family from its tensors' names (the family whose layer they hold most completely; names
 * alike in two families give the earlier: Gemma 1's are LLaMA's) or takes config.json's, and gives one layer's
 * sources, as attentionWeightsFrom reads them; null when no family's names (or not config.json's family's) are there.
 */
export function attentionTensorsOf(
  tensors: string[] | Map<string, unknown> | Record<string, unknown>,
  options?: {
    layer?: number;
    /** config.json, parsed or as text: its family, exactly. */
    config?: Record<string, unknown> | string;
  },
): LayerTensors | null;
