// The bytes a run will read from the checkpoint, known before it starts (the `total` of its progress events): the
// embedding rows of its distinct tokens, the position rows of its positions and the token-type rows of its types,
// every layer's weights, the final norm and, when logits are asked for, the LM head.
import { entryBytes } from './checkpoint.js';
import { residentRunBytes } from './resident.js';

const whole = (entries) => entries.reduce((sum, entry) => sum + entryBytes(entry), 0);

/**
 * @param {{ embeddings: object, embedNorm: object[], layers: object[][], final: object[], head: object | null,
 *   headBias: object | null }} tensors  the resolved tensors (checkpoint.js's resolveModel)
 * @param {number[]} ids
 * @param {{ logits: boolean, tokenTypeIds?: number[], layers?: number, first?: number }} options  run's options, read
 *   (`layers`: the first layers run; fewer than all read no final norm and no LM head; `first`: the layer a run
 *   `from` a hidden state starts at, which reads no embeddings and no earlier layer; `sharded`: the layers and the LM head
 *   run on the model's workers, which keep their weights: none of them is read)
 * @param {object | null} store  the model's resident weights (resident.js), when it keeps them: then what is not
 *   kept yet is counted, whole
 */
export function runBytes(
  tensors,
  ids,
  { logits, tokenTypeIds, layers = tensors.layers.length, first = 0, sharded = false },
  store = null,
) {
  const all = layers === tensors.layers.length;
  const { tokens, positions, types } = tensors.embeddings;
  const counts = {
    tokens: new Set(ids).size,
    positions: ids.length,
    types: new Set(ids.map((_, i) => tokenTypeIds?.[i] ?? 0)).size,
  };
  const rows = (entry) => (entry && !first ? entryBytes(entry, [0, counts[entry.slot]]) : 0);
  if (store) {
    const bytes = (entry, wholeEntry) => (wholeEntry ? entryBytes(entry) : rows(entry));
    return residentRunBytes(store, tensors, { logits, layers, first, sharded }, bytes);
  }
  return (
    rows(tokens) +
    rows(positions) +
    rows(types) +
    (first ? 0 : whole(tensors.embedNorm)) +
    (sharded ? [] : tensors.layers.slice(first, layers)).reduce((sum, layer) => sum + whole(layer), 0) +
    (all ? whole(tensors.final) : 0) +
    (all && logits && tensors.head && !sharded
      ? whole([tensors.head, ...(tensors.headBias ? [tensors.headBias] : [])])
      : 0)
  );
}
