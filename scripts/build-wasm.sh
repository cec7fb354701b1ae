#!/usr/bin/env bash
# Builds both WebAssembly flavours (the CMake presets wasm-simd and wasm-baseline, Debian's Emscripten), each as a full
# and a light module (wasm/CMakeLists.txt), and copies the four .wasm files and their one shared JS glue
# (blockscope-glue.js, an ES module) to web/dist/. Incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
# Emscripten 3.1.6's optimizer needs acorn, which Debian installs under /usr/share/nodejs.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
mkdir -p web/dist
for flavour in simd baseline; do
  dir=build/wasm-$flavour
  # Configure unless a previous configure finished (a failed one leaves CMakeCache.txt but no Makefile).
  if [[ ! -f $dir/Makefile && ! -f $dir/build.ninja ]]; then cmake --preset "wasm-$flavour" >/dev/null; fi
  # The two modules, and for SIMD128 the kernels' own test (tests/wasm_kernels/, run in Node by scripts/test.sh).
  cmake --build --preset "wasm-$flavour" -j "$JOBS"
done
# One JS glue for all four modules (a package or CDN ships it once, a page loads it with any .wasm): the others get the
# full SIMD build's export and import names, and a difference between their glue and the SIMD glue fails the build here
# rather than a page (scripts/share-wasm-glue.mjs; a light module's glue may lack library functions it does not use).
cmp -s build/wasm-simd/wasm/blockscope-simd.wasm web/dist/blockscope-simd.wasm 2>/dev/null ||
  cp build/wasm-simd/wasm/blockscope-simd.wasm web/dist/blockscope-simd.wasm
glue=build/wasm-simd/wasm/blockscope-simd.js
node scripts/share-wasm-glue.mjs $glue build/wasm-baseline/wasm/blockscope-baseline.js \
  build/wasm-baseline/wasm/blockscope-baseline.wasm web/dist/blockscope-baseline.wasm
for flavour in simd baseline; do
  light=build/wasm-$flavour/wasm/blockscope-light-$flavour
  node scripts/share-wasm-glue.mjs $glue $light.js $light.wasm web/dist/blockscope-light-$flavour.wasm --subset
done
# Emscripten minifies its JS glue only partly without the Closure compiler; esbuild renames the locals
# inside the module factory too (-25% gzip). Rebuilt only when the glue changed.
if [[ build/wasm-simd/wasm/blockscope-simd.js -nt web/dist/blockscope-glue.js ]]; then
  node_modules/.bin/esbuild build/wasm-simd/wasm/blockscope-simd.js --minify --format=esm --target=es2020 \
    --log-level=warning --outfile=web/dist/blockscope-glue.js
fi
