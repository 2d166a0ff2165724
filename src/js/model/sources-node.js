// Node's reader of a checkpoint folder by path, installed by the Node entry (index.node.js): the folder's files as
// Blobs backed by the file (fs.openAsBlob), so that a tensor is read by slices and the checkpoint never whole.
import { openAsBlob } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AttentionError } from '../errors.js';
import { installFolderReader } from './sources.js';

/** The folder at `path` (or a file: URL): its regular files (not its subfolders). */
async function folderFromPath(path) {
  const root = resolve(path instanceof URL ? fileURLToPath(path) : path);
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (cause) {
    // A string is a folder path in Node, never a Hub id: 'owner/name' would be ambiguous with a relative path.
    const hub =
      typeof path === 'string' && /^[\w.-]+\/[\w.-]+$/.test(path)
        ? ` (for the Hub's model, give { hub: ${JSON.stringify(path)} })`
        : '';
    throw new AttentionError(
      'MISSING_FILE',
      `the model folder ${root} cannot be read: ${cause?.message ?? cause}${hub}`,
      { cause },
    );
  }
  const names = entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
  const sizes = new Map(await Promise.all(names.map(async (name) => [name, (await stat(join(root, name))).size])));
  return {
    description: `the folder ${root}`,
    names,
    size: (name) => sizes.get(name),
    file: (name) => openAsBlob(join(root, name)),
  };
}

installFolderReader(folderFromPath);
