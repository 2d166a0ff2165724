#!/usr/bin/env bash
# The per-part profile of GPT-2-small's forward (bench/model/profile.cc): CPU time of each step of attention-wasm's
# forward as WebAssembly in Node (built here with the model module's flags: CMakeLists.txt's add_wasm_module) and
# natively, then onnxruntime-web's nodes of the same shapes (bench/model/ort-parts.mjs).
#   bash scripts/profile-model.sh [rounds]
#   bash scripts/profile-model.sh --gemm [rounds] [rows...]: the product alone instead (bench/model/gemm.cc): GFLOP/s
#   of linear() on GPT-2-small's shapes by number of rows, as WebAssembly in Node and natively.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/profile
mkdir -p "$out"
echo '{"type":"commonjs"}' >"$out/package.json" # the repo's "type": "module" would make Emscripten's output fail
# both NAME TITLE ARGS...: bench/model/NAME.cc built as WebAssembly with the model module's flags and natively (cmake
# target model_NAME), then each run with ARGS.
both() {
  local name=$1 title=$2
  shift 2
  NODE_PATH=/usr/share/nodejs em++ -std=c++17 -O3 -msimd128 -msse4.2 -fgnuc-version=5.99 -fexceptions -DEIGEN_MPL2_ONLY \
    -I src/bindings/sse-shim -I src/core -I /usr/include/eigen3 "bench/model/$name.cc" \
    src/core/{attention,gemm,kernels,row_groups,rope}.cc src/core/model/*.cc \
    -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB -sENVIRONMENT=node \
    -sBINARYEN_EXTRA_PASSES=--one-caller-inline-max-function-size=100 -o "$out/model_$name.js"
  cmake -S . -B build/bench-native -DCMAKE_BUILD_TYPE=Release -DATTENTION_TESTS=OFF >/dev/null
  cmake --build build/bench-native --target "model_$name" -j2 >/dev/null
  echo "$title, WebAssembly in Node $(node --version):"
  node --no-experimental-fetch "$out/model_$name.js" "$@"
  echo
  echo "$title, native (g++ -O3 -msse4.2):"
  "build/bench-native/model_$name" "$@"
}

if [ "${1:-}" = "--gemm" ]; then
  shift
  both gemm "linear() alone" "$@"
  exit 0
fi
rounds=${1:-5}
both profile attention-wasm "$rounds"
echo
echo "onnxruntime-web (wasm, 1 thread), one node at a time:"
node bench/model/ort-parts.mjs "$rounds"
