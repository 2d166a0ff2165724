// The one rule for a file name a model's folder is read by (a shard that model.safetensors.index.json names, a file
// the engine asks a web folder for): a plain name inside the folder. A name that would parse as a URL of any scheme
// (`https:host?`, `data:,…#`), a path (`/`, `\`, `..`), a percent-encoded character, a query or a fragment, a control
// character or a space at either end (which URL parsing drops) could make a request leave the folder: refused before
// any request, in browsers and in Node alike.
import { AttentionError } from '../errors.js';
import { quote } from '../io/bytes.js';

/** Why `name` is not a plain file name inside a folder, or null when it is one. */
export function notInFolder(name) {
  if (typeof name !== 'string' || name === '') return 'it is empty';
  if ([...name].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f')) return 'it holds a control character';
  if (name.trim() !== name) return 'it begins or ends with a space';
  if (name === '.' || name === '..') return 'it names a folder';
  if (/[\\/]/u.test(name)) return 'it holds a path separator';
  if (name.includes(':')) return 'it holds a colon (a URL scheme, or a drive)';
  if (name.includes('%')) return 'it holds a percent-encoded character';
  if (/[?#]/u.test(name)) return 'it holds a query or a fragment';
  return null;
}

/** Throws BAD_FILE, `where` naming what gave the name, when `name` is not a plain file name inside the folder. */
export function checkFileName(name, where) {
  const why = notInFolder(name);
  if (why) {
    throw new AttentionError(
      'BAD_FILE',
      `${where} is ${typeof name === 'string' ? quote(name, 60) : typeof name}, not a file name inside the model's folder: ${why}`,
    );
  }
  return name;
}
