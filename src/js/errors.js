/**
 * The one error type of the public API. `code` is stable across versions; `message` names the argument
 * and the shapes involved.
 *
 * Every code, with what raises it, is listed once in src/core/abi.h (ERROR_CODES in ./generated/abi.js, the
 * AttentionErrorCode type, and the README's table are generated from or checked against it).
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
