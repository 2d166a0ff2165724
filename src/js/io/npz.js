// NumPy .npz archives (numpy.savez and numpy.savez_compressed): a zip of one .npy file per array.
import { AttentionError } from '../errors.js';
import { badFile, isBlob, quote, toBytes } from './bytes.js';
import { npyTensor } from './npy.js';
import { listZip, readMember } from './zip.js';

/**
 * Reads the arrays of a NumPy .npz file, stored (numpy.savez) or deflated (numpy.savez_compressed), each
 * as readNpy reads an .npy file; keys are the member names without ".npy", as numpy.load gives them.
 *
 * | file                                     | result                                       |
 * |------------------------------------------|----------------------------------------------|
 * | member "q.npy" of shape (d0, d1, …)      | `{ q: Tensor }` of shape [d0, d1, …]          |
 *
 * `options.names` reads only those arrays (e.g. to skip an integer array). Any member that readNpy would
 * refuse, a member that is not an .npy file, or a malformed zip raises BAD_FILE.
 * @param {Blob | ArrayBuffer | ArrayBufferView} source  the whole file
 * @param {{ names?: string[] }} [options]
 * @returns {Promise<Record<string, import('../tensor.js').Tensor>>}
 */
export async function readNpz(source, options = {}) {
  const bytes = isBlob(source) ? new Uint8Array(await source.arrayBuffer()) : toBytes(source, 'readNpz');
  const names = options?.names;
  if (names !== undefined && !(Array.isArray(names) && names.every((n) => typeof n === 'string'))) {
    throw new AttentionError('BAD_OPTION', 'readNpz: names must be an array of strings');
  }
  const members = new Map();
  for (const member of listZip(bytes)) {
    if (!member.name.endsWith('.npy'))
      throw badFile(member.where, 'the member is not an .npy file; an .npz holds only arrays');
    const key = member.name.slice(0, -4);
    if (members.has(key)) throw badFile(member.where, `a second member named ${quote(member.name)}`);
    members.set(key, member);
  }
  const wanted = names ?? [...members.keys()];
  for (const name of wanted) {
    if (!members.has(name)) {
      const some = [...members.keys()]
        .slice(0, 8)
        .map((k) => quote(k, 30))
        .join(', ');
      throw badFile(
        'npz',
        `there is no array ${quote(name)}; the file holds ${members.size}: ${some}${members.size > 8 ? ', …' : ''}`,
      );
    }
  }
  const result = [];
  for (const name of wanted) {
    const member = members.get(name);
    result.push([name, npyTensor(await readMember(bytes, member), `npz member ${quote(member.name)}`)]);
  }
  return Object.fromEntries(result);
}
