// Hand-written declarations for attention-wasm/elements: <attention-explorer> and <attention-heatmap>.
/**
 * Two custom elements that put live attention figures in any page: `<attention-explorer>` and `<attention-heatmap>`.
 * @module attention-wasm/elements
 */
import type { Attention, Tensor } from '../../../src/js/index.js';

/** The exact numbers an element may be given (a child <script type="application/json">, `src`, or `data`). */
export interface AttentionNumbers {
  /** [n, d_model] */
  x?: number[][];
  /** [d_model, heads·d_k] */
  wq?: number[][];
  /** [d_model, heads·d_k] */
  wk?: number[][];
  /** [d_model, heads·d_v] */
  wv?: number[][];
  /** [heads·d_v, d_model] */
  wo?: number[][];
  /** n token labels */
  tokens?: string[];
  /** [n, n], true (or 1) = may attend */
  mask?: (boolean | number)[][];
  /** How many heads the weights hold (their widths divide by it). */
  heads?: number;
}

/** The detail of the `attention-change` event. */
export interface AttentionChangeDetail {
  /** The settings in use (the page's state object). */
  settings: Record<string, unknown>;
  /**
   * The result of selfAttention with returnSteps: q, k, v, rawScores, scaledScores, scores, weights, heads, concat,
   * output. On a real model: the shown layer's, per head ([heads, n, …]), with x, attentions, ids, tokens and next.
   */
  result: Record<string, Tensor> | ModelResult | InstrumentResult;
  /** [heads, n, n]: the attention weights shown, as nested arrays (absent with `view`). */
  weights?: number[][][];
}

/**
 * The detail of the `headselect` event: a head clicked (or Enter on it) in an element's instrument (`view`
 * attribution, patching's head outputs, head-scores). Cancellable: unless a listener calls preventDefault(), the
 * element shows that head's attention weights (an explorer: step by step), with a button back to the view.
 */
export interface HeadSelectDetail {
  /** The head's layer, counted from 0. */
  layer: number;
  /** The head, counted from 0 ("L1H2": layer 1, head 2). */
  head: number;
  /** The view it was clicked in. */
  view: 'attribution' | 'patching' | 'head-scores';
}

/**
 * An element's `result` with `view`: the view, the tokens, and the numbers shown (lens: `grid`, `position`, `chosen`;
 * attribution: `target`, `attribution` (model.attribute's), `shaped` (the heads and parts drawn); patching: `target`, `sweeps` (model.patchSweep's per
 * step); head-scores: `scores` (model.headScores' per kind), `rows`; loss: `rows`, `mean`).
 */
export interface InstrumentResult {
  /** The view shown. */
  view: 'lens' | 'attribution' | 'patching' | 'head-scores' | 'loss';
  /** The token ids of the sentence. */
  ids: number[];
  /** The tokens as shown. */
  tokens: string[];
  /** The numbers shown, by view (above). */
  [numbers: string]: unknown;
}

/** An element's `result` on a real model (`model`): the shown layer's steps, one block per head. */
export interface ModelResult {
  /** [heads, n, n]: each head's attention weights, the softmax of its scores (each row sums to 1). */
  weights: Tensor;
  /** [heads, n, n]: the softmax's input, −Infinity where masked. */
  scores: Tensor;
  /** [heads, n, n]: q·kᵀ, before the scaling. */
  rawScores: Tensor;
  /** [heads, n, n]: q·kᵀ / √d_k, before the mask. */
  scaledScores: Tensor;
  /** [heads, n, d_k]: each head's queries. */
  q: Tensor;
  /** [heads, n, d_k]: each head's key-value head's keys. */
  k: Tensor;
  /** [heads, n, d_k]: each head's key-value head's values. */
  v: Tensor;
  /** [heads, n, d_k]: each head's output. */
  heads: Tensor;
  /** [n, d_model]: the layer's attention input, after its norm. */
  x: Tensor;
  /** [n, heads·d_k]: every head's output side by side. */
  concat: Tensor;
  /** [n, d_model]: after W_o. */
  output: Tensor;
  /** The layers run, each [heads, n, n]. */
  attentions: Tensor[];
  /** The token ids. */
  ids: number[];
  /** The tokens as text (the ids as text without a tokenizer). */
  tokens: string[];
  /** With `next`: the 5 most probable next tokens. */
  next:
    | {
        /** The token id. */
        id: number;
        /** Its probability. */
        p: number;
        /** Its logit. */
        logit: number;
        /** The token as text, with the model's tokenizer.json. */
        token?: string;
      }[]
    | null;
}

/** What both elements share: the attributes as properties (reading gives the value in use). */
export class AttentionElement extends HTMLElement {
  /** The tokens, split at spaces (at most 64). */
  sentence: string;
  /** The seed of the random embeddings and weights, 0 to 2³²−1 (default 42). */
  seed: number;
  /** d_model, the width of X. */
  dModel: number;
  /** d_k per head: the width of q and k. */
  dK: number;
  /** d_v per head: the width of v. */
  dV: number;
  /** How many heads (at most 8; heads·d_k ≤ 64). */
  heads: number;
  /** The head shown, counted from 0. */
  head: number;
  /** No looking ahead: query i sees keys j ≤ i. */
  causal: boolean;
  /** 0.05 to 5; 1 is standard attention. */
  temperature: number;
  /** Divide the scores by √d_k. */
  scale: boolean;
  /** Add the sinusoidal positional encodings of the original paper to X. */
  positions: boolean;
  /** The grouped-query lesson's kv heads. */
  kvHeads: number | null;
  /** The cross-attention lesson's second sentence. */
  source: string;
  /** Decimals shown, 0 to 7. */
  precision: number;
  /** One of the page's named examples (sentence, worked, causal, heads, …), or null. */
  example: string | null;
  /** A permalink copied from the page (the whole URL or its `#…`), as given; `permalink()` gives what is shown. */
  state: string | null;
  /** A .json file of exact numbers, or a .npz / .safetensors file (arrays x, wq, wk, wv, wo, mask). */
  src: string | null;
  /** No editing of the numbers. */
  readonly: boolean;
  /** A caption under the figure (text only); it names the figure for screen readers and goes into its export. */
  caption: string | null;
  /**
   * Cells to point at: "query → key" (or "->"), each side a token's text, its position "#3" (from 1) or "*" for all,
   * several separated by ";". E.g. "it → animal" (a cell), "it → *" (a row), "* → animal" (a column).
   */
  highlight: string | null;
  /** Download buttons for the figure: "svg", "png", or "" (the attribute alone) for both. */
  export: string | null;
  /**
   * A real model: "builtin" (the induction model shipped in the package), a folder URL, or a Hub model id
   * ("owner/name"), read through attention-wasm/model (loaded only then).
   */
  model: string | null;
  /** With `model`: the layer shown, counted from 0. */
  layer: string | null;
  /** With `model`: token ids instead of `sentence`, space-separated. */
  ids: string | null;
  /** With `model`: heads switched off, "layer.head" counted from 0, space-separated ("1.0 1.2"). */
  ablate: string | null;
  /** With `model`: show the 5 most probable next tokens ("" or the attribute alone). */
  next: string | null;
  /**
   * An instrument instead of the attention figure, on the shipped model unless `model` names another: "lens",
   * "attribution", "patching", "head-scores" or "loss" (loaded only for an element with `view`).
   */
  view: string | null;
  /** With `view`: the token followed, attributed or patched for (a word read as one token, or an id). */
  target: string | null;
  /** With `view` attribution or patching: the second token of the logit difference `target` − `against`. */
  against: string | null;
  /** With `view` lens, attribution or patching: the position followed, attributed or measured, counted from 0 (default the last). */
  position: string | null;
  /** With `view` patching: the corrupted prompt, as many tokens as the sentence. */
  corrupted: string | null;
  /** Exact numbers, instead of a child JSON script. */
  data: AttentionNumbers | undefined;
  /** The last result, or null before the first computation. */
  readonly result: Record<string, Tensor> | ModelResult | InstrumentResult | null;
  /** The shared attention-wasm instance, once loaded. */
  readonly attention: Attention | null;
  /** 'pending' until in view, then 'loading', 'ready' or 'error'. */
  readonly status: 'pending' | 'loading' | 'ready' | 'error';
  /**
   * The figure as the text of an SVG file: the heatmap (the weights of the head shown, or the heatmap's scores) with
   * its title, token labels, highlight, colour scale and caption, built from the numbers. Rejects before the figure
   * is ready.
   */
  toSVG(): Promise<string>;
  /** The same figure as a PNG, drawn at `scale` pixels per CSS pixel (0.5 to 4; default 2). Rejects before ready. */
  toPNG(scale?: number): Promise<Blob>;
  /**
   * The permalink of what is shown (the page's hash, without "#"), or null before the first figure and on a real
   * model (`model`). Its code loads when it is first asked for.
   */
  permalink(): Promise<string | null>;
}

/** <attention-explorer>: the demo page's step-by-step walk for one example, sized for a blog column. */
export class AttentionExplorer extends AttentionElement {
  /** Space-separated step names, e.g. "scores softmax output". */
  steps: string | null;
  /** Paragraphs left out, space-separated: "entropy", "caveat" (the random-weights notice). */
  hide: string | null;
}

/** <attention-heatmap>: the attention weights (or scores) as a heatmap with the tokens as labels, and a head picker. */
export class AttentionHeatmap extends AttentionElement {
  /** What the heatmap shows: "weights" (the default) or "scores" (the scaled, masked scores softmax gets). */
  values: string | null;
  /** With `model`: every layer × head as a small heatmap ("" or the attribute alone). */
  modelView: string | null;
}

/** The one Attention instance all elements on the page share. */
export function sharedAttention(): Promise<Attention>;

/** The steps <attention-explorer> knows: their names (the first is the page's) and titles. */
export const STEPS: ReadonlyArray<{
  /** The step's names, the page's first (e.g. "scores"), then aliases (e.g. the lesson's id). */
  readonly names: readonly string[];
}>;

declare global {
  interface HTMLElementTagNameMap {
    'attention-explorer': AttentionExplorer;
    'attention-heatmap': AttentionHeatmap;
  }
  interface HTMLElementEventMap {
    'attention-change': CustomEvent<AttentionChangeDetail>;
    headselect: CustomEvent<HeadSelectDetail>;
  }
}
