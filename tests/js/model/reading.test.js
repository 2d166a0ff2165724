// What attention-wasm/model reads, measured by the test's own Blobs (fixtures.js's CountingBlob): loading reads each
// safetensors file's header and nothing else; a run reads the embedding rows of the tokens used, the position rows
// of their positions, each layer's weights and the head, never a causal-mask buffer, an unused row or a pooler.
// Progress events along the way; and in Node, a folder path.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { expectClose } from '../reference.js';
import { CountingBlob, bertFixture, gpt2Fixture } from './fixtures.js';
import { VALUES, referenceForward } from './reference.js';

const isNode = typeof window === 'undefined';

/** The fixture's folder as Files, its safetensors files as CountingBlobs adding to `counter.bytes`. */
function counted(files, counter) {
  return Object.entries(files).map(([name, content]) =>
    name.endsWith('.safetensors')
      ? Object.assign(new CountingBlob([content], counter), { name })
      : new File([content], name),
  );
}

/** Bytes of a safetensors file's length field and JSON header. */
const headerBytes = (file) => 8 + Number(new DataView(file.buffer, file.byteOffset).getBigUint64(0, true));

const bytesOf = (fixture, name, rows) => {
  const { data, shape } = fixture.values[name];
  const perRow = data.length / shape[0];
  return (rows ?? shape[0]) * perRow * (fixture.dtype === 'BF16' ? 2 : 4);
};

describe('reading only what a forward needs', () => {
  it('a sharded GPT-2: headers at load; then token rows, position rows, layer weights and the head', async () => {
    const fixture = { ...gpt2Fixture({ shards: 3, layers: 3, positions: 16 }), dtype: 'F32' };
    const counter = { bytes: 0 };
    const model = await loadModel(counted(fixture.files, counter), { residentBytes: 0 }); // read at every run
    const shards = Object.keys(fixture.files).filter((name) => name.endsWith('.safetensors'));
    expect(shards).toHaveLength(3);
    expect(counter.bytes).toBe(shards.reduce((sum, name) => sum + headerBytes(fixture.files[name]), 0));

    counter.bytes = 0;
    const ids = [7, 3, 7, 1, 3];
    const r = await model.run({ ids });
    const layerTensors = Object.keys(fixture.values).filter(
      (name) => /^h\.\d+\./.test(name) && !/^h\.\d+\.attn\.bias$/.test(name), // not the mask buffers
    );
    const expected =
      bytesOf(fixture, 'wte.weight', 3) + // rows of the 3 distinct ids
      bytesOf(fixture, 'wpe.weight', ids.length) +
      layerTensors.reduce((sum, name) => sum + bytesOf(fixture, name), 0) +
      bytesOf(fixture, 'ln_f.weight') +
      bytesOf(fixture, 'ln_f.bias') +
      bytesOf(fixture, 'wte.weight'); // the tied LM head, whole
    expect(counter.bytes).toBe(expected);
    expect(model.bytesRead).toBe(expected); // the package's own count agrees
    const everything = shards.reduce((sum, name) => sum + fixture.files[name].length, 0);
    expect(counter.bytes).toBeLessThan(everything - 3 * 16 * 16 * 4); // the three [1, 1, 16, 16] mask buffers unread
    expectClose(r.logits.data, referenceForward(fixture, ids).logits, { ...VALUES, what: 'logits' });
  });

  it('BERT in BF16: no pooler, no next-sentence head, one token-type row', async () => {
    const fixture = { ...bertFixture({ dtype: 'BF16' }), dtype: 'BF16' };
    const counter = { bytes: 0 };
    const model = await loadModel(counted(fixture.files, counter), { residentBytes: 0 }); // read at every run
    counter.bytes = 0;
    const ids = [4, 5, 6];
    await model.run({ ids });
    const unread = [
      'bert.pooler.dense.weight',
      'bert.pooler.dense.bias',
      'cls.seq_relationship.weight',
      'cls.seq_relationship.bias',
    ];
    const all = Object.keys(fixture.values).reduce((sum, name) => sum + bytesOf(fixture, name), 0);
    const expected =
      all -
      unread.reduce((sum, name) => sum + bytesOf(fixture, name), 0) -
      bytesOf(fixture, 'bert.embeddings.position_embeddings.weight', 12 - 3) - // 3 of 12 positions read
      bytesOf(fixture, 'bert.embeddings.token_type_embeddings.weight', 1) + // 1 of 2 types
      bytesOf(fixture, 'bert.embeddings.word_embeddings.weight', 3); // 3 rows for the tokens, then whole for the head
    expect(counter.bytes).toBe(expected);
  });

  it('onProgress: the embeddings, each layer, the final norm, the head, done; bytes read growing', async () => {
    const events = [];
    const model = await loadModel(gpt2Fixture().files, { onProgress: (event) => events.push(event) });
    await model.run({ ids: [1, 2] });
    expect(events.map((e) => `${e.phase}${e.layer ?? ''}`)).toEqual([
      'embeddings',
      'layer0',
      'layer1',
      'final',
      'head',
      'done',
    ]);
    const loaded = events.map((e) => e.loaded);
    expect(loaded).toEqual([...loaded].sort((a, b) => a - b));
    expect(loaded.at(-1)).toBe(model.bytesRead);
  });
});

describe.runIf(isNode)('a folder path (Node)', () => {
  /** Writes the fixture's files into a new folder, runs body(folder, join, loadModel of the Node entry), removes it. */
  async function inFolder(fixture, body) {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { loadModel: loadFromNode } = await import('../../../src/js/model/index.node.js');
    const folder = await mkdtemp(join(tmpdir(), 'attention-wasm-model-'));
    try {
      for (const [name, content] of Object.entries(fixture.files)) await writeFile(join(folder, name), content);
      await body(folder, join, loadFromNode);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }

  it('reads the folder’s files by path, as the files themselves', async () => {
    const fixture = gpt2Fixture({ shards: 2 });
    await inFolder(fixture, async (folder, join, loadFromNode) => {
      const model = await loadFromNode(folder);
      const ids = [2, 9, 4];
      const r = await model.run({ ids });
      expectClose(r.logits.data, referenceForward(fixture, ids).logits, { ...VALUES, what: 'logits' });
      const { pathToFileURL } = await import('node:url');
      const fromFileUrl = await (await loadFromNode(pathToFileURL(folder))).run({ ids });
      expect(fromFileUrl.logits.data).toEqual(r.logits.data); // a file: URL is the folder path
      const missing = await loadFromNode(join(folder, 'nope')).catch((error) => error);
      expect(missing.code).toBe('MISSING_FILE');
      expect(missing.message).toMatch(/the model folder .*nope cannot be read/);
    });
  });

  it('a checkpoint cut short on disk after loading: BAD_FILE from the run, and after a repair too; a new load works', async () => {
    const { writeFile, truncate } = await import('node:fs/promises');
    const fixture = gpt2Fixture({ layers: 3 });
    await inFolder(fixture, async (folder, join, loadFromNode) => {
      const model = await loadFromNode(folder);
      const file = join(folder, 'model.safetensors');
      await truncate(file, fixture.files['model.safetensors'].length - 64);
      const error = await model.run({ ids: [1, 2] }).catch((e) => e);
      expect(error.code).toBe('BAD_FILE');
      expect(error.message).toMatch(/changed on disk since the model was loaded \(it had \d+ bytes and has \d+\)/);
      // Written again, it is another file than the one loaded (as a browser's File would be): load it again.
      await writeFile(file, fixture.files['model.safetensors']);
      await expect(model.run({ ids: [1, 2] })).rejects.toMatchObject({ code: 'BAD_FILE' });
      const r = await (await loadFromNode(folder)).run({ ids: [1, 2] });
      expectClose(r.logits.data, referenceForward(fixture, [1, 2]).logits, { ...VALUES, what: 'logits' });
    });
  });
});

describe.runIf(isNode)('WebAssembly memory holds one layer at a time', () => {
  it('12 layers of 3.1 MB: memory stays under one layer’s call plus the start, and the heap returns to its baseline', async () => {
    const fixture = { ...gpt2Fixture({ d: 256, heads: 4, layers: 12, vocab: 50, positions: 32 }), dtype: 'F32' };
    const model = await loadModel(fixture.files, { residentBytes: 0 }); // read at every run
    const layer = Object.keys(fixture.values)
      .filter((name) => name.startsWith('h.0.') && name !== 'h.0.attn.bias')
      .reduce((sum, name) => sum + bytesOf(fixture, name), 0);
    const weights = 12 * layer;
    const start = model.memoryBytes;
    const baseline = model.heapBytesInUse();
    await model.run({ ids: [1, 2, 3, 4, 5, 6, 7, 8] });
    expect(model.memoryBytes).toBeLessThanOrEqual(Math.max(start, 2 * layer + 2 ** 20));
    expect(model.memoryBytes).toBeLessThan(weights);
    expect(model.heapBytesInUse()).toBe(baseline);
  }, 120_000);
});
