// The ZIP container of .npz files: the end of central directory record (and its ZIP64 form), the central
// directory as the truth about each member, local headers only to find where a member's data starts, and
// members stored (method 0) or deflated (method 8, inflated by the platform's DecompressionStream).
import { MAX_CALL_BYTES } from '../limits.js';
import { badFile, held, quote, u16, u32, u64 } from './bytes.js';

// The signatures of the records (zip-write.js writes them too).
export const EOCD = 0x06054b50;
export const ZIP64_LOCATOR = 0x07064b50;
export const ZIP64_EOCD = 0x06064b50;
export const CENTRAL = 0x02014b50;
export const LOCAL = 0x04034b50;
// deflate cannot expand data by more than about 1032:1; a member claiming more is not a real one.
const MAX_DEFLATE_RATIO = 1032;
// The largest member worth inflating: a float64 .npy whose float32 tensor fills MAX_CALL_BYTES, plus a header.
export const MAX_MEMBER_BYTES = 2 * MAX_CALL_BYTES + 65536 + 12;

/** Finds the end of central directory record: the last signature whose comment ends the file exactly. */
function findEnd(bytes) {
  const notZip = 'no end of central directory record: the file is not a zip archive (or is truncated)';
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65535); at--) {
    if (u32(bytes, at) === EOCD && at + 22 + u16(bytes, at + 20) === bytes.length) return at;
  }
  throw badFile(`zip at byte ${Math.max(0, bytes.length - 22)}`, notZip);
}

/**
 * The central directory's count, size and offset, from the ZIP64 record when a ZIP64 locator precedes the classic
 * record and one of its fields holds the all-ones mark. Without a locator, a count of 0xFFFF is a real count: 65 535
 * members, as Python's zipfile (numpy.savez) writes them.
 */
function directory(bytes) {
  const end = findEnd(bytes);
  const where = `zip end of central directory at byte ${end}`;
  if (u16(bytes, end + 4) !== 0 || u16(bytes, end + 6) !== 0)
    throw badFile(where, 'a multi-disk archive, which is not supported');
  let count = u16(bytes, end + 10);
  let size = u32(bytes, end + 12);
  let offset = u32(bytes, end + 16);
  const locator = end - 20;
  const hasLocator = locator >= 0 && u32(bytes, locator) === ZIP64_LOCATOR;
  const wide = size === 0xffffffff || offset === 0xffffffff;
  if (wide && !hasLocator) throw badFile(where, 'its size or offset overflows but no ZIP64 locator precedes it');
  if (hasLocator && (wide || count === 0xffff || u16(bytes, end + 8) === 0xffff)) {
    const record = u64(bytes, locator + 8);
    const where64 = `zip64 end of central directory at byte ${record}`;
    if (!(record + 56 <= locator) || u32(bytes, record) !== ZIP64_EOCD)
      throw badFile(`zip64 locator at byte ${locator}`, 'it does not point to a ZIP64 end of central directory record');
    count = u64(bytes, record + 32);
    size = u64(bytes, record + 40);
    offset = u64(bytes, record + 48);
    if (!(offset + size <= record))
      throw badFile(where64, `the central directory (${size} bytes at byte ${offset}) does not end before it`);
  } else if (!(offset + size <= end)) {
    throw badFile(where, `the central directory (${size} bytes at byte ${offset}) does not end before it`);
  }
  if (count * 46 > size) throw badFile(where, `${count} members cannot fit in a central directory of ${size} bytes`);
  return { count, offset, end: offset + size };
}

/** Reads the ZIP64 extra field (id 1) of a central directory entry: the fields whose classic value is all ones. */
function zip64Extra(bytes, from, to, entry, where) {
  for (let at = from; at + 4 <= to;) {
    const id = u16(bytes, at);
    const length = u16(bytes, at + 2);
    if (at + 4 + length > to) break;
    if (id === 1) {
      let field = at + 4;
      for (const key of ['size', 'compressedSize', 'localOffset']) {
        if (entry[key] !== 0xffffffff) continue;
        if (field + 8 > at + 4 + length) throw badFile(where, `its ZIP64 extra field has no ${key}`);
        entry[key] = u64(bytes, field);
        field += 8;
      }
      return;
    }
    at += 4 + length;
  }
  if ([entry.size, entry.compressedSize, entry.localOffset].includes(0xffffffff)) {
    throw badFile(where, 'a size or offset is 0xFFFFFFFF but there is no ZIP64 extra field');
  }
}

/**
 * Lists the members of a zip archive from its central directory, each with where its data is and how it is
 * stored. Checks everything against the file's size; reads no member.
 * @param {Uint8Array} bytes
 * @returns {{ name: string, method: number, crc: number, size: number, compressedSize: number, dataOffset: number }[]}
 */
export function listZip(bytes) {
  const { count, offset, end } = directory(bytes);
  const names = new TextDecoder();
  const members = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    const where = `zip central directory entry ${i} at byte ${at}`;
    if (at + 46 > end || u32(bytes, at) !== CENTRAL)
      throw badFile(where, 'not a central directory entry (bad signature or past the directory)');
    const nameLength = u16(bytes, at + 28);
    const extraLength = u16(bytes, at + 30);
    const next = at + 46 + nameLength + extraLength + u16(bytes, at + 32);
    if (next > end) throw badFile(where, 'its name, extra field and comment run past the central directory');
    const name = names.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    const memberWhere = `zip member ${quote(name)} (central directory at byte ${at})`;
    const entry = {
      name,
      flags: u16(bytes, at + 8),
      method: u16(bytes, at + 10),
      crc: u32(bytes, at + 16),
      compressedSize: u32(bytes, at + 20),
      size: u32(bytes, at + 24),
      localOffset: u32(bytes, at + 42),
    };
    zip64Extra(bytes, at + 46 + nameLength, at + 46 + nameLength + extraLength, entry, memberWhere);
    if (entry.flags & 1) throw badFile(memberWhere, 'the member is encrypted');
    if (entry.method !== 0 && entry.method !== 8) {
      throw badFile(
        memberWhere,
        `compression method ${entry.method} is not supported (only 0, stored, and 8, deflate, as numpy writes)`,
      );
    }
    if (entry.method === 0 && entry.size !== entry.compressedSize) {
      throw badFile(memberWhere, `a stored member of ${entry.compressedSize} bytes claims to hold ${entry.size}`);
    }
    const local = entry.localOffset;
    if (!(local + 30 <= offset) || u32(bytes, local) !== LOCAL) {
      throw badFile(memberWhere, `no local file header at byte ${local}, where the central directory puts it`);
    }
    const dataOffset = local + 30 + u16(bytes, local + 26) + u16(bytes, local + 28);
    if (!(dataOffset + entry.compressedSize <= offset)) {
      throw badFile(
        memberWhere,
        `its ${entry.compressedSize} bytes of data at byte ${dataOffset} run past the start of the central directory (byte ${offset})`,
      );
    }
    members.push({ ...entry, dataOffset, where: memberWhere });
    at = next;
  }
  // Members that share data would let a small file inflate without bound: each byte belongs to one member.
  const byOffset = [...members].sort((a, b) => a.localOffset - b.localOffset);
  for (let i = 1; i < byOffset.length; i++) {
    const previous = byOffset[i - 1];
    if (byOffset[i].localOffset < previous.dataOffset + previous.compressedSize) {
      throw badFile(
        byOffset[i].where,
        `its local header at byte ${byOffset[i].localOffset} overlaps the data of ${quote(previous.name)}`,
      );
    }
  }
  return members;
}

let crcTable;
/** The CRC-32 (IEEE 802.3, as zip stores it) of `data`, as an unsigned 32-bit number. */
export function crc32(data) {
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  let crc = -1;
  for (let i = 0; i < data.length; i++) crc = crcTable[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

// Compressed bytes fed at a time when only a member's start is wanted: deflate expands 256 bytes to at most about
// 264 KiB, and the stream's backpressure holds back the next piece until the output is read.
const PREFIX_PIECE = 256;

/**
 * A stream of copies of `bytes`, `PREFIX_PIECE` at a time, each made only when the reader asks for it (and only
 * while `bytes`, a view of the caller's memory, still holds what it held: held() errors the stream otherwise).
 */
const pieces = (bytes, where) => {
  const total = bytes.length;
  let at = 0;
  const pull = (controller) =>
    at < total ? controller.enqueue(held(bytes, total, where).slice(at, (at += PREFIX_PIECE))) : controller.close();
  return new ReadableStream({ pull }, { highWaterMark: 0 });
};

/**
 * Inflates raw deflate data into exactly `size` bytes, and fails as soon as the stream yields more; with `keep`
 * below `size`, stops once the first `keep` bytes are out and returns those alone (nothing else is checked), having
 * inflated little more than those.
 */
async function inflate(compressed, size, where, keep = size) {
  if (typeof DecompressionStream !== 'function') {
    throw badFile(
      where,
      "the member is deflated, and this engine has no DecompressionStream('deflate-raw') to inflate it",
    );
  }
  const out = new Uint8Array(keep);
  let filled = 0;
  let reader;
  try {
    const source = keep < size ? pieces(compressed, where) : new Blob([compressed]).stream();
    reader = source.pipeThrough(new DecompressionStream('deflate-raw')).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (keep < size) {
        out.set(value.subarray(0, keep - filled), filled);
        filled += Math.min(value.length, keep - filled);
        if (filled < keep) continue;
        reader.cancel().catch(() => {});
        return out;
      }
      if (value.length > size - filled) {
        reader.cancel().catch(() => {});
        throw badFile(where, `the deflated data inflates to more than the ${size} bytes the central directory states`);
      }
      out.set(value, filled);
      filled += value.length;
    }
  } catch (error) {
    if (error?.code === 'BAD_FILE') throw error;
    throw badFile(where, `the deflated data is corrupt (${String(error?.message ?? error).slice(0, 100)})`, error);
  }
  if (filled !== size)
    throw badFile(where, `the deflated data inflates to ${filled} bytes, not the ${size} the central directory states`);
  return out;
}

/**
 * The uncompressed bytes of one member listed by listZip, checked against its size and CRC-32; with `keep` (for a
 * member's header), only its first min(keep, size) bytes, unchecked. `bytes` is checked to still hold `length`
 * bytes right before use (the caller may have detached its buffer during an earlier await); stored data is a view
 * of `bytes`, which the caller checks again with held() after its own await.
 * @returns {Promise<Uint8Array>}
 */
export async function readMember(bytes, length, member, keep = Infinity) {
  const { where, size, compressedSize, dataOffset } = member;
  if (size > MAX_MEMBER_BYTES && keep >= size) {
    throw badFile(
      where,
      `the member is ${size} bytes uncompressed, more than the largest array attention-wasm reads (${MAX_MEMBER_BYTES} bytes: MAX_CALL_BYTES of float32 from float64)`,
    );
  }
  if (member.method === 8 && size > compressedSize * MAX_DEFLATE_RATIO + 1024) {
    throw badFile(
      where,
      `${compressedSize} deflated bytes cannot inflate to the ${size} bytes the central directory states`,
    );
  }
  const stored = held(bytes, length, where).subarray(dataOffset, dataOffset + compressedSize);
  if (keep < size) {
    return member.method === 0 ? stored.subarray(0, keep) : inflate(stored, size, where, keep);
  }
  const data = member.method === 0 ? stored : await inflate(stored, size, where);
  const crc = crc32(data);
  if (crc !== member.crc) {
    throw badFile(
      where,
      `CRC-32 is ${crc.toString(16).padStart(8, '0')} but the central directory states ${member.crc.toString(16).padStart(8, '0')}`,
    );
  }
  return data;
}
