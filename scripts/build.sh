#!/usr/bin/env bash
# Builds the WebAssembly module (SIMD and scalar variants, into src/js/wasm/), the demo page (web/dist/) and the
# documentation beside it (web/dist/docs/: the Markdown pages and the API reference from the .d.ts files).
# Incremental: a second run rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f build/wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm -j2
node scripts/gen-inline.mjs # src/js/inline.js (attention-wasm/inline) from the .wasm just built
npx vite build --config web/vite.config.js --logLevel warn
node scripts/docs/build.mjs
