#!/usr/bin/env bash
# Sets up and builds what is missing, then runs every layer of tests. Each stage runs even when an earlier
# one failed; the script ends with one line "tests: N passed, N failed" and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || exit 1
bash scripts/build.sh || exit 1

results=build/test-results
rm -rf "$results"
mkdir -p "$results"
failed_stages=()

# stage NAME COMMAND...: runs COMMAND with its output shown and kept in $results/NAME.log
stage() {
  local name=$1
  shift
  echo
  echo "=== $name: $*"
  if "$@" 2>&1 | tee "$results/$name.log"; then
    echo "=== $name: ok"
  else
    echo "=== $name: FAILED"
    failed_stages+=("$name")
  fi
}

stage native bash scripts/test-native.sh
stage types npx tsc -p tests/types/tsconfig.json
stage vitest npx vitest run --reporter=default --reporter=json --outputFile.json="$results/vitest.json"
stage package node --test tests/package/ tests/readme/
stage web node --test-reporter=spec tests/web/e2e/run.mjs   # the page in Chromium (its unit tests run with vitest)
if [ -f scripts/bench.sh ]; then stage bench-smoke env BENCH_QUICK=1 bash scripts/bench.sh; fi

# Counts of tests from each runner's own summary.
passed=0
failed=0
count() { passed=$((passed + ${1:-0})); failed=$((failed + ${2:-0})); }
for log in "$results"/*.log; do
  # ctest: "100% tests passed, 0 tests failed out of 212"
  while read -r fail total; do count $((total - fail)) "$fail"; done < <(
    sed -nE 's/.*tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1 \2/p' "$log")
  # node's test runner: "# pass 3" / "# fail 0" (or ℹ pass 3 with the spec reporter)
  count "$(sed -nE 's/^(#|ℹ) pass ([0-9]+)$/\2/p' "$log" | awk '{ s += $1 } END { print s + 0 }')" \
        "$(sed -nE 's/^(#|ℹ) fail ([0-9]+)$/\2/p' "$log" | awk '{ s += $1 } END { print s + 0 }')"
done
if [ -f "$results/vitest.json" ]; then
  count "$(node -p "require('./$results/vitest.json').numPassedTests")" \
        "$(node -p "require('./$results/vitest.json').numFailedTests")"
fi

echo
if ((${#failed_stages[@]})); then
  echo "failed stages: ${failed_stages[*]}"
  ((failed > 0)) || failed=${#failed_stages[@]}
fi
echo "tests: $passed passed, $failed failed"
((${#failed_stages[@]} == 0))
