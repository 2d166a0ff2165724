// model.run's input and options, read and checked before anything is read from the checkpoint, and the pieces
// of its results: one head's steps cut out of its layer's, and the top-k of the last position.
import { AttentionError, describe } from '../errors.js';
import { readRecord } from '../read.js';
import { Tensor } from '../tensor.js';
import { readLogits } from './partial.js';
import { readSignal } from './signal.js';

const RUN_OPTIONS = [
  'attentions',
  'hiddenStates',
  'logits',
  'capture',
  'ablate',
  'edits',
  'topK',
  'tokenTypeIds',
  'signal',
  'layers',
  'from',
];
const bad = (message) => new AttentionError('BAD_OPTION', message);

/** A list of integers (an array or typed array), each checked by `check(value, i)`. */
function integers(value, name, check) {
  if (!Array.isArray(value) && !(ArrayBuffer.isView(value) && !(value instanceof DataView))) {
    throw bad(`${name} must be an array of integers, got ${describe(value)}`);
  }
  return Array.from(value, (x, i) => {
    if (!Number.isSafeInteger(x)) throw bad(`${name}[${i}] is ${describe(x)}, not an integer`);
    check(x, i);
    return x;
  });
}

/**
 * run's input: text (with the folder's tokenizer.json) or { ids } (token ids in [0, vocab)), at most as many as
 * the model has positions. @returns {{ ids: number[], rawTokens?: string[], tokens?: string[] }}
 */
export function readRunInput(input, config, tokenizer) {
  if (typeof input === 'string') {
    if (!tokenizer) throw bad('the model folder has no tokenizer.json: pass token ids, run({ ids: [...] })');
    const encoded = tokenizer.encode(input);
    return { ...encoded, ids: checkIds(encoded.ids, config, 'the tokenizer’s ids') };
  }
  const { ids } = readRecord(input, 'input', ['ids'], 'input');
  const list = checkIds(ids, config, 'ids');
  return tokenizer ? { ids: list, tokens: list.map(tokenizer.readable) } : { ids: list };
}

/** Token ids: integers in the vocabulary, at least one, at most the model's positions. */
function checkIds(ids, config, name) {
  const list = integers(ids, name, (id, i) => {
    if (id < 0 || id >= config.vocabSize) {
      throw bad(`${name}[${i}] is ${id}, outside the vocabulary [0, ${config.vocabSize})`);
    }
  });
  if (list.length === 0) throw bad(`${name} is empty: give at least one token`);
  if (list.length > config.maxPositions) {
    throw new AttentionError(
      'TOO_MANY_TOKENS',
      `${list.length} tokens, but this model has positions for ${config.maxPositions} (config.json's ${config.family === 'gpt2' ? 'n_positions' : 'max_position_embeddings'})`,
    );
  }
  return list;
}

/** run's options, checked against the model's sizes. */
export function readRunOptions(options, config) {
  const o = readRecord(options, 'options', RUN_OPTIONS, 'option');
  for (const flag of ['attentions', 'hiddenStates']) {
    if (o[flag] !== undefined && typeof o[flag] !== 'boolean')
      throw bad(`${flag} must be true or false, got ${describe(o[flag])}`);
  }
  const layerHead = (layer, head, where) => {
    if (!Number.isInteger(layer) || layer < 0 || layer >= config.numLayers) {
      throw bad(`${where}: layer ${describe(layer)} is not a layer of this model (0 to ${config.numLayers - 1})`);
    }
    if (!Number.isInteger(head) || head < 0 || head >= config.numHeads) {
      throw bad(`${where}: head ${describe(head)} is not a head of this model (0 to ${config.numHeads - 1})`);
    }
  };
  const capture = (o.capture ?? []).map((entry, i) => {
    const { layer, head } = readRecord(entry, `capture[${i}]`, ['layer', 'head'], 'key');
    layerHead(layer, head, `capture[${i}]`);
    return { layer, head };
  });
  const ablate = (o.ablate ?? []).map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2)
      throw bad(`ablate[${i}] must be [layer, head], got ${describe(pair)}`);
    layerHead(pair[0], pair[1], `ablate[${i}]`);
    return [pair[0], pair[1]];
  });
  const topK = o.topK ?? 5;
  if (!Number.isInteger(topK) || topK < 1) throw bad(`topK must be a positive integer, got ${describe(topK)}`);
  const tokenTypeIds =
    o.tokenTypeIds === undefined
      ? undefined
      : integers(o.tokenTypeIds, 'tokenTypeIds', (type, i) => {
          if (type < 0 || type >= Math.max(config.typeVocabSize, 1)) {
            throw bad(`tokenTypeIds[${i}] is ${type}, outside [0, ${config.typeVocabSize}) (type_vocab_size)`);
          }
        });
  // layers: run the first `layers` only (a view of layer 3 needs 3 layers' weights); fewer than all gives no logits.
  const layers = o.layers ?? config.numLayers;
  if (!Number.isInteger(layers) || layers < 1 || layers > config.numLayers) {
    throw bad(`layers must be a whole number from 1 to ${config.numLayers}, got ${describe(o.layers)}`);
  }
  for (const { layer } of [...capture, ...ablate.map(([l]) => ({ layer: l }))]) {
    if (layer >= layers) throw bad(`layer ${layer} is captured or ablated, but only ${layers} layer(s) run`);
  }
  return {
    layers,
    signal: readSignal(o.signal, 'run options'),
    attentions: o.attentions ?? true,
    hiddenStates: o.hiddenStates ?? true,
    logits: readLogits(o.logits), // true, false, 'last' or rows (partial.js)
    capture,
    ablate,
    topK: Math.min(topK, config.vocabSize),
    tokenTypeIds,
    edits: o.edits, // read by edits.js, which needs n
    from: o.from, // read by partial.js, which needs n
  };
}

/** Block `index` of a [blocks, …] tensor, as a Tensor of `shape`. */
const block = (tensor, index, shape) => {
  const size = shape.reduce((a, b) => a * b, 1);
  return new Tensor(tensor.data.slice(index * size, (index + 1) * size), shape);
};

/**
 * One head's steps and its layer's, named as selfAttention names them where they mean the same.
 *
 * | key                                         | shape          | what                                      |
 * |---------------------------------------------|----------------|-------------------------------------------|
 * | input                                       | [n, d]         | the layer's input (hiddenStates[layer])   |
 * | x                                           | [n, d]         | attention's input (after the norm)        |
 * | q, qRotated                                 | [n, d_k]       | this head's query (after RoPE)            |
 * | k, kRotated, v                              | [n, d_k]       | its key-value head's (GQA: shared)        |
 * | rawScores, scaledScores, scores, weights    | [n, n]         | as selfAttention's                        |
 * | headOutput                                  | [n, d_k]       | the head's output (0 when ablated)        |
 * | concat                                      | [n, H·d_k]     | every head's output side by side          |
 * | output                                      | [n, d]         | concat·W_o + b_o                          |
 * | residual, mlpInput, mlpHidden, mlpOutput    | [n, d] …       | x + output, the MLP's input, its activation [n, d_ff], its output |
 * | hidden                                      | [n, d]         | the layer's output                        |
 */
export function sliceCapture(result, layer, head, config) {
  const [, n] = result.weights.shape;
  const dK = config.headDim;
  const kv = Math.floor(head / (config.numHeads / config.numKvHeads));
  const steps = { layer, head, input: result.input, x: result.normed };
  steps.q = block(result.q, head, [n, dK]);
  if (result.qRotated) steps.qRotated = block(result.qRotated, head, [n, dK]);
  steps.k = block(result.k, kv, [n, dK]);
  if (result.kRotated) steps.kRotated = block(result.kRotated, kv, [n, dK]);
  steps.v = block(result.v, kv, [n, dK]);
  for (const key of ['rawScores', 'scaledScores', 'scores', 'weights']) steps[key] = block(result[key], head, [n, n]);
  steps.headOutput = block(result.heads, head, [n, dK]);
  Object.assign(steps, {
    concat: result.concat,
    output: result.attentionOutput,
    residual: result.residual,
    mlpInput: result.mlpInput,
    mlpHidden: result.mlpHidden,
    mlpOutput: result.mlpOutput,
    hidden: result.output,
  });
  return steps;
}

/** The k most probable next tokens after the last position: [{ id, p, logit, token? }], p from a float64 softmax. */
export function topK(logits, k, tokenizer) {
  const [n, V] = logits.shape;
  const row = logits.data.subarray((n - 1) * V, n * V);
  // One indexed pass for the maximum and the k best (the k-th best's logit as the bar), one for the softmax's sum: a
  // run calls this once, so it runs mostly unoptimised, where for...of over 50 257 logits three times took 5–10 ms.
  let max = -Infinity;
  const best = [];
  let bar = -Infinity;
  for (let id = 0; id < V; id++) {
    const logit = row[id];
    if (logit > max) max = logit;
    if (best.length < k || logit > bar) {
      best.push({ id, logit });
      best.sort((a, b) => b.logit - a.logit || a.id - b.id);
      if (best.length > k) best.pop();
      bar = best.length < k ? -Infinity : best[best.length - 1].logit;
    }
  }
  let sum = 0;
  for (let id = 0; id < V; id++) sum += Math.exp(row[id] - max);
  const token = (id) => (tokenizer ? { token: tokenizer.readable(id) } : {});
  return best.map(({ id, logit }) => ({ id, p: Math.exp(logit - max) / sum, logit, ...token(id) }));
}
