#!/usr/bin/env bash
# Builds Blockscope: the native Release build (library, CLI, tests) and, when wasm/ is present, the three
# WebAssembly flavours. Incremental: re-running only rebuilds what changed.
#   scripts/build.sh            native + wasm + web bundle
#   scripts/build.sh native     native Release only
#   scripts/build.sh asan       native ASan+UBSan build
#   scripts/build.sh wasm       wasm flavours only
#   scripts/build.sh web        wasm flavours + the widget/worker bundle (what a lesson page needs)
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
what=${1:-all}

build_preset() {
  local preset=$1
  # Configure unless a previous configure finished (a failed one leaves CMakeCache.txt but no Makefile).
  if [[ ! -f build/$preset/Makefile && ! -f build/$preset/build.ninja ]]; then
    cmake --preset "$preset" >/dev/null
  fi
  cmake --build "build/$preset" -j "$JOBS"
}

case "$what" in
  all)    build_preset release; bash scripts/build-wasm.sh; bash scripts/build-web.sh ;;
  native) build_preset release ;;
  asan)   build_preset asan ;;
  wasm)   bash scripts/build-wasm.sh ;;
  web)    bash scripts/build-wasm.sh; bash scripts/build-web.sh ;;
  *) echo "usage: scripts/build.sh [all|native|asan|wasm|web]" >&2; exit 2 ;;
esac
