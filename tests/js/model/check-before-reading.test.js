// Issue 34 §4: what a call cannot do is known before anything is read. A 16 384-token prompt on a large model (a
// LLaMA-7B-wide checkpoint of two layers, 1.3 GB of BF16 made of one zero Blob repeated, so nothing is allocated) is
// TOO_LARGE from run, generate, attribute, headScores, patchSweep and unembed, with not a byte of a tensor read (the
// test's own Blobs count the bytes), and so is a resident model's run, whose prefetch would read every weight. And a
// NaN or ±Infinity in any weight a call uses is NON_FINITE naming the tensor and the index, resident or not.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { CountingBlob, editSafetensors, gpt2Fixture, llamaFixture } from './fixtures.js';

const MiB = 2 ** 20;
const ZERO = new Blob([new Uint8Array(MiB)]);

/** A LLaMA config.json of these sizes (llamaFixture's fields). */
function config({ d, heads, layers, ff, vocab, positions }) {
  return {
    ...llamaFixture().config,
    hidden_size: d,
    num_attention_heads: heads,
    num_key_value_heads: heads,
    num_hidden_layers: layers,
    intermediate_size: ff,
    vocab_size: vocab,
    max_position_embeddings: positions,
  };
}

/**
 * The folder of a LLaMA checkpoint of these sizes, every value 0 (BF16), as Files: model.safetensors a CountingBlob
 * of its header and a Blob of zeros repeated (nothing of its size is allocated). @returns {{ files: File[], counter }}
 */
function zeroCheckpoint(sizes) {
  const { d, layers, ff, vocab } = sizes;
  const tensors = [['model.embed_tokens.weight', [vocab, d]]];
  for (let l = 0; l < layers; l++) {
    const at = `model.layers.${l}.`;
    tensors.push([`${at}input_layernorm.weight`, [d]]);
    for (const part of ['q', 'k', 'v', 'o']) tensors.push([`${at}self_attn.${part}_proj.weight`, [d, d]]);
    tensors.push([`${at}post_attention_layernorm.weight`, [d]]);
    tensors.push([`${at}mlp.gate_proj.weight`, [ff, d]], [`${at}mlp.up_proj.weight`, [ff, d]]);
    tensors.push([`${at}mlp.down_proj.weight`, [d, ff]]);
  }
  tensors.push(['model.norm.weight', [d]], ['lm_head.weight', [vocab, d]]);
  const header = {};
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 2);
    header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8);
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(json.length), true);
  const zeros = Array(Math.floor(offset / MiB)).fill(ZERO);
  zeros.push(new Uint8Array(offset % MiB));
  const counter = { bytes: 0 };
  const weights = new CountingBlob([length, json, ...zeros], counter);
  const files = [
    new File([JSON.stringify(config(sizes))], 'config.json'),
    Object.assign(weights, { name: 'model.safetensors' }),
  ];
  return { files, counter };
}

/** Expects `call()` to reject with TOO_LARGE (its message matching `message`) having read no byte of the files. */
async function expectTooLarge(counter, call, message = /over the limit/) {
  const before = counter.bytes;
  const error = await Promise.resolve()
    .then(call)
    .then(
      () => null,
      (e) => e,
    );
  expect(error, 'expected TOO_LARGE').not.toBeNull();
  expect({ code: error.code, message: error.message }).toMatchObject({ code: 'TOO_LARGE' });
  expect(counter.bytes - before, `bytes read before TOO_LARGE (${error.message})`).toBe(0);
  expect(error.message).toMatch(message);
}

const ids = (n, id = 1) => Array(n).fill(id);

describe.skipIf(typeof window !== 'undefined')('TOO_LARGE before any read (issue 34 §4)', () => {
  it('a 16 384-token prompt on a LLaMA-7B-wide model reads nothing, from run and every instrument', async () => {
    const sizes = { d: 4096, heads: 32, layers: 2, ff: 11008, vocab: 32000, positions: 32768 };
    const { files, counter } = zeroCheckpoint(sizes);
    const model = await loadModel(files);
    expect(model.resident).toBe(false);
    const n = 16384;
    const prompt = { ids: ids(n) };
    await expectTooLarge(
      counter,
      () => model.run(prompt),
      /a run of 16384 tokens: layer 0: .*the attention weights alone/,
    );
    await expectTooLarge(counter, () => model.run(prompt, { attentions: false, logits: 'last' }), /layer 0/);
    await expectTooLarge(counter, () => model.attribute(prompt, { target: [1, 2] }));
    await expectTooLarge(counter, () => model.headScores('induction', { ids: ids(n) }));
    const sweep = { clean: prompt, corrupted: { ids: ids(n, 2) }, target: [1, 2], step: 'input' };
    await expectTooLarge(counter, () => model.patchSweep(sweep));
    await expectTooLarge(counter, () => model.patchSweep({ ...sweep, step: 'headOutput' }));
    await expectTooLarge(counter, () => model.generate(prompt, { maxNewTokens: 1 }).next(), /generate\(\)'s prompt/);
    const rows = { data: new Float32Array(n * sizes.d), shape: [n, sizes.d] };
    await expectTooLarge(counter, () => model.unembed(rows), /unembed/);
    await model.dispose();
  }, 60_000);

  it('a resident model: its run prefetches nothing when the run is TOO_LARGE, and a run that fits still works', async () => {
    const sizes = { d: 256, heads: 4, layers: 2, ff: 512, vocab: 64, positions: 32768 };
    const { files, counter } = zeroCheckpoint(sizes);
    const model = await loadModel(files);
    expect(model.resident).toBe(true);
    const n = 16384; // attentions [4, n, n]: 4 GiB
    await expectTooLarge(
      counter,
      () => model.run({ ids: ids(n) }),
      /the attention weights alone are \[4, 16384, 16384\]/,
    );
    await expectTooLarge(counter, () => model.headScores('previousToken', { ids: ids(n) }), /headScores/);
    const before = counter.bytes;
    await new Promise((resolve) => setTimeout(resolve, 50)); // a prefetch started would have read by now
    expect(counter.bytes).toBe(before);
    const result = await model.run({ ids: [1, 2, 3] });
    expect(result.logits.shape).toEqual([3, 64]);
    expect(counter.bytes).toBeGreaterThan(before);
    await model.dispose();
  }, 60_000);
});

/** The fixture's folder with `value` at index `index` of tensor `name` (F32). */
function poisoned(fixture, name, index, value) {
  const edit = (tensors) =>
    tensors.map((t) => {
      if (t.name !== name) return t;
      const bytes = t.bytes.slice();
      new DataView(bytes.buffer).setFloat32(4 * index, value, true);
      return { ...t, bytes };
    });
  return { ...fixture.files, 'model.safetensors': editSafetensors(fixture.files['model.safetensors'], edit) };
}

describe('NaN and ±Infinity in a weight: NON_FINITE naming the tensor and the index, resident or not', () => {
  const gpt2 = gpt2Fixture();
  const llama = llamaFixture();
  const d = llama.config.hidden_size;
  const cases = [
    // the token embeddings' rows (read by rows, not as a call's input): were PROJECTION_OVERFLOW when read
    ['run', gpt2, 'wte.weight', (m) => m.run({ ids: [0, 1, 2] })],
    ['generate', llama, 'model.embed_tokens.weight', (m) => m.generate({ ids: [0, 1] }, { maxNewTokens: 1 }).next()],
    // the LM head's rows of the target that a sweep's metric reads: were NaN scores, quietly, when read
    [
      'patchSweep',
      llama,
      'lm_head.weight',
      (m) => m.patchSweep({ clean: { ids: [0, 1, 2] }, corrupted: { ids: [1, 1, 2] }, target: [0, 1], step: 'input' }),
    ],
    ['attribute', llama, 'lm_head.weight', (m) => m.attribute({ ids: [0, 1, 2] }, { target: [0, 1] })],
    // the last layer's MLP weights, read (or kept) by headScores, whose cells do not run that MLP: were unchecked when read
    ['headScores', llama, 'model.layers.1.mlp.up_proj.weight', (m) => m.headScores('induction', { ids: [0, 1, 0, 1] })],
  ];
  for (const [what, fixture, name, call] of cases) {
    for (const value of [NaN, Infinity, -Infinity]) {
      it(`${what}: ${value} in ${name}`, async () => {
        const index = name.includes('mlp') ? d + 3 : 1; // [1][3] of a matrix [rows, d]; [0][1] of the others
        const files = poisoned(fixture, name, index, value);
        const path = name.replaceAll('.', '\\.');
        for (const residentBytes of [0, undefined]) {
          const model = await loadModel(files, { residentBytes });
          expect(model.resident).toBe(residentBytes === undefined);
          const error = await Promise.resolve()
            .then(() => call(model))
            .then(
              () => null,
              (e) => e,
            );
          expect(error?.code, `${error?.message} (resident: ${model.resident})`).toBe('NON_FINITE');
          const [row, col] = [Math.floor(index / d), index % d];
          const at = name.includes('mlp') ? `\\[${row}\\]\\[${col}\\]` : '\\[0\\]\\[1\\]';
          expect(error.message).toMatch(new RegExp(`^${path}\\.data\\[${index}\\] \\(${path}${at}\\) is `));
          await model.dispose();
        }
      });
    }
  }
});
