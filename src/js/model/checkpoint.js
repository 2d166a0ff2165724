// A checkpoint's tensors as the family's tables name them: model.safetensors, or model.safetensors.index.json and
// its shards, opened by their headers alone (openSafetensors of attention-wasm/io). Every tensor the forward will
// read is found and its shape checked against config.json at load, before any weight is read, so that a missing
// tensor, a missing shard or a wrong shape fails then and nothing is half-loaded. Reads count their bytes.
import { AttentionError, formatShape } from '../errors.js';
import { quote } from '../io/bytes.js';
import { openSafetensorsReader } from '../io/safetensors.js';
import { checkFileName } from './file-names.js';
import { candidateNames, shapeSizes } from './families/index.js';
import { missingFile, readJson, readerOf } from './sources.js';

const SINGLE = 'model.safetensors';
const INDEX = 'model.safetensors.index.json';
// The float dtypes a forward reads, by their bytes per value.
const BYTES = { F32: 4, F16: 2, BF16: 2, F64: 8 };
const READABLE = Object.keys(BYTES);

/** model.safetensors.index.json's weight_map, checked: tensor name → shard file name. */
function parseIndex(text, file) {
  let json;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new AttentionError('BAD_FILE', `${file} is not JSON`, { cause });
  }
  const map = json?.weight_map;
  if (map === null || typeof map !== 'object' || Array.isArray(map)) {
    throw new AttentionError('BAD_FILE', `${file} has no weight_map object of tensor names to shard files`);
  }
  for (const [name, shard] of Object.entries(map)) {
    // A shard is a file of this folder: never a URL, a path or a name that a URL would read elsewhere.
    checkFileName(shard, `${file}: weight_map[${quote(name, 60)}]`);
    if (!shard.endsWith('.safetensors')) {
      throw new AttentionError('BAD_FILE', `${file}: weight_map[${quote(name, 60)}] is not a .safetensors file name`);
    }
  }
  return new Map(Object.entries(map));
}

/**
 * Opens the checkpoint of a folder (sources.js): every file's header, nothing else.
 * @returns {Promise<{ description: string, entry: (names: string[]) => object | undefined,
 *   read: (entry: object, rows?: [number, number]) => Promise<import('../tensor.js').Tensor>, bytesRead: number }>}
 */
export async function openCheckpoint(folder) {
  let shardOf; // tensor name → file, when sharded
  let files;
  if (folder.names.includes(SINGLE)) {
    files = [SINGLE];
  } else if (folder.names.includes(INDEX)) {
    shardOf = await readJson(folder, INDEX, parseIndex);
    files = [...new Set(shardOf.values())];
    for (const file of files) {
      folder.expect?.(file);
      if (!folder.names.includes(file)) {
        const tensor = [...shardOf].find(([, shard]) => shard === file)[0];
        throw missingFile(folder, file, `, which ${INDEX} names for tensor ${JSON.stringify(tensor)}`);
      }
    }
  } else {
    const other = folder.names.find((name) => /\.(bin|pt|pth|gguf|h5|msgpack)$/.test(name));
    throw missingFile(folder, `${SINGLE} (or ${INDEX})`, other ? ` (${other} is not read: safetensors only)` : '');
  }
  // The shards' headers are read together: from a web folder, their requests overlap.
  const headers = await Promise.all(
    files.map((file) =>
      folder
        .file(file)
        .then((source) => openSafetensorsReader(readerOf(source)))
        .catch((error) => {
          throw new AttentionError(error.code ?? 'BAD_FILE', `${file}: ${error.message}`, { cause: error });
        }),
    ),
  );
  const opened = new Map(
    headers.map((header, i) => [files[i], { header, byName: new Map(header.tensors.map((t) => [t.name, t])) }]),
  );
  const state = { bytesRead: 0 };
  const entryOf = (name) => {
    const file = shardOf ? shardOf.get(name) : SINGLE;
    const tensor = file && opened.get(file)?.byName.get(name);
    return tensor && { file, name, dtype: tensor.dtype, shape: tensor.shape };
  };
  return {
    description: shardOf ? `${INDEX} and its ${files.length} shards` : SINGLE,
    /** Writes a web folder's cache (what its reads fetched); nothing for other folders. */
    flush: () => folder.flush?.(),
    /** Closes the files a Node folder opened (dispose()); nothing for other folders. */
    close: () => folder.close?.(),
    /** The first of `names` the checkpoint holds, as { file, name, dtype, shape }, or undefined. */
    entry: (names) => names.map(entryOf).find(Boolean),
    names: () => [...opened.values()].flatMap(({ header }) => header.tensors.map((t) => t.name)),
    /** Rows [begin, end) of an entry (all of them when not given); a part's (rowsOf) count from its first. */
    async read(entry, rows, signal) {
      const at = entry.rows?.[0] ?? 0;
      const range = rows ? [rows[0] + at, rows[1] + at] : entry.rows;
      const tensor = await opened.get(entry.file).header.read(entry.name, { rows: range, signal });
      state.bytesRead += tensor.data.length * BYTES[entry.dtype];
      return tensor;
    },
    get bytesRead() {
      return state.bytesRead;
    },
  };
}

/** Bytes of a resolved entry's data, or of rows [begin, end) of it: what checkpoint.read of it counts. */
export const entryBytes = (entry, rows) =>
  (rows ? rows[1] - rows[0] : entry.shape[0]) * entry.shape.slice(1).reduce((a, b) => a * b, 1) * BYTES[entry.dtype];

/**
 * Finds each row of a family table (families/) in the checkpoint and checks its shape against the sizes of config.json (the spec).
 * @param {{ slot: string, name: string, shape: string[], when?: Function }[]} rows
 * @returns {{ slot: string, file: string, name: string, dtype: string, shape: number[] }[]}
 */
export function resolveRows(checkpoint, rows, spec, prefix) {
  const sizes = shapeSizes(spec);
  return rows
    .filter((row) => !row.when || row.when(spec))
    .map((row) => {
      const names = candidateNames(row, prefix);
      const entry = checkpoint.entry(names);
      if (!entry) {
        throw new AttentionError(
          'MISSING_TENSOR',
          `${checkpoint.description} holds no tensor ${names.map((n) => JSON.stringify(n)).join(' nor ')}, which a ${spec.family} model of this config.json needs`,
        );
      }
      // a part of a tensor's rows (rowsOf): the tensor holds the parts' rows, one after another
      const { of, index } = row.part ?? { of: [row.shape[0]], index: 0 };
      const letters = [of.join(' + '), ...row.shape.slice(1)];
      const expected = [of.reduce((sum, letter) => sum + sizes[letter], 0), ...row.shape.slice(1).map((l) => sizes[l])];
      if (expected.length !== entry.shape.length || expected.some((size, i) => size !== entry.shape[i])) {
        throw new AttentionError(
          'WEIGHT_SHAPE_MISMATCH',
          `${entry.file}: tensor ${JSON.stringify(entry.name)} has shape ${formatShape(entry.shape)}, but config.json gives [${letters.join(', ')}] = ${formatShape(expected)}`,
        );
      }
      if (entry.dtype !== undefined && !READABLE.includes(entry.dtype)) {
        throw new AttentionError(
          'BAD_FILE',
          `${entry.file}: tensor ${JSON.stringify(entry.name)} is ${entry.dtype}; attention-wasm/model reads ${READABLE.join(', ')}`,
        );
      }
      if (!row.part) return { slot: row.slot, ...entry };
      const first = of.slice(0, index).reduce((sum, letter) => sum + sizes[letter], 0);
      const rows = [first, first + sizes[of[index]]];
      return { slot: row.slot, ...entry, shape: [rows[1] - rows[0], ...entry.shape.slice(1)], rows };
    });
}

/** The base model's prefix: the first of the family's under which the checkpoint holds the tensor of row `probe`. */
export function findPrefix(checkpoint, prefixes, probe) {
  const prefix = prefixes.find((p) => checkpoint.entry(candidateNames(probe, p)));
  if (prefix === undefined) {
    const tried = prefixes.map((p) => JSON.stringify(`${p}${probe.name}`)).join(' nor ');
    const some = checkpoint
      .names()
      .slice(0, 6)
      .map((n) => JSON.stringify(n))
      .join(', ');
    throw new AttentionError(
      'MISSING_TENSOR',
      `${checkpoint.description} holds no tensor ${tried}: not this family's checkpoint? It holds ${some}${some ? ', …' : 'nothing'}`,
    );
  }
  return prefix;
}

/**
 * Every tensor a forward of this model reads, found and checked at load: { embeddings: { tokens, positions?,
 * types? }, embedNorm, layers (one list per layer), final, head, headBias }. BERT's masked-LM head is optional
 * (BertModel has none): without cls.predictions.bias, final is empty and head null (no logits).
 */
export function resolveModel(checkpoint, spec, family) {
  const prefix = findPrefix(checkpoint, family.prefixes, family.embeddings[0]);
  const resolve = (rows) => resolveRows(checkpoint, rows, spec, prefix);
  const embeddings = Object.fromEntries(resolve(family.embeddings).map((entry) => [entry.slot, entry]));
  const layers = Array.from({ length: spec.numLayers }, (_, l) => resolve(family.layer(l)));
  // head.weight (or what head.weight(spec) gives) and head.bias: a name, or names tried in turn (a tied tensor that
  // a file holds under either of its names)
  const names = (value) => [typeof value === 'function' ? value(spec) : value].flat();
  const [weightName, ...weightAliases] = names(family.head.weight);
  const [biasName, ...biasAliases] = names(family.head.bias);
  const bias = { slot: 'bHead', name: biasName, aliases: biasAliases, shape: ['V'] };
  const hasHead = !biasName || checkpoint.entry(candidateNames(bias, prefix));
  const [head, headBias] = hasHead
    ? resolve([
        { slot: 'wHead', name: weightName, aliases: weightAliases, shape: ['V', 'd'] },
        ...(biasName ? [bias] : []),
      ])
    : [null, null];
  return {
    embeddings,
    embedNorm: resolve(family.embedNorm),
    layers,
    final: hasHead || family.head.bias === null ? resolve(family.final) : [],
    head,
    headBias: headBias ?? null,
  };
}
