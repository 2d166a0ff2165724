#!/usr/bin/env bash
# Native tests of the C++ core: GoogleTest + fuzz regressions under ctest in a Release build and in an
# ASan+UBSan build, then the libFuzzer target for FUZZ_SECONDS (default 60; 0 skips it).
# Incremental: each build folder is configured once and later runs rebuild only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
JOBS="${JOBS:-2}"

# Configures a build folder unless an earlier configure completed there (a failed one leaves a cache but no
# Makefile, so it is retried).
configure_once() {
  local dir="$1"
  shift
  if [ ! -f "$dir/CMakeCache.txt" ] || [ ! -f "$dir/Makefile" ]; then
    cmake -S . -B "$dir" "$@" >/dev/null
  fi
}

echo "== native (Release) =="
configure_once build/native -DCMAKE_BUILD_TYPE=Release
cmake --build build/native -j "$JOBS"
ctest --test-dir build/native --output-on-failure -j "$JOBS"

echo "== native under AddressSanitizer + UndefinedBehaviorSanitizer =="
configure_once build/native-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTENTION_SANITIZE=ON
cmake --build build/native-asan -j "$JOBS"
ctest --test-dir build/native-asan --output-on-failure -j "$JOBS"

if [ "$FUZZ_SECONDS" -gt 0 ]; then
  echo "== libFuzzer, ${FUZZ_SECONDS} s =="
  configure_once build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$(command -v clang++)" \
    -DATTENTION_FUZZ=ON
  cmake --build build/fuzz -j "$JOBS" --target attention_fuzz
  # New inputs go to build/fuzz/corpus; tests/fuzz/corpus is only read. A crash is written to
  # build/fuzz/artifacts/: copy it into tests/fuzz/regressions/ along with the fix.
  mkdir -p build/fuzz/corpus build/fuzz/artifacts
  build/fuzz/attention_fuzz -max_total_time="$FUZZ_SECONDS" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/artifacts/ build/fuzz/corpus tests/fuzz/corpus 2>build/fuzz/last-run.log || {
    tail -n 60 build/fuzz/last-run.log
    echo "libFuzzer found a failing input: see build/fuzz/artifacts/"
    exit 1
  }
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' build/fuzz/last-run.log)"
  speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' build/fuzz/last-run.log)"
  echo "fuzz: ${runs} inputs in ${FUZZ_SECONDS} s (${speed} exec/s), no failure"
fi
