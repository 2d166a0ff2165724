#!/usr/bin/env bash
# Sets up and builds what is missing, then serves the demo page (static files in web/dist) and prints its URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
port="${PORT:-8080}"
exec npx vite preview --config web/vite.config.js --port "$port" --strictPort --host 127.0.0.1
