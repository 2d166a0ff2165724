#!/usr/bin/env node
// Prints the download size of each browser entry of the package, gzipped, as a Markdown table for the README:
//   - attention-wasm: what a page loads to compute on its own thread (what the entry imports, the SIMD build's glue
//     included, and attention-simd.wasm), each file gzipped on its own as a CDN serves them; what it imports only
//     when asked (workers, file reading); esbuild's minified bundle of it all, gzipped, with the .wasm;
//   - attention-wasm/inline: the same, the WebAssembly (both builds) inside the JS;
//   - attention-wasm/elements, when it exists: as the first line from the elements' entry, against the budget of
//     150 kB for what it loads (exit code 1 over it).
// kB = 1000 bytes; gzip -9. Run after npm run build: node scripts/sizes.mjs (--json for the numbers only).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const SIMD_WASM = 'src/js/wasm/attention-simd.wasm';
// What a page imports only when it asks for it: workers, prepared layers, file reading, the inline fallback, the other build.
const ON_DEMAND = [
  'src/js/parallel.js',
  'src/js/layer.js',
  'src/js/io/index.js',
  'src/js/inline.js',
  'src/js/wasm/attention-scalar.js',
];
// 150 kB (issue 11). It was 155 kB for a while (151.6 kB loaded, once the elements read links counted from 0 and marked
// heads switched off); back under 150 kB since the link table (shared/link.js) and the counting rules
// (shared/counting.js) load only for the attributes and methods that need them.
const ELEMENTS_BUDGET = 150_000;

/** The browser file of an export: its browser, import or default condition, nested conditions followed. */
function browserTarget(entry) {
  if (typeof entry === 'string' || entry === undefined) return entry;
  const condition = ['browser', 'import', 'default'].find((c) => entry[c] !== undefined);
  return browserTarget(entry[condition]);
}

/**
 * The files `from` reaches in esbuild's metafile, without entering the files of ON_DEMAND: by any import, or with
 * `staticOnly` by import statements alone (the elements load each lesson's model and the API dynamically).
 */
function reached(inputs, from, staticOnly = false) {
  const seen = new Set();
  const queue = [from];
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file) || !inputs[file] || (file !== from && ON_DEMAND.includes(file))) continue;
    seen.add(file);
    for (const edge of inputs[file].imports) if (!staticOnly || edge.kind === 'import-statement') queue.push(edge.path);
  }
  return seen;
}

/**
 * What `entry` costs: { files, loaded, onDemand, bundled, wasm }. `loaded`: the files a page loads to compute on
 * its own thread (all it imports but ON_DEMAND; the SIMD build's glue included), each gzipped on its own, with
 * the .wasm; `onDemand`: the files it imports only when asked (workers, file reading, the inline fallback), the
 * other build's glue left out; `bundled`: esbuild's minified bundle of everything, gzipped, with the .wasm.
 */
async function measure(entry, withWasm, { api } = {}) {
  const result = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    splitting: true,
    minify: true,
    outdir: join(root, 'build/sizes'),
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: root,
  });
  const { inputs } = result.metafile;
  // With `api` (the elements): their own static imports, plus what the main entry loads, which they import.
  const loaded = api
    ? new Set([...reached(inputs, entry.replace(/^\.\//, ''), true), ...reached(inputs, api.replace(/^\.\//, ''))])
    : reached(inputs, entry.replace(/^\.\//, ''));
  const onDemand = Object.keys(inputs).filter((f) => !loaded.has(f) && !f.endsWith('attention-scalar.js'));
  const size = (files) => files.reduce((sum, f) => sum + gz(readFileSync(join(root, f))), 0);
  const wasm = withWasm ? gz(readFileSync(join(root, SIMD_WASM))) : 0;
  const bundled = result.outputFiles.reduce((sum, f) => sum + gz(f.contents), 0) + wasm;
  return {
    entry,
    files: loaded.size + (withWasm ? 1 : 0),
    loaded: size([...loaded]) + wasm,
    onDemand: size(onDemand),
    bundled,
    wasm,
  };
}

export async function sizes() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const rows = [];
  const main = browserTarget(pkg.exports['.']);
  rows.push({ name: 'attention-wasm', ...(await measure(main, true)) });
  const inline = browserTarget(pkg.exports['./inline']);
  if (inline) rows.push({ name: 'attention-wasm/inline', ...(await measure(inline, false)) });
  const elements = browserTarget(pkg.exports['./elements']) ?? './web/src/elements/index.js';
  if (existsSync(join(root, elements))) {
    const row = await measure(elements, true, { api: main });
    rows.push({ name: 'attention-wasm/elements', ...row, budget: ELEMENTS_BUDGET });
  }
  return rows;
}

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await sizes();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(rows, null, 2));
  } else {
    console.log(
      '| entry (browser) | loaded to compute, gzipped | more on demand | bundled and minified | of which .wasm |',
    );
    console.log('|---|---|---|---|---|');
    for (const r of rows) {
      const budget = r.budget ? `; budget ${kB(r.budget)}: ${r.loaded <= r.budget ? 'within' : 'OVER'}` : '';
      const wasm = r.wasm ? kB(r.wasm) : 'inside the JS';
      const loaded = `${kB(r.loaded)} (${r.files} ${r.files === 1 ? 'file' : 'files'}${budget})`;
      console.log(`| \`${r.name}\` | ${loaded} | ${kB(r.onDemand)} | ${kB(r.bundled)} | ${wasm} |`);
    }
  }
  const over = rows.find((r) => r.budget && r.loaded > r.budget);
  if (over) process.exitCode = 1;
}
