#!/usr/bin/env node
// npm's prepublishOnly: refuses to publish a package whose WebAssembly is missing or stale. It checks, in the
// repository (or the folder given as the first argument):
//   - both builds' .js and .wasm exist, those of attention-wasm/model's module too, and each is newer than every
//     source of the module (src/core, src/bindings, CMakeLists.txt, the notice files and the post-link script);
//   - src/js/generated/{abi,model-abi}.{js,d.ts} are what scripts/gen-constants.mjs makes of src/core/abi.h;
//   - each .wasm holds the current license notice (scripts/wasm-notice.mjs), and src/js/inline.js holds each
//     .wasm of the main module as it is;
//   - each build loads through the package itself and is the build it claims to be, compiled from the same
//     abi.h (the loader's own check: its kernel backend, constants and call descriptor layout);
//   - package.json's files hold exactly the files of web/src the elements ship, from their import graph, and its
//     sideEffects name files that exist (scripts/shipped-files.mjs).
// Prints what is wrong and exits 1; prints one line and exits 0 when all is well.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseAbi, render } from './gen-constants.mjs';
import { customSectionText, noticeText } from './wasm-notice.mjs';
import { shippedFileProblems } from './shipped-files.mjs';

const VARIANTS = ['simd', 'scalar'];
const MODULES = ['attention', 'model']; // the main module and attention-wasm/model's
const INLINE = 'src/js/inline.js'; // attention-wasm/inline, with both .wasm inside (scripts/gen-inline.mjs)
const SOURCES = [
  'src/core',
  'src/bindings',
  'CMakeLists.txt',
  'LICENSE',
  'THIRD_PARTY_NOTICES.txt',
  'scripts/wasm-notice.mjs',
];

/** Every file under `path` (or `path` itself), with its modification time. */
async function filesOf(root, path) {
  const full = join(root, path);
  const info = await stat(full).catch(() => null);
  if (!info) return [];
  if (!info.isDirectory()) return [{ path, mtime: info.mtimeMs }];
  const entries = await readdir(full, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return Promise.all(files.map(async (f) => ({ path: relative(root, f), mtime: (await stat(f)).mtimeMs })));
}

/** The file that Node's `import` of the package resolves to, from the exports' conditions. */
function nodeEntry(target) {
  if (typeof target === 'string') return target;
  const condition = ['node', 'import', 'default'].find((c) => c in target);
  return nodeEntry(target[condition]);
}

/** What is wrong with the build in `root`, as sentences; empty when it may be published. */
export async function releaseProblems(root) {
  const problems = shippedFileProblems(root);
  const built = [];
  for (const build of MODULES.flatMap((module) => VARIANTS.map((variant) => `${module}-${variant}`))) {
    for (const ext of ['js', 'wasm']) {
      const path = `src/js/wasm/${build}.${ext}`;
      const info = await stat(join(root, path)).catch(() => null);
      if (info) built.push({ path, mtime: info.mtimeMs });
      else problems.push(`${path} is missing: run npm run build`);
    }
  }
  const sources = (await Promise.all(SOURCES.map((s) => filesOf(root, s)))).flat();
  for (const output of built) {
    const newer = sources.filter((s) => s.mtime > output.mtime).map((s) => s.path);
    if (newer.length) problems.push(`${output.path} is older than ${newer.join(', ')}: run npm run build`);
  }

  // inline.js is made from the JS of src/js (not io/) and both builds (scripts/gen-inline.mjs).
  const inlineInfo = await stat(join(root, INLINE)).catch(() => null);
  if (inlineInfo) {
    const madeFrom = [...(await filesOf(root, 'src/js/wasm')), ...(await filesOf(root, 'src/js/generated'))];
    for (const name of await readdir(join(root, 'src/js'))) {
      if (name.endsWith('.js') && name !== 'inline.js') madeFrom.push(...(await filesOf(root, `src/js/${name}`)));
    }
    const newer = madeFrom.filter((s) => s.mtime > inlineInfo.mtimeMs).map((s) => s.path);
    if (newer.length) problems.push(`${INLINE} is older than ${newer.join(', ')}: run npm run build`);
  }

  const { js, dts, modelJs, modelDts } = render(parseAbi(await readFile(join(root, 'src/core/abi.h'), 'utf8')));
  for (const [path, text] of [
    ['src/js/generated/abi.js', js],
    ['src/js/generated/abi.d.ts', dts],
    ['src/js/generated/model-abi.js', modelJs],
    ['src/js/generated/model-abi.d.ts', modelDts],
  ]) {
    const onDisk = await readFile(join(root, path), 'utf8').catch(() => null);
    if (onDisk !== text) problems.push(`${path} does not match src/core/abi.h: run npm run build`);
  }
  if (problems.length) return problems; // loading a stale or missing build tells nothing more

  const notice = await noticeText(pathToFileURL(`${root}/`));
  const inline = await readFile(join(root, INLINE), 'latin1').catch(() => null);
  if (inline === null) problems.push(`${INLINE} is missing: run npm run build`);
  for (const build of MODULES.flatMap((module) => VARIANTS.map((variant) => `${module}-${variant}`))) {
    const path = `src/js/wasm/${build}.wasm`;
    const bytes = await readFile(join(root, path));
    if (customSectionText(new Uint8Array(bytes)) !== notice) {
      problems.push(`${path} lacks the current license notice: run npm run build`);
    }
    if (build.startsWith('attention') && inline !== null && !inline.includes(bytes.toString('base64'))) {
      problems.push(`${INLINE} does not hold ${path} as built: run npm run build`);
    }
  }
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  const { createAttention } = await import(pathToFileURL(join(root, nodeEntry(pkg.exports['.']))).href);
  for (const variant of VARIANTS) {
    try {
      const attn = await createAttention({ simd: variant === 'simd' });
      if (attn.simd !== (variant === 'simd')) problems.push(`the ${variant} build reports simd: ${attn.simd}`);
    } catch (error) {
      problems.push(`the ${variant} build does not load: ${error.message}`);
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
  const problems = await releaseProblems(root);
  for (const problem of problems) console.error(`prepublish: ${problem}`);
  if (problems.length) process.exit(1);
  console.log('prepublish: both WebAssembly builds are present, current and load');
}
