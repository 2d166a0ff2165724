#!/usr/bin/env bash
# Tests the demo page: unit tests of its pure modules (Vitest, Node), then the page itself in Chromium
# (tests/web/e2e/run.mjs). Assumes scripts/build.sh has built src/js/wasm and web/dist.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f web/dist/index.html ]; then
  echo "test-web: web/dist is missing; run bash scripts/build.sh first" >&2
  exit 1
fi
npx vitest run --project node tests/web/unit
node --test-reporter=spec tests/web/e2e/run.mjs
