// The worker of seedAhead.js: makes a state's generated matrices with the page's own generatedMatrix (the same code
// and the same V8 Math as the page, so the same numbers bit for bit), and sends them as flat float64 and float32
// arrays (transferred, not copied: a nested array of 590 000 numbers would take the page ~50 ms to read).
import { generatedMatrix, generationKey } from './model/matrices.js';
import { flatten } from './model/reuse.js';

globalThis.onmessage = ({ data: { id, state, names } }) => {
  const matrices = [];
  const transfer = [];
  for (const name of names) {
    const rows = generatedMatrix(state, name);
    const flat = flatten(rows);
    const single = Float32Array.from(flat);
    matrices.push({ name, key: generationKey(state, name), rows: rows.length, flat, single });
    transfer.push(flat.buffer, single.buffer);
  }
  globalThis.postMessage({ id, matrices }, transfer);
};
