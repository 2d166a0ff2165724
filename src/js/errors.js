/**
 * The one error type of the public API. `code` is stable across versions; `message` names the argument
 * and the shapes involved.
 *
 * | code                     | raised for                                                             |
 * |--------------------------|------------------------------------------------------------------------|
 * | NOT_A_TENSOR             | a value that is neither a nested array nor `{ data, shape }`            |
 * | NOT_A_NUMBER             | a string, null, object, ... where a number (or boolean) belongs          |
 * | NON_FINITE               | NaN or ±Infinity (−Infinity is allowed in additive masks)               |
 * | RAGGED_ARRAY             | nested arrays whose rows differ in length or depth                       |
 * | BAD_RANK                 | a tensor with the wrong number of dimensions                             |
 * | BAD_DIMENSION            | an empty, negative, fractional or non-numeric dimension                  |
 * | DATA_LENGTH_MISMATCH     | `data.length` differs from the product of `shape`                        |
 * | SHAPE_MISMATCH           | two arguments whose shapes do not fit together                           |
 * | HEADS_DO_NOT_DIVIDE      | numHeads / numKvHeads that do not divide the widths or each other        |
 * | MASK_DOES_NOT_BROADCAST  | a mask that does not broadcast to the attention weights' shape           |
 * | UNKNOWN_OPTION           | an option or weight name that does not exist (the nearest is suggested)  |
 * | BAD_OPTION               | an option with a value of the wrong kind (a NaN scale, causal: 'yes')    |
 * | TOO_LARGE                | a call that would need more WebAssembly memory than MAX_CALL_BYTES       |
 * | SCORE_OVERFLOW           | q·kᵀ·scale beyond float32 range                                          |
 * | PROJECTION_OVERFLOW      | x·W_q, x·W_k, x·W_v or concat·W_o beyond float32 range                   |
 * | SIMD_UNSUPPORTED         | `simd: true` where WebAssembly SIMD is missing                           |
 * | LOAD_FAILED              | the .wasm file could not be fetched or compiled                          |
 * | OUT_OF_MEMORY / INTERNAL | failures inside the module (not expected; please report them)            |
 */
export class AttentionError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{ cause?: unknown }} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'AttentionError';
    this.code = code;
  }
}

/** Formats a shape as `[2, 3]`. */
export function formatShape(shape) {
  return `[${shape.join(', ')}]`;
}

/** Levenshtein distance, for "did you mean" suggestions. */
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * Throws UNKNOWN_OPTION for a key of `object` that is not in `allowed`, naming the nearest allowed key.
 * @param {object} object
 * @param {readonly string[]} allowed
 * @param {string} what  e.g. "option" or "weight"
 */
export function checkKeys(object, allowed, what) {
  for (const key of Object.keys(object)) {
    if (allowed.includes(key)) continue;
    const nearest = [...allowed].sort((a, b) => editDistance(key, a) - editDistance(key, b))[0];
    throw new AttentionError(
      'UNKNOWN_OPTION',
      `unknown ${what} '${key}'; did you mean '${nearest}'? Valid ${what}s: ${allowed.join(', ')}`,
    );
  }
}
