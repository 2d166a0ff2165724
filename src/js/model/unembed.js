// model.unembed(hidden, { norm }): the logit lens (nostalgebraist's; TransformerLens's unembed after ln_final) — rows
// of the residual stream through the final norm (GPT-2's ln_f, LLaMA's norm) and the LM head, as the forward applies
// them to its last hidden state. BERT: its masked-LM head (transform: dense, activation, LayerNorm; then the decoder),
// where `norm` does not apply.
import { AttentionError, describe, formatShape } from '../errors.js';
import { readFloatTensor } from '../convert.js';
import { MAX_CALL_BYTES } from '../plan.js';
import { readRecord } from '../read.js';
import { Tensor } from '../tensor.js';
import { checkAborted, readSignal } from './signal.js';
import { checkHead } from './call-sizes.js';

/**
 * model.unembed(hidden, { norm?, signal? }).
 *
 * | argument, result | shape                                                 |
 * |------------------|-------------------------------------------------------|
 * | hidden           | [n, d_model]: e.g. hiddenStates[l] of a run            |
 * | result           | Tensor [n, vocab]: the logits those rows would give    |
 * @param {object} engine  the model's parts (model.js)
 * @param {unknown} hidden  [n, d_model]: a Tensor, { data, shape } or nested arrays
 * @param {{ norm?: boolean, signal?: AbortSignal }} [options]
 * @returns {Promise<Tensor>} logits [n, vocab]
 */
export async function unembed(engine, hidden, options) {
  const { spec, tensors } = engine;
  const o = readRecord(options, 'unembed options', ['norm', 'signal'], 'option');
  if (o.norm !== undefined && typeof o.norm !== 'boolean') {
    throw new AttentionError('BAD_OPTION', `unembed: norm must be true or false, got ${describe(o.norm)}`);
  }
  const signal = readSignal(o.signal, 'unembed options');
  if (!tensors.head) throw new AttentionError('UNSUPPORTED_MODEL', 'unembed: this model has no LM head');
  const x = readFloatTensor(hidden, {
    name: 'hidden',
    ranks: [2],
    layout: '[n, d_model]',
    mask: false,
    shapeName: 'hidden.shape',
    dataName: 'hidden.data',
  });
  const [n, d] = x.shape;
  if (d !== spec.dModel) {
    throw new AttentionError(
      'SHAPE_MISMATCH',
      `hidden has shape ${formatShape(x.shape)}, but the residual stream is [n, d_model] with d_model = ${spec.dModel}`,
    );
  }
  if (n * spec.vocabSize * 4 > MAX_CALL_BYTES) {
    throw new AttentionError(
      'TOO_LARGE',
      `unembed of ${n} rows gives [${n}, ${spec.vocabSize}] logits, over MAX_CALL_BYTES: pass fewer rows at a time`,
    );
  }
  const data = Float32Array.from(x.data);
  const at = data.findIndex((v) => !Number.isFinite(v));
  if (at >= 0) {
    throw new AttentionError(
      'NON_FINITE',
      `hidden[${Math.floor(at / d)}][${at % d}] is ${x.data[at]}, not a finite float32`,
    );
  }
  const norm = o.norm !== false || spec.choices.maskedLm;
  checkHead(engine, n, { norm }); // TOO_LARGE before anything is read (call-sizes.js)
  const ctx = { signal: engine.signal(signal), sharded: Boolean(engine.shards) }; // the LM head on the workers' rows
  checkAborted(ctx.signal, 'unembed');
  const rows = new Tensor(data, [n, d]);
  const normed = norm ? await engine.final(rows, ctx) : rows;
  const logits = await engine.logits(normed, ctx);
  engine.flush();
  return logits;
}
