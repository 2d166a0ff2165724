// The bytes a run will read from the checkpoint, known before it starts (the `total` of its progress events): the
// embedding rows of its distinct tokens, the position rows of its positions and the token-type rows of its types,
// every layer's weights, the final norm and, when logits are asked for, the LM head.
import { entryBytes } from './checkpoint.js';

const whole = (entries) => entries.reduce((sum, entry) => sum + entryBytes(entry), 0);

/**
 * @param {{ embeddings: object, embedNorm: object[], layers: object[][], final: object[], head: object | null,
 *   headBias: object | null }} tensors  the resolved tensors (checkpoint.js's resolveModel)
 * @param {number[]} ids
 * @param {{ logits: boolean, tokenTypeIds?: number[] }} options  run's options, read
 */
export function runBytes(tensors, ids, { logits, tokenTypeIds }) {
  const { tokens, positions, types } = tensors.embeddings;
  const rows = (entry, count) => (entry ? entryBytes(entry, [0, count]) : 0);
  const typeCount = new Set(ids.map((_, i) => tokenTypeIds?.[i] ?? 0)).size;
  return (
    rows(tokens, new Set(ids).size) +
    rows(positions, ids.length) +
    rows(types, typeCount) +
    whole(tensors.embedNorm) +
    tensors.layers.reduce((sum, layer) => sum + whole(layer), 0) +
    whole(tensors.final) +
    (logits && tensors.head ? whole([tensors.head, ...(tensors.headBias ? [tensors.headBias] : [])]) : 0)
  );
}
