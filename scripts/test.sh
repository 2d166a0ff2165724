#!/usr/bin/env bash
# Sets up and builds what is missing, then runs every layer of tests. Each stage runs even when an earlier one
# failed; the script ends with one line "tests: N passed, N failed" and exits non-zero on any failure.
# The counts come from each runner's machine-readable results (JUnit XML, Vitest's JSON) in build/test-results/,
# read by scripts/count-tests.mjs; a stage that failed without a failed test in its results counts as one failure.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || exit 1
bash scripts/build.sh || exit 1

results=build/test-results
rm -rf "$results"
mkdir -p "$results"
failed_stages=()
stage_times=()
passed=0
failed=0

# stage NAME COMMAND...: runs COMMAND with its output shown and kept in $results/NAME.log; its machine-readable
# results go to $results/NAME/ (the command is told so by $TEST_RESULTS or its own arguments).
stage() {
  local name=$1
  shift
  mkdir -p "$results/$name"
  echo
  echo "=== $name: $*"
  local status=0 started=$SECONDS
  TEST_RESULTS="$results/$name" "$@" 2>&1 | tee "$results/$name.log" || status=1
  account "$name" "$status" $((SECONDS - started))
}

# stage_beside NAME COMMAND...: starts a stage in the background, its output kept in $results/NAME.log only;
# stage_join NAME waits for it, then prints that log and counts it. The native stage compiles with both cores
# while the browser stages mostly keep one busy, so running them side by side shortens the whole run.
declare -A beside_pids
stage_beside() {
  local name=$1
  shift
  mkdir -p "$results/$name"
  echo
  echo "=== $name: $* (beside the next stages; its output follows when it ends)"
  (
    started=$SECONDS
    status=0
    TEST_RESULTS="$results/$name" "$@" >"$results/$name.log" 2>&1 </dev/null || status=1
    echo "$status $((SECONDS - started))" >"$results/$name.status"
  ) &
  beside_pids[$name]=$!
}
stage_join() {
  local name=$1 status=1 took=0
  wait "${beside_pids[$name]}"
  echo
  echo "=== $name (ran beside the stages above):"
  cat "$results/$name.log"
  [ -f "$results/$name.status" ] && read -r status took <"$results/$name.status"
  account "$name" "$status" "$took"
}

# account NAME STATUS SECONDS: adds a stage's counts from its machine-readable results to the totals.
account() {
  local name=$1 status=$2 took=$3
  stage_times+=("$name ${took}s")
  local stage_passed=0 stage_failed=0
  read -r stage_passed stage_failed < <(node scripts/count-tests.mjs "$results/$name" || echo "0 0")
  passed=$((passed + stage_passed))
  failed=$((failed + stage_failed))
  if ((status)); then
    echo "=== $name: FAILED (${took} s)"
    failed_stages+=("$name")
    ((stage_failed > 0)) || failed=$((failed + 1))
  else
    echo "=== $name: ok ($stage_passed passed, ${took} s)"
  fi
}

# node's test runner: the spec reporter on the terminal, JUnit for the counts; each test bounded by the timeout of
# tests/timeouts.mjs, so a hang fails its test instead of the whole run.
node_timeout=$(node -e "import('./tests/timeouts.mjs').then((m) => console.log(m.TEST_TIMEOUTS.node))")
node_test() {
  local name=$1
  shift
  node --test-timeout="$node_timeout" --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=junit --test-reporter-destination="$results/$name/junit.xml" "$@"
}

stage lint bash scripts/lint.sh # the house rules: Prettier, ESLint, clang-format, size limits
stage types npx tsc -p tests/types/tsconfig.json
stage vitest npx vitest run --reporter=default --reporter=json --outputFile.json="$results/vitest/vitest.json"
stage_beside native bash scripts/test-native.sh # compiles with both cores; the stages below mostly use one
stage package node_test package --test tests/package/ tests/readme/
stage bundlers node_test bundlers --test tests/bundlers/ # the packed package in webpack, Rollup, esbuild, Vite; Node, Bun, Deno
stage cdn node_test cdn --test tests/cdn/ # browser path import graph; the packed package from a second origin, CSPs
stage web node_test web tests/web/e2e/run.mjs # the page in Chromium (its unit tests run with vitest)
stage elements node_test elements tests/web/elements/run.mjs # the embeddable elements, raw files under a strict CSP
stage_join native
stage bench-smoke env BENCH_QUICK=1 bash scripts/bench.sh
stage bench-smoke-browser env BENCH_QUICK=1 bash scripts/bench.sh --browser --cases "2 heads × 33"
stage bench-smoke-model env BENCH_QUICK=1 bash scripts/bench.sh --model # a 2-layer GPT-2 against ORT and native
stage bench-smoke-family env BENCH_QUICK=1 bash scripts/bench.sh --model --family # 2-layer Pythia, Qwen3, GPT-2
stage bench-smoke-projected env BENCH_QUICK=1 bash scripts/bench.sh --projected # selfAttention with W_q/k/v/o against ORT

echo
echo "stage times: ${stage_times[*]} (total ${SECONDS} s with set-up and build)"
if ((${#failed_stages[@]})); then
  echo "failed stages: ${failed_stages[*]}"
  # the failed tests by name, here at the end where a log's tail shows them
  for name in "${failed_stages[@]}"; do
    node scripts/count-tests.mjs --failures "$results/$name" | sed "s/^/failed in $name: /"
  done
fi
echo "tests: $passed passed, $failed failed"
((${#failed_stages[@]} == 0))
