// The NaN/±inf scan in JS, for the calls of ParallelAttention (parallel.js) and its workers (worker-serve.js): one
// thread scans the values once they are in WebAssembly memory instead (call.js's checkValues), by the same rule.
import { nonFiniteError } from './tensor.js';

/** True when every value of a typed array is finite: x·0 is ±0 for finite x, NaN for ±Infinity and NaN. */
function allFinite(data) {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const whole = data.length - (data.length % 4);
  let i = 0;
  for (; i < whole; i += 4) {
    s0 += data[i] * 0;
    s1 += data[i + 1] * 0;
    s2 += data[i + 2] * 0;
    s3 += data[i + 3] * 0;
  }
  for (; i < data.length; i++) s0 += data[i] * 0;
  return s0 + s1 + s2 + s3 === 0;
}

/** The index of the first value of `data` that does not round to a finite float32 (nor is an allowed -Infinity). */
export function firstNonFinite(data, allowNegativeInfinity) {
  // A Float64Array may hold finite values that round to ±Infinity in float32: it always takes the slow path.
  if (data instanceof Float32Array && allFinite(data)) return -1;
  for (let i = 0; i < data.length; i++) {
    const x = Math.fround(data[i]);
    if (x - x !== 0 && !(x === -Infinity && allowNegativeInfinity)) return i;
  }
  return -1;
}

/**
 * Scans, in JS, the values of an input that conversion left unchecked (typed-array data), by the same rule as the
 * scan in WebAssembly memory: each value rounded to float32 must be finite. A no-op for anything else (boolean
 * masks included).
 */
function checkValues(tensor) {
  if (tensor.valuesChecked !== false) return;
  const index = firstNonFinite(tensor.data, tensor.allowNegativeInfinity);
  if (index >= 0) throw nonFiniteError(tensor, index);
}

/**
 * Scans, in JS, the input values a plan left unchecked (typed-array data, see FloatInput), for callers that do
 * not run the scan in WebAssembly memory: ParallelAttention, before it splits the inputs.
 */
export function checkPlanValues(plan) {
  for (const tensor of Object.values(plan.inputs)) if (tensor) checkValues(tensor);
  if (plan.options.mask) checkValues(plan.options.mask);
}
