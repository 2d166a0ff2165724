// The size limits of one call.

/** The most WebAssembly memory one call may use (inputs, results and scratch): 1 GiB. */
export const MAX_CALL_BYTES = 2 ** 30;
