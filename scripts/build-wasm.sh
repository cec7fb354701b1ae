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
  if [[ ! -f $dir/Makefile && ! -f $dir/build.ninja ]]; then  # not configured, or configure failed
    emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBLOCKSCOPE_WASM_SIMD=$simd >/dev/null
  fi
  cmake --build "$dir" -j "$JOBS" --target blockscope_wasm
  # The SIMD128 kernels' own test (tests/wasm_kernels/), run in Node by scripts/test.sh.
  if [[ $flavour == simd ]]; then cmake --build "$dir" -j "$JOBS" --target blockscope_kernel_tests; fi
  cmp -s "$dir/wasm/blockscope-$flavour.wasm" "web/dist/blockscope-$flavour.wasm" 2>/dev/null ||
    cp "$dir/wasm/blockscope-$flavour.wasm" "web/dist/blockscope-$flavour.wasm"
  # Emscripten minifies its JS glue only partly without the Closure compiler; esbuild renames the locals
  # inside the module factory too (-25% gzip). Rebuilt only when the glue changed.
  if [[ "$dir/wasm/blockscope-$flavour.js" -nt "web/dist/blockscope-$flavour.js" ]]; then
    node_modules/.bin/esbuild "$dir/wasm/blockscope-$flavour.js" --minify --format=esm --target=es2020 \
      --log-level=warning --outfile="web/dist/blockscope-$flavour.js"
  fi
done
