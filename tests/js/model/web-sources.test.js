// Checkpoints on a web server (checkpoint-server.mjs, another origin than Chromium's test page): a folder URL and a
// Hub model id, read with Range requests. The server counts the bytes it sends: a load fetches the JSON files and
// each safetensors header, a run the tensors it uses, and nothing else. A server that ignores Range, a missing file
// and (in Chromium) a server that refuses CORS each fail with a message that names the URL and what to do.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { safetensorsFile } from '../fixtures/io/writers.js';
import { gpt2Fixture } from './fixtures.js';
import { byteLevelTokenizer } from './tokenizers.js';
import { sent, server, upload } from './web-helpers.js';

const isNode = typeof window === 'undefined';

/** Bytes of a safetensors file's length field and JSON header. */
const headerBytes = (file) => 8 + Number(new DataView(file.buffer, file.byteOffset).getBigUint64(0, true));
const bytesOf = (fixture, name, rows) => {
  const { data, shape } = fixture.values[name];
  return (rows ?? shape[0]) * (data.length / shape[0]) * 4;
};
const textBytes = (text) => new TextEncoder().encode(text).length;

describe('a folder URL, read by Range requests', () => {
  it('gives the same results as the same files given as Files, with text through its tokenizer.json', async () => {
    const fixture = gpt2Fixture({ vocab: 257 + 3 });
    const files = { ...fixture.files, 'tokenizer.json': byteLevelTokenizer(['h e', 'l l', 'he ll']) };
    const path = await upload(files);
    const fromFiles = await loadModel(files);
    const fromUrl = await loadModel(`${server}range/${path}`);
    const fromUrlObject = await loadModel(new URL(`${server}range/${path.slice(0, -1)}`)); // no trailing slash
    expect(fromUrl.hasTokenizer).toBe(true);
    const options = { attentions: true, hiddenStates: true };
    const expected = await fromFiles.run('hello', options);
    for (const model of [fromUrl, fromUrlObject]) {
      const r = await model.run('hello', options);
      expect(r.ids).toEqual(expected.ids);
      expect(r.logits.data).toEqual(expected.logits.data);
      expect(r.attentions.map((a) => a.data)).toEqual(expected.attentions.map((a) => a.data));
      expect(r.hiddenStates.map((h) => h.data)).toEqual(expected.hiddenStates.map((h) => h.data));
    }
  });

  it('a sharded checkpoint: a load fetches the JSON files and the headers; a run the tensors it uses, nothing more', async () => {
    const fixture = gpt2Fixture({ shards: 3, layers: 3, positions: 16 });
    const path = await upload(fixture.files);
    const model = await loadModel(`${server}range/${path}`, { residentBytes: 0 }); // read at every run
    const shards = Object.keys(fixture.files).filter((name) => name.endsWith('.safetensors'));
    const load = await sent(path);
    expect(load.bytes).toBe(
      textBytes(fixture.files['config.json']) +
        textBytes(fixture.files['model.safetensors.index.json']) +
        shards.reduce((sum, name) => sum + headerBytes(fixture.files[name]), 0),
    );
    // Each answer to a Range request is 206 and no safetensors file was ever sent whole.
    const ranged = load.requests.filter((r) => shards.some((shard) => r.path.endsWith(shard)));
    expect(ranged).toHaveLength(2 * shards.length); // the length field, then the header
    expect(ranged.every((r) => r.status === 206 && r.range !== null)).toBe(true);

    const ids = [7, 3, 7, 1, 3];
    await model.run({ ids });
    const run = await sent(path);
    const layerTensors = Object.keys(fixture.values).filter(
      (name) => /^h\.\d+\./.test(name) && !/^h\.\d+\.attn\.bias$/.test(name),
    );
    const tensorsUsed =
      bytesOf(fixture, 'wte.weight', 3) +
      bytesOf(fixture, 'wpe.weight', ids.length) +
      layerTensors.reduce((sum, name) => sum + bytesOf(fixture, name), 0) +
      bytesOf(fixture, 'ln_f.weight') +
      bytesOf(fixture, 'ln_f.bias') +
      bytesOf(fixture, 'wte.weight');
    expect(run.bytes - load.bytes).toBe(tensorsUsed);
    expect(run.requests.slice(load.requests.length).every((r) => r.status === 206)).toBe(true);
  });

  it('a server that ignores Range: a small file is read whole; a large one is refused without reading it', async () => {
    const fixture = gpt2Fixture();
    const path = await upload(fixture.files);
    const model = await loadModel(`${server}norange/${path}`);
    const expected = await (await loadModel(fixture.files)).run({ ids: [1, 2, 3] });
    expect((await model.run({ ids: [1, 2, 3] })).logits.data).toEqual(expected.logits.data);

    // 6 MiB of zeros in a tensor the model never reads: over what is kept whole from such a server.
    const big = safetensorsFile([
      { name: 'padding', dtype: 'F32', shape: [6 * 2 ** 18], bytes: new Uint8Array(6 * 2 ** 20) },
    ]);
    const largePath = await upload({ 'config.json': fixture.files['config.json'], 'model.safetensors': big });
    const url = `${server}norange/${largePath}`;
    const error = await loadModel(url).catch((e) => e);
    expect(error.code).toBe('FETCH_FAILED');
    expect(error.message).toContain(`${url}model.safetensors`);
    expect(error.message).toMatch(/must support Range requests/);
    // The answer was dropped at its headers: had its body been read, the load would have waited for the stall.
    const answer = (await sent(largePath)).requests.find((r) => r.path.endsWith('model.safetensors'));
    expect(answer).toMatchObject({ status: 200, stalled: true, completed: false });
  });

  it('a missing file names its URL', async () => {
    const fixture = gpt2Fixture({ shards: 2 });
    const { 'config.json': config, ...rest } = fixture.files;
    const noConfig = await upload(rest);
    const e1 = await loadModel(`${server}range/${noConfig}`).catch((e) => e);
    expect(e1.code).toBe('MISSING_FILE');
    expect(e1.message).toContain(`${server}range/${noConfig}config.json`);

    const noWeights = await upload({ 'config.json': config });
    const e2 = await loadModel(`${server}range/${noWeights}`).catch((e) => e);
    expect(e2.code).toBe('MISSING_FILE');
    expect(e2.message).toMatch(/neither model\.safetensors nor model\.safetensors\.index\.json/);
    expect(e2.message).toContain(`${server}range/${noWeights}`);

    const shard = 'model-00002-of-00002.safetensors';
    const withoutShard = { ...fixture.files };
    delete withoutShard[shard];
    const noShard = await upload(withoutShard);
    const e3 = await loadModel(`${server}range/${noShard}`).catch((e) => e);
    expect(e3.code).toBe('MISSING_FILE');
    expect(e3.message).toContain(`${server}range/${noShard}${shard}`);
  });

  it.runIf(!isNode)(
    'a server that refuses CORS: FETCH_FAILED naming the URL, CORS, Range and the way round',
    async () => {
      const path = await upload(gpt2Fixture().files);
      const url = `${server}nocors/${path}`;
      const error = await loadModel(url).catch((e) => e);
      expect(error.code).toBe('FETCH_FAILED');
      expect(error.message).toContain(`${url}config.json`);
      expect(error.message).toMatch(/CORS/);
      expect(error.message).toMatch(/Range/);
      expect(error.message).toMatch(/download the files/);
    },
  );
});

describe('a server that does not expose Content-Range', () => {
  it('is read all the same: the size comes from a HEAD request, the ranges are checked by their length', async () => {
    const fixture = gpt2Fixture({ shards: 2 });
    const path = await upload(fixture.files);
    const model = await loadModel(`${server}hidden/${path}`);
    const expected = await (await loadModel(fixture.files)).run({ ids: [3, 2, 1] });
    expect((await model.run({ ids: [3, 2, 1] })).logits.data).toEqual(expected.logits.data);
    const heads = (await sent(path)).requests.filter((r) => r.head);
    expect(heads).toHaveLength(isNode ? 0 : 2); // Node reads every header; a page asks each shard's size
  });
});

describe('a Hub model id', () => {
  it('{ hub, revision, base } reads base/owner/name/resolve/revision/', async () => {
    const fixture = gpt2Fixture({ shards: 2 });
    await upload(fixture.files, 'acme/tiny-gpt2/resolve/v1.0/');
    const model = await loadModel({ hub: 'acme/tiny-gpt2', revision: 'v1.0', base: `${server}range` });
    const expected = await (await loadModel(fixture.files)).run({ ids: [4, 5] });
    expect((await model.run({ ids: [4, 5] })).logits.data).toEqual(expected.logits.data);
    const error = await loadModel({ hub: 'acme/tiny-gpt2', base: `${server}range/` }).catch((e) => e);
    expect(error.code).toBe('MISSING_FILE'); // revision 'main' was not uploaded
    expect(error.message).toContain(`${server}range/acme/tiny-gpt2/resolve/main/config.json`);
  });

  it('refuses a bad id, option or base, and a bare "owner/name" string says to use { hub }', async () => {
    await expect(loadModel({ hub: '../etc' })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(loadModel({ hub: 'a/b', branch: 'main' })).rejects.toMatchObject({ code: 'UNKNOWN_OPTION' });
    await expect(loadModel({ hub: 'a/b', base: 'ftp://mirror' })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    // A string is never a Hub id (in Node it is a folder path): the message says how to name the Hub's model.
    const { loadModel: loadHere } = isNode ? await import('../../../src/js/model/index.node.js') : { loadModel };
    const error = await loadHere('acme/tiny-gpt2').catch((e) => e);
    expect(error.code).toBe(isNode ? 'MISSING_FILE' : 'BAD_OPTION');
    // In Node a missing folder named like a Hub id says how to give one; a page hears of both readings of the text.
    if (isNode) expect(error.message).toContain(`{ hub: "acme/tiny-gpt2" }`);
    else expect(error.message).toMatch(/new URL\("acme\/tiny-gpt2", document\.baseURI\).*\{ hub: 'owner\/name' \}/);
  });
});
