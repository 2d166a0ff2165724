// NumPy .npz archives (numpy.savez and numpy.savez_compressed): a zip of one .npy file per array.
import { AttentionError } from '../errors.js';
import { badFile, held, quote, rangeReader } from './bytes.js';
import { NPY_HEADER_BYTES, npyHeader, npyTensor } from './npy.js';
import { listZip, readMember } from './zip.js';

/**
 * The whole file in memory (a Blob is read once), and its members by key: the member name without ".npy".
 * @returns {Promise<{ bytes: Uint8Array, members: Map<string, object> }>}
 */
async function openArchive(source, fn) {
  const file = rangeReader(source, fn);
  const bytes = await file.read(0, file.size, 'npz');
  const members = new Map();
  for (const member of listZip(held(bytes, file.size, 'npz'))) {
    if (!member.name.endsWith('.npy'))
      throw badFile(member.where, 'the member is not an .npy file; an .npz holds only arrays');
    const key = member.name.slice(0, -4);
    if (members.has(key)) throw badFile(member.where, `a second member named ${quote(member.name)}`);
    members.set(key, member);
  }
  return { bytes, members };
}

/** The member of key `name`, or BAD_FILE naming the first keys the file holds. */
function memberOf(members, name) {
  const member = members.get(name);
  if (member) return member;
  const some = [...members.keys()]
    .slice(0, 8)
    .map((k) => quote(k, 30))
    .join(', ');
  throw badFile(
    'npz',
    `there is no array ${quote(name)}; the file holds ${members.size}: ${some}${members.size > 8 ? ', …' : ''}`,
  );
}

/** Reads one member whole (checked against its size and CRC) into a Tensor. */
async function readArray(bytes, length, member) {
  const data = await readMember(bytes, length, member);
  // Stored data is a view of the caller's memory: checked again after the await, right before it is read.
  return npyTensor(held(data, member.size, member.where), `npz member ${quote(member.name)}`);
}

/**
 * Reads the arrays of a NumPy .npz file, stored (numpy.savez) or deflated (numpy.savez_compressed), each
 * as readNpy reads an .npy file; keys are the member names without ".npy", as numpy.load gives them.
 *
 * | file                                     | result                                       |
 * |------------------------------------------|----------------------------------------------|
 * | member "q.npy" of shape (d0, d1, …)      | `{ q: Tensor }` of shape [d0, d1, …]          |
 *
 * `options.names` reads only those arrays (e.g. to skip a complex array). Any member that readNpy would
 * refuse, a member that is not an .npy file, or a malformed zip raises BAD_FILE, as does a Blob that cannot
 * be read or bytes whose buffer is detached.
 * @param {Blob | ArrayBuffer | ArrayBufferView} source  the whole file
 * @param {{ names?: string[] }} [options]
 * @returns {Promise<Record<string, import('../tensor.js').Tensor>>}
 */
export async function readNpz(source, options = {}) {
  const names = options?.names;
  if (names !== undefined && !(Array.isArray(names) && names.every((n) => typeof n === 'string'))) {
    throw new AttentionError('BAD_OPTION', 'readNpz: names must be an array of strings');
  }
  const { bytes, members } = await openArchive(source, 'readNpz');
  const length = bytes.length; // read once: a detached buffer's length reads 0 later
  const wanted = (names ?? [...members.keys()]).map((name) => [name, memberOf(members, name)]);
  const result = [];
  for (const [name, member] of wanted) result.push([name, await readArray(bytes, length, member)]);
  return Object.fromEntries(result);
}

/**
 * Opens a NumPy .npz file by the headers of its arrays: lists every array's dtype and shape, and reads one on
 * request. Only each member's header is inflated to list it, so a shape can be checked before any value is read.
 *
 * | returns              | what                                                                        |
 * |----------------------|-----------------------------------------------------------------------------|
 * | arrays               | `{ name, dtype, shape }` of every array, in the archive's order; dtype as numpy writes it ('<f4', '|b1', '<i8', …) |
 * | read(name)           | Promise of that array as readNpy reads it                                   |
 *
 * A malformed zip, a member that is not an .npy file, or a malformed .npy header raises BAD_FILE at once; an
 * array of a dtype or shape readNpy refuses is listed, and raises BAD_FILE when it is read.
 * @param {Blob | ArrayBuffer | ArrayBufferView} source  the whole file (a Blob is read once, whole)
 * @returns {Promise<{ arrays: { name: string, dtype: string, shape: number[] }[],
 *   read: (name: string) => Promise<import('../tensor.js').Tensor> }>}
 */
export async function openNpz(source) {
  const { bytes, members } = await openArchive(source, 'openNpz');
  const length = bytes.length; // read once: a detached buffer's length reads 0 later
  const arrays = [];
  for (const [name, member] of members) {
    const keep = Math.min(member.size, NPY_HEADER_BYTES);
    const head = await readMember(bytes, length, member, keep);
    const header = npyHeader(held(head, keep, member.where), `npz member ${quote(member.name)}`, member.size);
    arrays.push({ name, dtype: header.descr, shape: header.shape });
  }
  const read = async (name) => {
    if (typeof name !== 'string') throw new AttentionError('BAD_OPTION', 'read(name): name must be a string');
    return readArray(bytes, length, memberOf(members, name));
  };
  return { arrays: arrays.map((a) => ({ ...a, shape: a.shape.slice() })), read };
}
