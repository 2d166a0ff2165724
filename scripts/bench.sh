#!/usr/bin/env bash
# npm run bench: builds the WASM module and the native bench of the core, then runs bench/run.mjs.
#   bash scripts/bench.sh [--quick] [run.mjs options]     (BENCH_QUICK=1 is the same as --quick)
#   bash scripts/bench.sh --browser [--quick] [browser.mjs options]: the same cases in headless Chromium
#   (npm run bench:browser), with bench/browser.mjs; no native build.
#   bash scripts/bench.sh --model [--quick] [--browser] [bench/model/run.mjs options]: the model bench (npm run
#   bench:model): GPT-2's forward against onnxruntime-web and the same C++ built natively; with --family, forwards of
#   Pythia-160M- and Qwen3-0.6B-shaped checkpoints against GPT-2 small's, per parameter (bench/model/families.mjs).
#   bash scripts/bench.sh --projected [--quick] [projected.mjs options]: selfAttention with its projections against
#   onnxruntime-web's graph of the same, 1 thread (npm run bench:projected; bench/projected.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."

# The module only, as in scripts/build.sh (the demo page is not needed here).
if [ ! -f build/wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build/wasm -j2 >/dev/null

if [ "${1:-}" = "--model" ]; then
  shift
  # --family: Pythia- and Qwen3-shaped checkpoints against GPT-2 small's (bench/model/families.mjs): no native driver
  for arg in "$@"; do [ "$arg" = "--family" ] && exec node bench/model/run.mjs "$@"; done
  cmake -S . -B build/bench-native -DCMAKE_BUILD_TYPE=Release -DATTENTION_TESTS=OFF >/dev/null
  cmake --build build/bench-native --target model_native_bench -j2 >/dev/null
  exec node bench/model/run.mjs --native build/bench-native/model_native_bench "$@"
fi

if [ "${1:-}" = "--projected" ]; then
  shift
  exec node bench/projected.mjs "$@"
fi

if [ "${1:-}" = "--browser" ]; then
  shift
  exec node bench/browser.mjs "$@"
fi

cmake -S . -B build/bench-native -DCMAKE_BUILD_TYPE=Release -DATTENTION_TESTS=OFF >/dev/null
cmake --build build/bench-native --target attention_native_bench -j2 >/dev/null

node bench/run.mjs --native build/bench-native/attention_native_bench "$@"
