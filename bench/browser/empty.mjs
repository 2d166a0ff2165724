// What the browser bench's import map gives for the Node built-ins that tfjs-backend-wasm's ES module names
// (fs, path, os, perf_hooks): it reads them only when it runs in Node.
export default {};
