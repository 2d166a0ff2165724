// The options a checkpoint layer's weights carry (attentionWeightsFrom's of attention-wasm/model): the scores' scale,
// softcap and sliding window of that layer (Gemma 2's query_pre_attn_scalar, attn_logit_softcapping and
// sliding_window, Mistral's window), used by selfAttention and multiHeadAttention unless the call's options give them,
// as weights.rope is. A q/k norm (weights.qkNorm: Qwen3's, Gemma 3's, OLMo-2's) is not run by these calls: weights
// holding one are refused, never run without it.
import { AttentionError } from './errors.js';
import { CAUSAL } from './generated/abi.js';
import { parseOptions } from './validate.js';

/** The weights' keys that are options of the call. */
export const WEIGHT_OPTIONS = ['scale', 'softcap', 'window'];

/**
 * weights.scale, softcap and window, checked as the options are (messages naming weights.…), and weights.qkNorm
 * refused: { scale?, softcap?, window? } (undefined: not carried).
 * @param {Record<string, unknown>} w  the weights record, read once (readRecord)
 */
export function readWeightOptions(w) {
  if (w.qkNorm !== undefined && w.qkNorm !== null) {
    throw new AttentionError(
      'BAD_OPTION',
      "weights.qkNorm: these weights' q and k are normed after their projection (q_norm, k_norm), which " +
        'selfAttention and multiHeadAttention do not run: compute q and k with the norm and call ' +
        "scaledDotProductAttention with the weights' rope, scale, softcap and window",
    );
  }
  const given = Object.fromEntries(WEIGHT_OPTIONS.filter((key) => w[key] !== undefined).map((key) => [key, w[key]]));
  if (!Object.keys(given).length) return {};
  try {
    const { scale, softcap, window } = parseOptions({ ...given, causal: true }, false);
    return { scale, softcap, window };
  } catch (error) {
    throw new AttentionError(error.code, `weights.${error.message}`);
  }
}

/** The call's parsed options with the weights' own where the call gives none (a window needs causal). */
export function withWeightOptions(o, carried) {
  const missing = WEIGHT_OPTIONS.filter((key) => o[key] === undefined && carried?.[key] !== undefined);
  if (!missing.length) return o;
  const merged = { ...o, ...Object.fromEntries(missing.map((key) => [key, carried[key]])) };
  if (missing.includes('window') && merged.window > 0 && merged.causal === CAUSAL.none) {
    throw new AttentionError(
      'BAD_OPTION',
      `weights.window (${merged.window}) is a sliding window, which is causal: give causal: true (or 'bottom-right'), or window: 0 for none`,
    );
  }
  return merged;
}
