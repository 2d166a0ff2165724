// Sources must not leave the model's folder: a shard name in model.safetensors.index.json is a file name inside the
// folder, never a URL of any scheme, an absolute path, `..`, a backslash, a percent-encoded separator, a query or a
// fragment, and it is refused before any request (checkpoint-server.mjs logs every request). A typed source that is
// not a valid URL, a revision that climbs out of resolve/, and a relative source that names another host are
// BAD_OPTION, never a raw TypeError.
import { describe, expect, it } from 'vitest';
import { loadModel, modelFolderUrl, parseModelSource } from '../../../src/js/model/index.js';
import { gpt2Fixture } from './fixtures.js';
import { sent, server, upload } from './web-helpers.js';

/** The fixture's sharded folder with its second shard renamed `name` in the index (and in the folder). */
function renamedShard(name) {
  const fixture = gpt2Fixture({ shards: 2 });
  const shard = 'model-00002-of-00002.safetensors';
  const index = JSON.parse(fixture.files['model.safetensors.index.json']);
  for (const [tensor, file] of Object.entries(index.weight_map)) if (file === shard) index.weight_map[tensor] = name;
  const files = { ...fixture.files, 'model.safetensors.index.json': JSON.stringify(index) };
  return { files, bytes: fixture.files[shard] };
}

/** A data: URL whose percent-encoded bytes are `bytes`, with no slash in it (the index's old rule let it through). */
const dataUrl = (bytes) =>
  `data:,${Array.from(bytes, (b) => `%${b.toString(16).padStart(2, '0')}`).join('')}#.safetensors`;

const outside = [
  `http:127.0.0.1:9?.safetensors`,
  'https:example.org:443?.safetensors',
  'file:x.safetensors',
  'blob:x.safetensors',
  'javascript:x.safetensors',
  '..%2fother.safetensors',
  '%2e%2e.safetensors',
  'a%5cb.safetensors',
  'a?.safetensors',
  'a#.safetensors',
  '..\\x.safetensors',
  '\tdata:,x#.safetensors',
  ' model.safetensors',
];

describe('a shard name in model.safetensors.index.json', () => {
  it('is refused with BAD_FILE naming it when it would leave the folder', async () => {
    for (const name of outside) {
      const error = await loadModel(renamedShard(name).files).catch((e) => e);
      expect(error?.code, name).toBe('BAD_FILE');
      expect(error.message, name).toContain('model.safetensors.index.json');
      expect(error.message, name).toMatch(/a file name inside the model's folder/);
    }
  });

  it('reaches no other URL: a data: URL holding a shard is refused before any shard is asked for', async () => {
    const { bytes } = renamedShard('x');
    const path = await upload(renamedShard(dataUrl(bytes)).files);
    const error = await loadModel(`${server}range/${path}`).catch((e) => e);
    expect(error?.code).toBe('BAD_FILE');
    expect(error.message).toContain('"data:,');
    // The index is refused as it is read: no shard of the folder is asked for either (the probe of a single
    // model.safetensors, a 404, comes before the index).
    const requested = (await sent(path)).requests.map((r) => r.path.slice(path.length));
    expect(requested.filter((name) => name.startsWith('model-'))).toEqual([]);
  });

  it('an ordinary name such as model-00002-of-00002.safetensors still loads', async () => {
    const fixture = gpt2Fixture({ shards: 2 });
    const path = await upload(fixture.files);
    const model = await loadModel(`${server}range/${path}`);
    const expected = await (await loadModel(fixture.files)).run({ ids: [1, 2] });
    expect((await model.run({ ids: [1, 2] })).logits.data).toEqual(expected.logits.data);
  });
});

/** The error `run()` throws, or undefined. */
function thrown(run) {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('a typed source that is not a valid URL', () => {
  const invalid = ['http://', 'http://a b/m/', 'http://[::1/m/', 'https://exa mple.org/'];

  it('is BAD_OPTION from parseModelSource, modelFolderUrl and loadModel, never a raw TypeError', async () => {
    for (const text of invalid) {
      for (const error of [
        thrown(() => parseModelSource(text)),
        thrown(() => modelFolderUrl(text)),
        await loadModel(text).catch((e) => e),
      ]) {
        expect(error?.name, text).toBe('AttentionError');
        expect(error.code, text).toBe('BAD_OPTION');
        expect(error.message, text).toContain(JSON.stringify(text).slice(1, -1).slice(0, 10));
      }
    }
    for (const base of ['http://', 'http://a b']) {
      const error = await loadModel({ hub: 'owner/name', base }).catch((e) => e);
      expect(error?.name, base).toBe('AttentionError');
      expect(error.code, base).toBe('BAD_OPTION');
    }
  });

  it('a revision cannot climb out of resolve/', async () => {
    for (const revision of ['..', '.', 'a/../..', '../main', 'refs/..']) {
      const error = thrown(() => parseModelSource(`owner/name@${revision}`));
      expect(error?.code, revision).toBe('BAD_OPTION');
      const fromLoad = await loadModel({ hub: 'owner/name', revision, base: `${server}range` }).catch((e) => e);
      expect(fromLoad?.code, revision).toBe('BAD_OPTION');
      expect(fromLoad.message, revision).toMatch(/revision/);
    }
    // A revision with slashes stays one segment under resolve/.
    expect(modelFolderUrl({ hub: 'owner/name', revision: 'refs/pr/3' })).toBe(
      'https://huggingface.co/owner/name/resolve/refs%2Fpr%2F3/',
    );
  });

  it('a relative source that names another host (//host/m, /\\host/m) is refused', () => {
    const base = 'https://blog.example.org/posts/';
    for (const text of ['//evil.example.org/m/', '/\\evil.example.org/m/', '\\\\evil.example.org/m/']) {
      const error = thrown(() => parseModelSource(text, { base }));
      expect(error?.code, text).toBe('BAD_OPTION');
      expect(error.message, text).toMatch(/another host|not a relative/);
    }
    expect(parseModelSource('/m/', { base })).toBe('https://blog.example.org/m/');
  });
});
