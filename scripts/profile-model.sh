#!/usr/bin/env bash
# The per-part profile of GPT-2-small's forward (bench/model/profile.cc): CPU time of each step of attention-wasm's
# forward as WebAssembly in Node (built here with the model module's flags: CMakeLists.txt's add_wasm_module) and
# natively, then onnxruntime-web's nodes of the same shapes (bench/model/ort-parts.mjs).
#   bash scripts/profile-model.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
out=build/profile
mkdir -p "$out"
echo '{"type":"commonjs"}' >"$out/package.json" # the repo's "type": "module" would make Emscripten's output fail
NODE_PATH=/usr/share/nodejs em++ -std=c++17 -O3 -msimd128 -msse4.2 -fgnuc-version=5.99 -fexceptions -DEIGEN_MPL2_ONLY \
  -I src/bindings/sse-shim -I src/core -I /usr/include/eigen3 bench/model/profile.cc src/core/{attention,gemm,kernels,row_groups,rope}.cc src/core/model/*.cc \
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sENVIRONMENT=node \
  -sBINARYEN_EXTRA_PASSES=--one-caller-inline-max-function-size=100 -o "$out/model_profile.js"
cmake -S . -B build/bench-native -DCMAKE_BUILD_TYPE=Release -DATTENTION_TESTS=OFF >/dev/null
cmake --build build/bench-native --target model_profile -j2 >/dev/null
echo "attention-wasm, WebAssembly in Node $(node --version):"
node --no-experimental-fetch "$out/model_profile.js" "$rounds"
echo
echo "attention-wasm, native (g++ -O3 -msse4.2):"
build/bench-native/model_profile "$rounds"
echo
echo "onnxruntime-web (wasm, 1 thread), one node at a time:"
node bench/model/ort-parts.mjs "$rounds"
