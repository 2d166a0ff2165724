// Node folders as people have them, and what is read from them is what was loaded: each file is opened once and
// checked (size and modification time) at each read, so that a file rewritten after the load is BAD_FILE and one
// replaced by a rename is read as it was; the Hugging Face cache's layout (models--owner--name/snapshots/<rev>/,
// its files symlinks into blobs/) loads, by its snapshot or by the cache folder; a file: URL's text loads as the URL
// does; a FIFO or a device is refused, never opened for reading; dispose() closes the files.
import { describe, expect, it } from 'vitest';
import { gpt2Fixture } from './fixtures.js';

const isNode = typeof window === 'undefined';
const ids = [2, 9, 4];

describe.runIf(isNode)('a folder path (Node)', async () => {
  const fs = isNode ? await import('node:fs/promises') : null;
  const { join } = isNode ? await import('node:path') : {};
  const { tmpdir } = isNode ? await import('node:os') : {};
  const { pathToFileURL } = isNode ? await import('node:url') : {};
  const { execFileSync } = isNode ? await import('node:child_process') : {};
  const { loadModel } = isNode ? await import('../../../src/js/model/index.node.js') : {};

  /** Runs body(folder) in a new temporary folder, removed after. */
  async function inTemp(body) {
    const folder = await fs.mkdtemp(join(tmpdir(), 'attention-wasm-folders-'));
    try {
      await body(folder);
    } finally {
      await fs.rm(folder, { recursive: true, force: true });
    }
  }
  const write = async (folder, files) => {
    for (const [name, content] of Object.entries(files)) await fs.writeFile(join(folder, name), content);
  };
  const logitsOf = async (files) => (await (await loadModel(files)).run({ ids })).logits.data;

  it('a file rewritten in place after the load is BAD_FILE naming it; a new load reads the new file', async () => {
    const v1 = gpt2Fixture({ seed: 1 });
    const v2 = gpt2Fixture({ seed: 2 }); // the same size
    await inTemp(async (folder) => {
      await write(folder, v1.files);
      const model = await loadModel(folder, { residentBytes: 0 });
      expect((await model.run({ ids })).logits.data).toEqual(await logitsOf(v1.files));
      const file = join(folder, 'model.safetensors');
      await fs.writeFile(file, v2.files['model.safetensors']);
      const later = new Date(Date.now() + 5000);
      await fs.utimes(file, later, later); // a modification time the first one cannot have, on any file system
      const error = await model.run({ ids }).catch((e) => e);
      expect(error?.code).toBe('BAD_FILE');
      expect(error.message).toContain(file);
      expect(error.message).toMatch(/changed on disk since the model was loaded/);
      expect((await (await loadModel(folder)).run({ ids })).logits.data).toEqual(await logitsOf(v2.files));
    });
  });

  it('a file replaced by a rename after the load is read as it was loaded', async () => {
    const v1 = gpt2Fixture({ seed: 1 });
    const v2 = gpt2Fixture({ seed: 2 });
    await inTemp(async (folder) => {
      await write(folder, v1.files);
      const model = await loadModel(folder, { residentBytes: 0 });
      const file = join(folder, 'model.safetensors');
      await fs.writeFile(`${file}.new`, v2.files['model.safetensors']);
      await fs.rename(`${file}.new`, file);
      expect((await model.run({ ids })).logits.data).toEqual(await logitsOf(v1.files));
    });
  });

  it('dispose() closes the files it opened', async () => {
    /** The names of the files of `folder` this process holds open (Linux's /proc/self/fd). */
    const held = async (path) => {
      const folder = await fs.realpath(path); // as /proc names it
      const targets = await Promise.all(
        (await fs.readdir('/proc/self/fd')).map((fd) => fs.readlink(`/proc/self/fd/${fd}`).catch(() => '')),
      );
      return targets.filter((target) => target.startsWith(folder)).map((target) => target.slice(folder.length + 1));
    };
    await inTemp(async (folder) => {
      await write(folder, gpt2Fixture({ shards: 3 }).files);
      const model = await loadModel(folder);
      await model.run({ ids });
      expect((await held(folder)).sort()).toEqual([1, 2, 3].map((i) => `model-0000${i}-of-00003.safetensors`)); // once each
      await model.dispose();
      expect(await held(folder)).toEqual([]);
      await expect(model.run({ ids })).rejects.toMatchObject({ code: 'TERMINATED' });
    });
  });

  it('the Hugging Face cache layout loads, by its snapshot or by its cache folder', async () => {
    const fixture = gpt2Fixture({ shards: 2 });
    await inTemp(async (hub) => {
      const repo = join(hub, 'models--acme--tiny-gpt2');
      const revision = '0123456789abcdef0123456789abcdef01234567';
      const snapshot = join(repo, 'snapshots', revision);
      await fs.mkdir(join(repo, 'blobs'), { recursive: true });
      await fs.mkdir(snapshot, { recursive: true });
      await fs.mkdir(join(repo, 'refs'));
      await fs.writeFile(join(repo, 'refs', 'main'), revision);
      let n = 0;
      for (const [name, content] of Object.entries(fixture.files)) {
        const blob = `blob${n++}${'0'.repeat(30)}`;
        await fs.writeFile(join(repo, 'blobs', blob), content);
        await fs.symlink(join('..', '..', 'blobs', blob), join(snapshot, name)); // relative, as the Hub's library makes them
      }
      const expected = await logitsOf(fixture.files);
      expect((await (await loadModel(snapshot)).run({ ids })).logits.data).toEqual(expected);
      expect((await (await loadModel(repo)).run({ ids })).logits.data).toEqual(expected);
    });
  });

  it('a file: URL given as text loads as the URL does; a bad one is BAD_OPTION', async () => {
    const fixture = gpt2Fixture();
    await inTemp(async (folder) => {
      await write(folder, fixture.files);
      const href = pathToFileURL(folder).href;
      expect((await (await loadModel(href)).run({ ids })).logits.data).toEqual(await logitsOf(fixture.files));
      await expect(loadModel('file://other-host/x')).rejects.toMatchObject({ code: 'BAD_OPTION' });
    });
  });

  it('a FIFO or a device among the files is refused clearly, never opened for reading (which would wait)', async () => {
    const fixture = gpt2Fixture();
    await inTemp(async (folder) => {
      await write(folder, { 'model.safetensors': fixture.files['model.safetensors'] });
      execFileSync('mkfifo', [join(folder, 'config.json')]);
      const fifo = await loadModel(folder).catch((e) => e);
      expect(fifo?.code).toBe('BAD_FILE');
      expect(fifo.message).toContain(join(folder, 'config.json'));
      expect(fifo.message).toMatch(/a FIFO/);
    });
    await inTemp(async (folder) => {
      await write(folder, { 'config.json': fixture.files['config.json'] });
      await fs.symlink('/dev/zero', join(folder, 'model.safetensors'));
      const device = await loadModel(folder).catch((e) => e);
      expect(device?.code).toBe('BAD_FILE');
      expect(device.message).toMatch(/model\.safetensors is a character device, not a regular file/);
    });
  });
});
