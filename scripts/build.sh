#!/usr/bin/env bash
# Builds Blockscope: the native Release build (library, CLI, tests) and, when wasm/ is present, the two
# WebAssembly flavours. Incremental: re-running only rebuilds what changed.
#   scripts/build.sh            native + wasm
#   scripts/build.sh native     native Release only
#   scripts/build.sh asan       native ASan+UBSan build
#   scripts/build.sh wasm       wasm flavours only
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
what=${1:-all}

build_preset() {
  local preset=$1
  if [[ ! -f build/$preset/CMakeCache.txt ]]; then
    cmake --preset "$preset" >/dev/null
  fi
  cmake --build "build/$preset" -j "$JOBS"
}

case "$what" in
  all)    build_preset release; [[ -x scripts/build-wasm.sh ]] && scripts/build-wasm.sh || true ;;
  native) build_preset release ;;
  asan)   build_preset asan ;;
  wasm)   scripts/build-wasm.sh ;;
  *) echo "usage: scripts/build.sh [all|native|asan|wasm]" >&2; exit 2 ;;
esac
