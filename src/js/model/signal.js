// Cancelling a load or a run: the `signal` option (an AbortSignal), checked between steps and passed to every
// request of a web folder, so that an abort stops a download at once. An abort is an AttentionError ABORTED whose
// cause is the signal's reason.
import { AttentionError, describe } from '../errors.js';

/** The `signal` option: undefined or an AbortSignal. */
export function readSignal(signal, where) {
  if (signal === undefined || (typeof AbortSignal === 'function' && signal instanceof AbortSignal)) return signal;
  throw new AttentionError('BAD_OPTION', `${where}: signal must be an AbortSignal, got ${describe(signal)}`);
}

/** ABORTED, with the signal's reason as the cause. */
export function abortError(signal, what) {
  return new AttentionError('ABORTED', `${what} was aborted`, { cause: signal?.reason });
}

/** Throws ABORTED when `signal` is aborted. */
export function checkAborted(signal, what) {
  if (signal?.aborted) throw abortError(signal, what);
}
