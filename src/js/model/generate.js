// model.generate(): text (or ids) in, one step per new token out, with the KV cache in WebAssembly memory
// (decode.js). The prompt is run once (the prefill), then each step runs one token through every layer. Its options
// are read and checked when generate() is called, before anything is read or allocated.
import { AttentionError, describe } from '../errors.js';
import { readRecord } from '../read.js';
import { DecodeSession } from './decode.js';
import { topK as topList } from './results.js';
import { readAblate } from './ablation.js';
import { readRunInput } from './run-plan.js';
import { mulberry32, probabilityOf, sample } from './sampling.js';
import { checkAborted } from './signal.js';
import { checkPrefill } from './call-sizes.js';
import { ropeStartsOver } from './rope-tables.js';

const GENERATE_OPTIONS = [
  'maxNewTokens',
  'temperature',
  'topK',
  'topP',
  'seed',
  'stop',
  'signal',
  'attentions',
  'next',
  'residentBytes',
  'ablate',
];

/** The default budget of weights kept in WebAssembly memory during a generation (decode.js). */
export const RESIDENT_BYTES = 2 ** 30;

const bad = (name, value, rule) => new AttentionError('BAD_OPTION', `${name} must be ${rule}, got ${describe(value)}`);

/** An integer option in [min, max], or its default. */
function integer(o, name, fallback, min, max = Number.MAX_SAFE_INTEGER) {
  const value = o[name] ?? fallback;
  if (value === null || !Number.isSafeInteger(value) || value < min || value > max) {
    throw bad(name, value, `an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}`);
  }
  return value;
}

/** A number option in a range (`test`), or its default. */
function number(o, name, fallback, test, rule) {
  const value = o[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || !test(value)) throw bad(name, value, rule);
  return value;
}

/**
 * generate's `ablate`: heads switched off at every step, as run's entries (ablation.js), 'zero' only: a 'mean' or
 * 'resample' ablation replaces a head's output at every position of a whole run, which a step of one token is not.
 */
function readZeroAblate(value, spec) {
  const ablate = readAblate(value, spec, 0, () => ({ ids: [] })); // a reference is never run here (below)
  const other = ablate.findIndex((a) => a.mode !== 'zero');
  if (other >= 0) {
    throw bad(
      `ablate[${other}]`,
      ablate[other].mode,
      "[layer, head] or mode 'zero': generate() switches heads off; 'mean' and 'resample' ablations are run()'s",
    );
  }
  return ablate;
}

/** generate()'s options, checked against the model's sizes. */
export function readGenerateOptions(options, spec) {
  const o = readRecord(options, 'options', GENERATE_OPTIONS, 'option');
  const stop = o.stop ?? [];
  if (!Array.isArray(stop)) throw bad('stop', stop, 'an array of token ids');
  stop.forEach((id, i) => {
    if (!Number.isSafeInteger(id) || id < 0 || id >= spec.vocabSize)
      throw bad(`stop[${i}]`, id, `a token id in [0, ${spec.vocabSize})`);
  });
  const signal = o.signal;
  if (signal !== undefined && !(typeof AbortSignal === 'function' && signal instanceof AbortSignal))
    throw bad('signal', signal, 'an AbortSignal');
  if (o.attentions !== undefined && typeof o.attentions !== 'boolean')
    throw bad('attentions', o.attentions, 'true or false');
  return {
    maxNewTokens: integer(o, 'maxNewTokens', 16, 1),
    temperature: number(o, 'temperature', 0, (t) => t >= 0, 'a number ≥ 0 (0: greedy)'),
    topK: o.topK === undefined ? null : integer(o, 'topK', null, 1),
    topP: number(o, 'topP', 1, (p) => p > 0 && p <= 1, 'a number in (0, 1]'),
    seed: integer(o, 'seed', 0, 0, 2 ** 32 - 1),
    stop: new Set(stop),
    signal,
    attentions: o.attentions ?? true,
    next: Math.min(integer(o, 'next', 5, 1), spec.vocabSize),
    residentBytes: number(o, 'residentBytes', RESIDENT_BYTES, (b) => b >= 0, 'a number of bytes ≥ 0'),
    ablate: readZeroAblate(o.ablate, spec), // heads switched off at every step, as run's
  };
}

/**
 * Checks the input and options, then returns the steps' iterator (nothing runs before its first next()).
 * @param {object} engine  the model's parts (model.js)
 */
export function generate(engine, input, options) {
  const spec = engine.spec;
  if (!spec.choices.causal || !engine.tensors.head) {
    throw new AttentionError(
      'UNSUPPORTED_MODEL',
      `generate() runs decoder models with an LM head (GPT-2, the LLaMA family); this is a ${spec.family} model: use run() and read its logits (a [MASK]'s row for BERT)`,
    );
  }
  const { ids, tokens } = readRunInput(input, spec, engine.tokenizer);
  const o = readGenerateOptions(options, spec);
  if (ids.length >= spec.maxPositions) {
    throw new AttentionError(
      'TOO_MANY_TOKENS',
      `the prompt's ${ids.length} tokens fill the model's ${spec.maxPositions} positions: no room to generate a token`,
    );
  }
  const capacity = Math.min(spec.maxPositions, ids.length + o.maxNewTokens);
  checkPrefill(engine, ids, capacity, o); // TOO_LARGE before anything is read (call-sizes.js)
  return steps(engine, { ids, tokens }, o);
}

/** The steps: a prefill, then one token per step, the cache and resident weights freed however it ends. */
async function* steps(engine, prompt, o) {
  const spec = engine.spec;
  const ids = prompt.ids.slice();
  const tokens = prompt.tokens && prompt.tokens.slice();
  const capacity = Math.min(spec.maxPositions, ids.length + o.maxNewTokens);
  const random = mulberry32(o.seed);
  engine.checkOpen();
  // on the model's workers when it has them (loadModel's workers)
  const session = new DecodeSession(engine, capacity, o.residentBytes, Boolean(engine.shards));
  const forget = engine.hold(session);
  const signal = engine.signal(o.signal); // its own, or the model's dispose(): passed to every read
  const check = () => {
    if (session.freed) throw new AttentionError('TERMINATED', 'the model was disposed during generate()');
    checkAborted(signal, 'generate()');
  };
  const forward = (tokens) => session.forward(tokens, { attentions: o.attentions, ablate: o.ablate, check, signal });
  try {
    check();
    let { logits, attentions } = await forward(ids);
    for (let step = 0; step < o.maxNewTokens; step++) {
      const row = logits.data;
      const id = sample(row, o, random);
      ids.push(id);
      const token = engine.tokenizer?.readable(id);
      if (tokens) tokens.push(token);
      const finish = o.stop.has(id)
        ? 'stop'
        : step === o.maxNewTokens - 1
          ? 'maxNewTokens'
          : ids.length >= spec.maxPositions
            ? 'positions'
            : null;
      yield {
        step,
        id,
        ...(token === undefined ? {} : { token }),
        p: probabilityOf(row, id),
        logit: row[id],
        next: topList(logits, o.next, engine.tokenizer),
        ...(o.attentions ? { attentions } : {}),
        ids: ids.slice(),
        ...(tokens ? { tokens: tokens.slice() } : {}),
        finish,
      };
      if (finish) return;
      check();
      // LongRoPE past original_max_position_embeddings: the cache's keys were rotated with the short factors, and the
      // whole sequence now takes the long ones (rope-tables.js): it runs again from the first token
      const over = ropeStartsOver(spec.rope, session.past, ids.length);
      if (over) session.past = 0;
      ({ logits, attentions } = await forward(over ? ids : [id]));
    }
  } catch (error) {
    throw session.freed ? engine.failure(error) : error; // freed before the end: by dispose()
  } finally {
    session.free();
    forget();
    engine.flush(); // what its reads fetched is written to a web source's cache, as after a run
  }
}
