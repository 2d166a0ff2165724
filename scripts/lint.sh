#!/usr/bin/env bash
# npm run lint: Prettier and ESLint over the JS, clang-format over the C++, no import circle among the project's
# modules (scripts/check-imports.mjs), no family or model_type compared outside src/js/model/families/
# (scripts/check-families.mjs), and the house limit of 500 lines per C++ or CSS file (ESLint's max-lines
# holds JS files to 400). Every check runs; the exit code is non-zero when any failed.
# bash scripts/lint.sh --write (npm run format) rewrites the files in Prettier's and clang-format's style instead.
set -uo pipefail
cd "$(dirname "$0")/.."

# The project's own files, committed or new (ignored ones excluded), that exist in the work tree.
files() { git ls-files -co --exclude-standard -- "$@" | while read -r f; do [ -f "$f" ] && echo "$f"; done; }
mapfile -t js < <(files '*.js' '*.mjs' '*.cjs' '*.ts' '*.json' ':!package-lock.json' ':!bench/results.json' ':!bench/results-browser.json')
mapfile -t cpp < <(files '*.cc' '*.h')
mapfile -t css < <(files '*.css')

if [ "${1:-}" = "--write" ]; then
  npx prettier --log-level warn --write "${js[@]}"
  clang-format -i "${cpp[@]}"
  exit
fi

failed=()
check() {
  local name=$1
  shift
  "$@" || failed+=("$name")
}

check prettier npx prettier --log-level warn --check "${js[@]}"
check eslint npx eslint --max-warnings 0 .
check clang-format clang-format --dry-run -Werror --ferror-limit=1 "${cpp[@]}"
check imports node scripts/check-imports.mjs
check families node scripts/check-families.mjs
check line-count awk 'FNR == 501 { print FILENAME ": over 500 lines (the house limit for C++ and CSS)"; bad = 1 }
  END { exit bad }' "${cpp[@]}" "${css[@]}"

if ((${#failed[@]})); then
  echo "lint: failed: ${failed[*]} (npm run format fixes Prettier's and clang-format's findings)"
  exit 1
fi
echo "lint: ok"
