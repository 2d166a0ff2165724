// The page's whole state (shared/state.js), as a type only: nothing loads this file, so neither the page nor the
// elements download these lines. state.js names it in its JSDoc.

export interface State {
  sentence: string;
  /** tokens (rows of X) */
  n: number;
  dModel: number;
  /** per head */
  dK: number;
  /** per head */
  dV: number;
  numHeads: number;
  /** unsigned 32-bit */
  seed: number;
  dist: 'normal' | 'uniform';
  /** decimals shown */
  precision: number;
  causal: boolean;
  /** divide the scores by √d_k */
  scaling: boolean;
  temperature: number;
  /** W_k is W_q */
  shareQK: boolean;
  /** the head shown in the steps (0-based) */
  head: number;
  /** overrides of the generated matrices */
  x: number[][] | null;
  wq: number[][] | null;
  wk: number[][] | null;
  wv: number[][] | null;
  /** the output projection, [numHeads·dV, dModel] */
  wo: number[][] | null;
  /** [n, n], true = may attend; null = all allowed */
  mask: boolean[][] | null;
  /** X from the embedding table by token; 'row': by row number (links of version 1) */
  embed: 'token' | 'row';
  /** add sinusoidal positional encodings to X */
  positions: boolean;
  /** which shuffle the word-order demo shows (1, 2, …) */
  shuffle: number;
  /** the grouped-query lesson's kv heads (null: as many as heads) */
  kvHeads: number | null;
  /** the cross-attention lesson's second sentence (encoder side: keys and values) */
  source: string;
  /** designed heads: X, W_q and W_k built by hand (designedHeads.js), not from the seed */
  design: boolean;
  /** the RoPE lesson's theta (rope_theta), pairing style and shift of the whole sentence (shared/state.js's ROPE) */
  ropeTheta: number;
  ropeStyle: 'half' | 'interleaved';
  ropeShift: number;
  /** the softcapping and sliding-window lesson's window w (keys a sliding query sees, itself included) and cap c */
  slidingWindow: number;
  softcap: number;
}
