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

const ignore = () => {};

/**
 * Resolves once `promise` has settled (its outcome ignored: another caller's read, which that caller reports), or
 * rejects ABORTED as soon as `signal` aborts: a run never waits on a read it cannot stop.
 */
export function settledOrAborted(promise, signal, what) {
  const done = promise.then(ignore, ignore);
  if (!signal) return done;
  checkAborted(signal, what);
  return new Promise((resolve, reject) => {
    const stop = () => reject(abortError(signal, what));
    signal.addEventListener('abort', stop, { once: true });
    done.then(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    });
  });
}

/** A signal that aborts when either does (`signal` may be undefined): AbortSignal.any where there is one. */
export function eitherSignal(signal, other) {
  if (!signal) return other;
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([signal, other]);
  const controller = new AbortController();
  for (const s of [signal, other]) {
    if (s.aborted) controller.abort(s.reason);
    else s.addEventListener('abort', () => controller.abort(s.reason), { once: true });
  }
  return controller.signal;
}
