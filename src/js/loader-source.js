// Which .wasm a createAttention call runs, and its compiled WebAssembly.Module: `wasmUrl` read and checked, resolved
// for one build, and compiled once per page (one Module per URL and build, or per bytes, however many
// createAttention calls and workers use it). Streams the compile where the server sends application/wasm.
import { AttentionError, describe } from './errors.js';
import { platform } from './platform.js';
import { readRecord, readUrl } from './read.js';
import { WASM_FILES } from './wasm-files.js';

const BUILDS = ['simd', 'scalar'];

/**
 * One source of a .wasm: { location } (a URL or, in Node, a file path, as given), { bytes } or { module }; undefined
 * when `value` is none of these.
 */
function readSource(value) {
  if (typeof value === 'string') return { location: value };
  if (value instanceof WebAssembly.Module) return { module: value };
  if (value instanceof ArrayBuffer) return { bytes: new Uint8Array(value) };
  if (ArrayBuffer.isView(value)) return { bytes: new Uint8Array(value.buffer, value.byteOffset, value.byteLength) };
  try {
    return { location: readUrl(value, 'wasmUrl') };
  } catch {
    return undefined;
  }
}

const badOption = (what, value) =>
  new AttentionError(
    'BAD_OPTION',
    `${what} must be a string or a URL, the .wasm's bytes (an ArrayBuffer or Uint8Array), a compiled WebAssembly.Module, or { simd, scalar } of those; got ${describe(value)}`,
  );

/**
 * createAttention's `wasmUrl`, checked: undefined, or { simd?, scalar? } sources (one source serves both builds).
 * BAD_OPTION for anything else.
 */
export function readWasmOption(value) {
  if (value === undefined) return undefined;
  const one = readSource(value);
  if (one) return { simd: one, scalar: one };
  if (value === null || typeof value !== 'object') throw badOption('wasmUrl', value);
  const builds = readRecord(value, 'wasmUrl', BUILDS, 'build');
  const option = {};
  for (const build of BUILDS) {
    if (builds[build] === undefined) continue;
    option[build] = readSource(builds[build]);
    if (!option[build]) throw badOption(`wasmUrl.${build}`, builds[build]);
  }
  if (Object.keys(option).length === 0) throw badOption('wasmUrl', value);
  return option;
}

/** A location as a URL: a Node file path, or a URL resolved against the page. LOAD_FAILED if it is neither. */
function locate(location) {
  const file = platform.toUrl?.(location);
  if (file) return file;
  const base = globalThis.location?.href;
  try {
    return new URL(location, base);
  } catch (cause) {
    const why =
      base === undefined
        ? "it is not an absolute URL, and there is no page location to resolve it against (in Node, import the package by name, which accepts file paths, or pass an absolute file: or http: URL, e.g. new URL('./x.wasm', import.meta.url))"
        : `it is not a URL, even relative to ${base}`;
    throw new AttentionError('LOAD_FAILED', `wasmUrl ${JSON.stringify(location)} cannot be used: ${why}`, { cause });
  }
}

const loadFailed = (message, cause) => new AttentionError('LOAD_FAILED', message, { cause });

/** The way round a CSP that forbids fetching the .wasm (attention-wasm/model, which has no inline build, drops it). */
export const INLINE_ADVICE = ', or import attention-wasm/inline, which fetches nothing';

/** Why a fetch of `url` may have failed, and what to do: the page's CSP, or a server that is not there. */
function fetchHint(url) {
  const origin = globalThis.location?.origin;
  if (origin !== undefined && url.origin !== origin) {
    return `; if the page has a Content-Security-Policy, its connect-src must allow ${url.origin}${INLINE_ADVICE}`;
  }
  return '';
}

async function fetchModule(url) {
  if (url.protocol === 'file:') {
    if (!platform.readFile) {
      throw loadFailed(
        `${url.href} is a file, and files are read only by the Node entry: in Node, import 'attention-wasm' by name (or src/js/index.node.js), not src/js/index.js`,
      );
    }
    let bytes;
    try {
      bytes = await platform.readFile(url);
    } catch (cause) {
      throw loadFailed(`could not read the WebAssembly module ${url.href}: ${cause?.message ?? cause}`, cause);
    }
    return compileBytes(bytes, url.href);
  }
  let response;
  try {
    response = await fetch(url);
  } catch (cause) {
    throw loadFailed(
      `could not fetch the WebAssembly module ${url.href}: ${cause?.message ?? cause}${fetchHint(url)}`,
      cause,
    );
  }
  if (!response.ok) {
    throw loadFailed(
      `could not fetch the WebAssembly module ${url.href}: HTTP ${response.status} ${response.statusText}`.trim(),
    );
  }
  const type = (response.headers.get('Content-Type') ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/wasm' && typeof WebAssembly.compileStreaming === 'function') {
    try {
      return await WebAssembly.compileStreaming(response);
    } catch (cause) {
      throw loadFailed(
        `${url.href} is not a WebAssembly module this engine can compile: ${cause?.message ?? cause}`,
        cause,
      );
    }
  }
  return compileBytes(new Uint8Array(await response.arrayBuffer()), url.href);
}

async function compileBytes(bytes, from) {
  try {
    return await WebAssembly.compile(bytes);
  } catch (cause) {
    throw loadFailed(`${from} is not a WebAssembly module this engine can compile: ${cause?.message ?? cause}`, cause);
  }
}

// The compiled Modules of this page (or worker, or Node process): by URL and build, and by the bytes given.
const byKey = new Map();
const byBytes = new WeakMap();

/** `compile()` once per key; a failure is forgotten, so that a later call may try again. */
function cached(cache, key, compile) {
  let promise = cache.get(key);
  if (!promise) {
    promise = compile();
    cache.set(key, promise);
    promise.catch(() => cache.delete(key));
  }
  return promise;
}

/**
 * The compiled module of `build` ('simd' or 'scalar') from `option` (readWasmOption's), or from next to this
 * package (or inlined, in attention-wasm/inline) where the option names none for this build.
 * @returns {Promise<{ module: WebAssembly.Module, from: string }>}  `from` names the source, for messages
 */
export async function compileWasm(build, option) {
  const source = option?.[build] ?? packaged(build);
  if (source.module) return { module: source.module, from: 'the WebAssembly.Module given as wasmUrl' };
  if (source.inline) {
    const from = `attention-wasm/inline's ${build} build`;
    return { module: await cached(byKey, `inline:${build}`, () => compileBytes(source.inline, from)), from };
  }
  if (source.bytes) {
    const { bytes } = source;
    const from = `the ${bytes.byteLength} bytes given as wasmUrl`;
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const module = whole ? cached(byBytes, bytes.buffer, () => compileBytes(bytes, from)) : compileBytes(bytes, from);
    return { module: await module, from };
  }
  const url = locate(String(source.location));
  return { module: await cached(byKey, `${build} ${url.href}`, () => fetchModule(url)), from: url.href };
}

/** This package's own .wasm of `build`: a URL next to it, or the bytes where attention-wasm/inline holds them. */
function packaged(build) {
  const file = WASM_FILES[build]();
  return file instanceof URL ? { location: file.href } : { inline: file };
}
