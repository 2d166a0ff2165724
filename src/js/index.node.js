// attention-wasm's Node entry (the `node` export condition): Node's file reading and worker_threads installed
// (platform-node.js), then the same API as the browser entry, index.js.
import './platform-node.js';

export * from './index.js';
