#!/usr/bin/env node
// The post-link step of the WebAssembly build (CMakeLists.txt): minifies the Emscripten glue (attention-*.js) in place
// with esbuild. Emscripten 3.1.6 cannot run Closure here (its cache is read-only), and -O3 leaves the glue's names
// long: minifying takes the SIMD build's glue from 11.1 to 8.4 kB gzipped, which every page that loads the package
// downloads. The glue holds no eval or Function.toString (it is built with -sDYNAMIC_EXECUTION=0), so renaming its
// local names is safe; the loader's build checks and every test run against the minified files.
import { readFile, writeFile } from 'node:fs/promises';
import { transform } from 'esbuild';

for (const file of process.argv.slice(2)) {
  const source = await readFile(file, 'utf8');
  const { code } = await transform(source, { minify: true, format: 'esm', target: 'es2020', legalComments: 'none' });
  await writeFile(file, code);
}
