#!/usr/bin/env bash
# Native tests of the C++ core, each part run even when an earlier one failed:
#   GoogleTest + fuzz regressions under ctest in a Release build and in an ASan+UBSan build;
#   the GoogleTest suite of the scalar Vec4 twin (ATTENTION_NO_SIMD, the native build of the scalar WASM
#   module's kernels) under ASan+UBSan;
#   the libFuzzer target for FUZZ_SECONDS (default 60; 0 skips it).
# JUnit results go to TEST_RESULTS (default build/test-results/native), one file per part; the fuzz run is one
# test case there. Incremental: each build folder is configured once and later runs rebuild only what changed.
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
JOBS="${JOBS:-2}"
TEST_RESULTS="$(realpath -m "${TEST_RESULTS:-build/test-results/native}")"
mkdir -p "$TEST_RESULTS"
failed=()

# Configures a build folder unless an earlier configure completed there (a failed one leaves a cache but no
# Makefile, so it is retried).
configure_once() {
  local dir="$1"
  shift
  if [ ! -f "$dir/CMakeCache.txt" ] || [ ! -f "$dir/Makefile" ]; then
    cmake -S . -B "$dir" "$@" >/dev/null
  fi
}

# part NAME DIR TARGETS CTEST_EXCLUDE CMAKE_ARGS...: configures, builds TARGETS (all when empty) and runs ctest.
part() {
  local name=$1 dir=$2 target=$3 exclude=$4
  shift 4
  echo "== $name =="
  configure_once "$dir" "$@" || { failed+=("$name"); return; }
  # shellcheck disable=SC2086 # TARGETS: one or more names
  cmake --build "$dir" -j "$JOBS" ${target:+--target $target} || { failed+=("$name"); return; }
  ctest --test-dir "$dir" --output-on-failure -j "$JOBS" --output-junit "$TEST_RESULTS/$name.xml" \
    ${exclude:+--exclude-regex "$exclude"} || failed+=("$name")
}

part release build/native "" "" -DCMAKE_BUILD_TYPE=Release
part asan build/native-asan "" "" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTENTION_SANITIZE=ON
# Lean: the GoogleTest binaries only (the fuzz regressions run in the two builds above).
part scalar-asan build/native-scalar-asan 'attention_tests model_scratch_tests' '^fuzz_regressions$' -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DATTENTION_SANITIZE=ON -DATTENTION_NO_SIMD=ON

# One JUnit test case for the fuzz run: failed with the log's tail when libFuzzer found an input or did not run.
fuzz() {
  echo "== libFuzzer, ${FUZZ_SECONDS} s =="
  local status=0
  configure_once build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$(command -v clang++)" \
    -DATTENTION_FUZZ=ON -DATTENTION_TESTS=OFF || status=1
  ((status)) || cmake --build build/fuzz -j "$JOBS" --target attention_fuzz || status=1
  # New inputs go to build/fuzz/corpus; tests/fuzz/corpus is only read. A crash is written to
  # build/fuzz/artifacts/: copy it into tests/fuzz/regressions/ along with the fix.
  mkdir -p build/fuzz/corpus build/fuzz/artifacts
  : >build/fuzz/last-run.log
  ((status)) || build/fuzz/attention_fuzz -max_total_time="$FUZZ_SECONDS" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/artifacts/ build/fuzz/corpus tests/fuzz/corpus 2>build/fuzz/last-run.log || status=1
  local runs speed
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' build/fuzz/last-run.log)"
  speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' build/fuzz/last-run.log)"
  local failure=""
  if ((status)) || [ -z "$runs" ]; then
    tail -n 60 build/fuzz/last-run.log
    echo "libFuzzer failed or found a failing input: see build/fuzz/artifacts/ and build/fuzz/last-run.log"
    failure='<failure message="libFuzzer failed or found a failing input (build/fuzz/artifacts/)"/>'
    failed+=(fuzz)
  else
    echo "fuzz: ${runs} inputs in ${FUZZ_SECONDS} s (${speed} exec/s), no failure"
  fi
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="libFuzzer" tests="1">\n<testcase name="attention_fuzz for %s s (%s inputs)">%s</testcase>\n</testsuite>\n' \
    "$FUZZ_SECONDS" "${runs:-0}" "$failure" >"$TEST_RESULTS/fuzz.xml"
}
if [ "$FUZZ_SECONDS" -gt 0 ]; then fuzz; fi

if ((${#failed[@]})); then
  echo "test-native: failed: ${failed[*]}"
  exit 1
fi
