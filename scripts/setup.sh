#!/usr/bin/env bash
# Installs what building and testing need: Debian packages (only the missing ones) and npm ci (only when
# node_modules is missing or older than package-lock.json). Safe to run again: it then does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
  emscripten libeigen3-dev   # the WebAssembly toolchain and Eigen 3.4
  cmake g++ libgtest-dev     # the native build and its GoogleTest suite (the built library and its sources)
  clang libclang-rt-14-dev   # the libFuzzer target and LeakSanitizer runtime
  chromium                   # real-browser tests (Vitest browser project, Playwright page tests)
  clang-format               # npm run lint / npm run format (the C++ style in .clang-format)
  python3-numpy              # tests/js/io-write.test.js: NumPy reads back the .npz and .safetensors files written
)
missing=()
for package in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
