// attention-wasm/model's Node entry (the `node` export condition): Node's file reading for the module
// (platform-node.js), its workers (model/platform-node.js) and folder paths as sources (sources-node.js), then the
// browser entry's API.
import '../platform-node.js';
import './platform-node.js';
import './sources-node.js';

export * from './index.js';
