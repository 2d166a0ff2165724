#!/usr/bin/env node
// Prints the download size of each browser entry of the package, gzipped, as a Markdown table for the README:
//   - attention-wasm: the JS files its browser entry can import (static and dynamic imports, as esbuild follows
//     them; the scalar build's glue left out, since a SIMD engine never loads it) and attention-simd.wasm;
//   - attention-wasm/inline: the JS it reaches, the WebAssembly inside;
//   - attention-wasm/elements, when it exists: the same as the first line from the elements' entry, against its
//     budget of 150 kB.
// "As shipped" gzips each file on its own (as a CDN serves them); "bundled" is esbuild's minified bundle of the
// same entry (all chunks, both builds' glue), gzipped, plus the .wasm where the entry fetches it. kB = 1000 bytes.
// Run after npm run build: node scripts/sizes.mjs (--json for the numbers only).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const SIMD_WASM = 'src/js/wasm/attention-simd.wasm';
const OTHER_BUILD = 'src/js/wasm/attention-scalar.js';
const ELEMENTS_BUDGET = 150_000;

/** The browser file of an export: its browser, import or default condition, nested conditions followed. */
function browserTarget(entry) {
  if (typeof entry === 'string' || entry === undefined) return entry;
  const condition = ['browser', 'import', 'default'].find((c) => entry[c] !== undefined);
  return browserTarget(entry[condition]);
}

/** What `entry` costs: { files, shipped (gzipped, file by file), bundled (minified bundle, gzipped) }. */
async function measure(entry, withWasm) {
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
  const files = Object.keys(result.metafile.inputs).filter((f) => f !== OTHER_BUILD);
  if (withWasm) files.push(SIMD_WASM);
  const wasm = withWasm ? gz(readFileSync(join(root, SIMD_WASM))) : 0;
  const shipped = files.reduce((sum, f) => sum + gz(readFileSync(join(root, f))), 0);
  const bundled = result.outputFiles.reduce((sum, f) => sum + gz(f.contents), 0) + wasm;
  return { entry, files: files.length, shipped, bundled, wasm };
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
    const row = await measure(elements, true);
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
    console.log('| entry (browser) | files | as shipped, gzipped | bundled and minified, gzipped | of which .wasm |');
    console.log('|---|---|---|---|---|');
    for (const r of rows) {
      const budget = r.budget ? ` (budget ${kB(r.budget)}: ${r.shipped <= r.budget ? 'within' : 'OVER'})` : '';
      const wasm = r.wasm ? kB(r.wasm) : 'inside the JS';
      console.log(`| \`${r.name}\` | ${r.files} | ${kB(r.shipped)}${budget} | ${kB(r.bundled)} | ${wasm} |`);
    }
  }
  const over = rows.find((r) => r.budget && r.shipped > r.budget);
  if (over) process.exitCode = 1;
}
