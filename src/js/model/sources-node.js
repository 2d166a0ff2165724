// Node's reader of a checkpoint folder by path (or its file: URL, as a URL or a string), installed by the Node entry
// (index.node.js). Each safetensors file is opened once, when the model is loaded, and read by positioned reads of
// that open file; at each read its size and modification time are compared with those at load, as fs.openAsBlob
// and a browser's File do: a file rewritten in place since is BAD_FILE, never numbers read from the new bytes, and a
// file replaced by another (renamed over it) is still read as it was. Symlinks are followed (the Hugging Face
// cache's snapshots/<revision>/ folder links each file into blobs/); a FIFO, a device or a socket is refused, never
// opened for reading (which would wait for a writer). The files are closed by dispose(), or once nothing can read them.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AttentionError } from '../errors.js';
import { installFolderReader } from './sources.js';
import { hubHint } from './sources-url.js';

/** What a file that is not a regular one is, for messages. */
function kindOf(stats) {
  if (stats.isFIFO()) return 'a FIFO (a named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a folder';
  return 'not a regular file';
}

const notRegular = (path, kind) =>
  new AttentionError(
    'BAD_FILE',
    `${path} is ${kind}, not a regular file: a model folder's files are regular files (or symlinks to them), read by ranges`,
  );

// Each open file's descriptor, closed when nothing can read the file any more (a model never disposed).
const descriptors = new FinalizationRegistry((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/** Opens `path` once (never waiting on a FIFO), checks that it is a regular file, and keeps what it was then. */
function openFile(path) {
  let fd;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (cause) {
    throw new AttentionError('BAD_FILE', `${path} cannot be opened: ${cause?.message ?? cause}`, { cause });
  }
  const stats = fstatSync(fd, { bigint: true });
  if (!stats.isFile()) {
    closeSync(fd);
    throw notRegular(path, kindOf(stats));
  }
  const file = { fd, path, size: Number(stats.size), mtimeNs: stats.mtimeNs, closed: false };
  descriptors.register(file, fd, file);
  return file;
}

/** Closes an open file (dispose()). */
function closeFile(file) {
  if (file.closed) return;
  file.closed = true;
  descriptors.unregister(file);
  closeSync(file.fd);
}

/** Throws BAD_FILE when the open file is closed, or changed since it was opened (its size or modification time). */
function checkUnchanged(file) {
  if (file.closed) {
    throw new AttentionError('TERMINATED', `${file.path} was closed with its model (dispose): load the model again`);
  }
  const now = fstatSync(file.fd, { bigint: true });
  if (Number(now.size) !== file.size || now.mtimeNs !== file.mtimeNs) {
    const what =
      Number(now.size) !== file.size
        ? `it had ${file.size} bytes and has ${now.size}`
        : 'its modification time is not the one it had';
    throw new AttentionError(
      'BAD_FILE',
      `${file.path} changed on disk since the model was loaded (${what}): load the model again`,
    );
  }
}

/**
 * An open file, or bytes [start, end) of it, as a Blob whose arrayBuffer() is one positioned read into a new
 * buffer, made on this thread. fs.openAsBlob's Blobs read in small chunks, each a trip through the thread pool, and
 * join them after; on a busy machine each trip waits for a core: a forward of GPT-2 small (160 reads) spent 0.9 s of
 * CPU in 2.7–5.5 s that way. A read from the page cache takes about as long as the trips it saves (500 MB in 0.25 s).
 */
class FileRange extends Blob {
  #file;
  #start;
  #end;

  constructor(file, start, end) {
    super();
    this.#file = file;
    this.#start = start;
    this.#end = end;
  }

  get size() {
    return this.#end - this.#start;
  }

  slice(begin = 0, end = this.size) {
    const at = (i) => Math.min(Math.max(i < 0 ? this.size + i : i, 0), this.size);
    return new FileRange(this.#file, this.#start + at(begin), this.#start + Math.max(at(begin), at(end)));
  }

  async arrayBuffer() {
    checkUnchanged(this.#file);
    const bytes = new Uint8Array(this.size);
    let done = 0;
    while (done < bytes.length) {
      const bytesRead = readSync(this.#file.fd, bytes, done, bytes.length - done, this.#start + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    // the file shrank since: the bytes there are, so that the reader says which ones are missing
    return done === bytes.length ? bytes.buffer : bytes.buffer.slice(0, done);
  }

  async text() {
    return new TextDecoder().decode(await this.arrayBuffer());
  }
}

/** The folder path of a path, a file: URL, or a file: URL's text; BAD_OPTION for a file: URL that names none. */
function pathOf(source) {
  if (!(source instanceof URL) && !/^file:/iu.test(source)) return resolve(source);
  try {
    return resolve(fileURLToPath(source));
  } catch (cause) {
    throw new AttentionError(
      'BAD_OPTION',
      `${JSON.stringify(String(source).slice(0, 200))} is not a file: URL of a local folder: ${cause?.message ?? cause}`,
      { cause },
    );
  }
}

/**
 * A Hugging Face cache folder (models--owner--name, with refs/ and snapshots/): its snapshot of refs/main, or its only
 * snapshot; the folder itself otherwise.
 */
async function snapshotOf(root, entries) {
  if (entries.some((e) => e.name === 'config.json') || !entries.some((e) => e.name === 'snapshots')) return root;
  const snapshots = (await readdir(join(root, 'snapshots'), { withFileTypes: true }).catch(() => []))
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  const main = (await readFile(join(root, 'refs', 'main'), 'utf8').catch(() => '')).trim();
  if (snapshots.includes(main)) return join(root, 'snapshots', main);
  if (snapshots.length === 1) return join(root, 'snapshots', snapshots[0]);
  throw new AttentionError(
    'MISSING_FILE',
    `${root} is a Hugging Face cache folder whose refs/main names no snapshot; give one of its snapshots' folders: ${snapshots.map((s) => join(root, 'snapshots', s)).join(', ') || '(there are none)'}`,
  );
}

/** Its entries that are files, symlinks followed: { sizes: name → bytes, others: name → what it is instead }. */
async function filesOf(root, entries) {
  const sizes = new Map();
  const others = new Map();
  await Promise.all(
    entries
      .filter((entry) => !entry.isDirectory())
      .map(async ({ name }) => {
        try {
          const stats = await stat(join(root, name)); // a symlink's target
          if (stats.isFile()) sizes.set(name, stats.size);
          else if (!stats.isDirectory()) others.set(name, kindOf(stats));
        } catch {
          others.set(name, 'a broken symlink');
        }
      }),
  );
  return { sizes, others };
}

/** The folder at `source` (a path, a file: URL or its text): its regular files, symlinks followed. */
async function folderFromPath(source) {
  let root = pathOf(source);
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
    const snapshot = await snapshotOf(root, entries);
    if (snapshot !== root) entries = await readdir((root = snapshot), { withFileTypes: true });
  } catch (cause) {
    if (cause instanceof AttentionError) throw cause;
    // A string is a folder path in Node, never a Hub id: 'owner/name' would be ambiguous with a relative path.
    throw new AttentionError(
      'MISSING_FILE',
      `the model folder ${root} cannot be read: ${cause?.message ?? cause}${hubHint(source)}`,
      { cause },
    );
  }
  const { sizes, others } = await filesOf(root, entries);
  const open = new Map(); // name → open file, each opened once
  const opened = (name) => {
    if (others.has(name)) throw notRegular(join(root, name), others.get(name));
    if (!open.has(name)) open.set(name, openFile(join(root, name)));
    return open.get(name);
  };
  return {
    description: `the folder ${root}`,
    names: [...sizes.keys(), ...others.keys()],
    size: (name) => sizes.get(name),
    file: async (name) => {
      const file = opened(name);
      return new FileRange(file, 0, file.size);
    },
    /** A JSON file whole, of at most `max` bytes, opened and closed here (it is read once, at load). */
    async whole(name, max) {
      if (others.has(name)) throw notRegular(join(root, name), others.get(name));
      const file = openFile(join(root, name));
      try {
        if (file.size > max) {
          throw new AttentionError(
            'BAD_FILE',
            `${name} has ${file.size} bytes, more than the ${max} a JSON file of a checkpoint may have`,
          );
        }
        return new Uint8Array(await new FileRange(file, 0, file.size).arrayBuffer());
      } finally {
        closeFile(file);
      }
    },
    /** Closes the files opened (dispose()): a later read is TERMINATED. */
    close() {
      for (const file of open.values()) closeFile(file);
    },
  };
}

installFolderReader(folderFromPath);
