#!/usr/bin/env bash
# Builds both WebAssembly flavours (SIMD128 and baseline) with Debian's Emscripten and copies the ES modules
# and .wasm files to web/dist/. Incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
# Emscripten 3.1.6's optimizer needs acorn, which Debian installs under /usr/share/nodejs.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
mkdir -p web/dist
for flavour in simd baseline; do
  dir=build/wasm-$flavour
  simd=ON; [[ $flavour == baseline ]] && simd=OFF
  if [[ ! -f $dir/CMakeCache.txt ]]; then
    emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBLOCKSCOPE_WASM_SIMD=$simd >/dev/null
  fi
  cmake --build "$dir" -j "$JOBS" --target blockscope_wasm
  # The SIMD128 kernels' own test (tests/wasm_kernels/), run in Node by scripts/test.sh.
  if [[ $flavour == simd ]]; then cmake --build "$dir" -j "$JOBS" --target blockscope_kernel_tests; fi
  for ext in js wasm; do
    cmp -s "$dir/wasm/blockscope-$flavour.$ext" "web/dist/blockscope-$flavour.$ext" 2>/dev/null ||
      cp "$dir/wasm/blockscope-$flavour.$ext" "web/dist/blockscope-$flavour.$ext"
  done
done
