#!/usr/bin/env node
// The post-link step of the WebAssembly build (CMakeLists.txt): writes the license notice (LICENSE, then
// THIRD_PARTY_NOTICES.txt) into each .wasm file named on the command line, as a custom section named "license"
// at the end of the module, replacing one that is already there. It runs after linking because the optimizer
// (wasm-opt, run by the -O3 link) drops custom sections. Engines skip custom sections: WebAssembly.validate and
// the module's behaviour are unchanged. `--check` exits 1 when a file lacks the current notice.
// The section functions need no Node built-in, so tests and scripts import them.

export const SECTION = 'license';
const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]; // \0asm, version 1

function uleb(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

/** An unsigned LEB128 number at `at`: [value, the byte after it]. */
export function readUleb(bytes, at) {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= bytes.length) break;
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    if (!(byte & 0x80)) return [value, at];
  }
  throw new Error(`a malformed LEB128 number at byte ${at}`);
}

/** The module's sections in order: { id, start, end, name (custom sections only), payload: [from, to] }. */
export function sections(bytes) {
  if (bytes.length < 8 || HEADER.some((b, i) => bytes[i] !== b)) throw new Error('not a WebAssembly module');
  const list = [];
  let at = 8;
  while (at < bytes.length) {
    const start = at;
    const id = bytes[at++];
    let size;
    [size, at] = readUleb(bytes, at);
    const end = at + size;
    if (end > bytes.length) throw new Error(`section ${id} at byte ${start} runs past the end`);
    const section = { id, start, end, payload: [at, end] };
    if (id === 0) {
      const [length, from] = readUleb(bytes, at);
      section.name = new TextDecoder().decode(bytes.subarray(from, from + length));
      section.payload = [from + length, end];
    }
    list.push(section);
    at = end;
  }
  return list;
}

/** The text of the custom section `name`, or null when the module has none. */
export function customSectionText(bytes, name = SECTION) {
  const section = sections(bytes).find((s) => s.id === 0 && s.name === name);
  return section ? new TextDecoder().decode(bytes.subarray(...section.payload)) : null;
}

/** The module with its custom sections `name` removed and one holding `text` appended. */
export function withCustomSection(bytes, text, name = SECTION) {
  const kept = sections(bytes).filter((s) => !(s.id === 0 && s.name === name));
  const encodedName = new TextEncoder().encode(name);
  const payload = [...uleb(encodedName.length), ...encodedName, ...new TextEncoder().encode(text)];
  const parts = [Uint8Array.from(HEADER), ...kept.map((s) => bytes.subarray(s.start, s.end))];
  parts.push(Uint8Array.from([0, ...uleb(payload.length), ...payload]));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The notice, from the files at the root of the repository (or of the unpacked package). */
export async function noticeText(root) {
  const { readFile } = await import('node:fs/promises');
  const read = (name) => readFile(new URL(name, root), 'utf8');
  return `${await read('LICENSE')}\n\n${await read('THIRD_PARTY_NOTICES.txt')}`;
}

async function main(args) {
  const { readFile, writeFile } = await import('node:fs/promises');
  const check = args.includes('--check');
  const files = args.filter((a) => a !== '--check');
  const text = await noticeText(new URL('../', import.meta.url));
  let stale = 0;
  for (const file of files) {
    const bytes = new Uint8Array(await readFile(file));
    if (check) {
      if (customSectionText(bytes) !== text) {
        console.error(`${file}: no current "${SECTION}" section (rebuild: npm run build)`);
        stale++;
      }
    } else {
      await writeFile(file, withCustomSection(bytes, text));
    }
  }
  process.exitCode = stale ? 1 : 0;
}

if (globalThis.process?.argv?.[1] && import.meta.url.endsWith(globalThis.process.argv[1].split(/[\\/]/).pop())) {
  await main(process.argv.slice(2));
}
