// Writing a ZIP archive of stored (method 0, uncompressed) members, as Python's zipfile writes one for numpy.savez:
// a local header, the data, then the central directory and its end record. UTF-8 names (flag bit 11), a fixed date
// (1980-01-01) so that the same tensors give the same bytes, a CRC-32 per member. Offsets and sizes stay below
// 0xFFFFFFFF (the writers refuse larger files), so ZIP64 is needed only past 65 534 members: then the ZIP64 end of
// central directory record and its locator hold the count.
import { CENTRAL, EOCD, LOCAL, ZIP64_EOCD, ZIP64_LOCATOR, crc32 } from './zip.js';

const LOCAL_BYTES = 30;
const CENTRAL_BYTES = 46;
const EOCD_BYTES = 22;
const ZIP64_TAIL_BYTES = 56 + 20;
const UTF8_NAMES = 0x0800;
const DOS_DATE_1980 = 0x0021; // 1980-01-01, the earliest date a zip stores; time 00:00
const VERSION = 20; // 2.0: stored members, as zipfile writes them
const VERSION_ZIP64 = 45;
// A count of 0xFFFF or more does not fit the end record: Python's zipfile writes the ZIP64 record from there on.
const MAX_CLASSIC_COUNT = 0xffff;

/** The bytes of a zip of members `{ name: Uint8Array (UTF-8), size }`, stored. */
export function zipBytes(members) {
  let total = EOCD_BYTES + (members.length >= MAX_CLASSIC_COUNT ? ZIP64_TAIL_BYTES : 0);
  for (const { name, size } of members) total += LOCAL_BYTES + CENTRAL_BYTES + 2 * name.length + size;
  return total;
}

/**
 * Writes a stored zip into `out` (of exactly zipBytes(members) bytes): each member's `fill(data)` writes its `size`
 * bytes into `data`, a view of `out`, whose CRC-32 is then taken.
 * @param {Uint8Array} out
 * @param {{ name: Uint8Array, size: number, fill: (data: Uint8Array) => void }[]} members
 * @returns {Uint8Array} out
 */
export function writeZip(out, members) {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const u16 = (at, value) => view.setUint16(at, value, true);
  const u32 = (at, value) => view.setUint32(at, value, true);
  const u64 = (at, value) => view.setBigUint64(at, BigInt(value), true);
  // What a local header (from byte 4) and a central directory entry (from byte 6) share: version needed, flags,
  // method, time, date, CRC-32, compressed size, size, name length, extra field length.
  const header = (at, name, size, crc) => {
    [VERSION, UTF8_NAMES, 0, 0, DOS_DATE_1980].forEach((value, i) => u16(at + 2 * i, value));
    [crc, size, size].forEach((value, i) => u32(at + 10 + 4 * i, value));
    u16(at + 22, name.length);
    u16(at + 24, 0);
  };
  const entries = [];
  let at = 0;
  for (const { name, size, fill } of members) {
    const dataAt = at + LOCAL_BYTES + name.length;
    fill(out.subarray(dataAt, dataAt + size));
    const crc = crc32(out.subarray(dataAt, dataAt + size));
    u32(at, LOCAL);
    header(at + 4, name, size, crc);
    out.set(name, at + LOCAL_BYTES);
    entries.push({ name, size, crc, offset: at });
    at = dataAt + size;
  }
  const directory = at;
  for (const { name, size, crc, offset } of entries) {
    u32(at, CENTRAL);
    u16(at + 4, VERSION); // made by: MS-DOS attributes (none), version 2.0
    header(at + 6, name, size, crc);
    u16(at + 32, 0); // comment
    u16(at + 34, 0); // disk
    u16(at + 36, 0); // internal attributes
    u32(at + 38, 0); // external attributes
    u32(at + 42, offset);
    out.set(name, at + CENTRAL_BYTES);
    at += CENTRAL_BYTES + name.length;
  }
  const directoryBytes = at - directory;
  const count = entries.length;
  if (count >= MAX_CLASSIC_COUNT) {
    const record = at;
    u32(at, ZIP64_EOCD);
    u64(at + 4, 44); // the record's size after this field
    u16(at + 12, VERSION_ZIP64);
    u16(at + 14, VERSION_ZIP64);
    u32(at + 16, 0);
    u32(at + 20, 0);
    u64(at + 24, count);
    u64(at + 32, count);
    u64(at + 40, directoryBytes);
    u64(at + 48, directory);
    at += 56;
    u32(at, ZIP64_LOCATOR);
    u32(at + 4, 0);
    u64(at + 8, record);
    u32(at + 16, 1); // disks in all
    at += 20;
  }
  u32(at, EOCD);
  u16(at + 4, 0);
  u16(at + 6, 0);
  u16(at + 8, Math.min(count, MAX_CLASSIC_COUNT));
  u16(at + 10, Math.min(count, MAX_CLASSIC_COUNT));
  u32(at + 12, directoryBytes);
  u32(at + 16, directory);
  u16(at + 20, 0); // comment
  return out;
}
