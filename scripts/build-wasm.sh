#!/usr/bin/env bash
# Builds the three WebAssembly flavours (the CMake presets wasm-simd, wasm-simd-relaxed and wasm-baseline, Debian's
# Emscripten; simd-relaxed also clang-16, lld-16 and npm's binaryen for its kernel module), simd and baseline each as a
# full and a light module (wasm/CMakeLists.txt; simd-relaxed's light module is simd's), and copies the five .wasm files
# and their one shared JS glue (blockscope-glue.js, an ES module) to web/dist/. Incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
# Emscripten 3.1.6's optimizer needs acorn, which Debian installs under /usr/share/nodejs.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
# Debian's Emscripten runs binaryen's tools (wasm-opt, wasm-metadce) by bare name, so the first on PATH wins. Under
# `npm run`/`npm test`, PATH starts with node_modules/.bin, which holds npm binaryen's (version 132, for the relaxed
# kernel merge) instead of Debian's 108 that Emscripten 3.1.6 expects: its minified import names and symbol map then
# disagree with the JS glue (share-wasm-glue.mjs and merge-relaxed-kernels.mjs refuse the result). Our scripts call
# npm's binaryen by its full path, so node_modules/.bin leaves PATH here.
PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v '/node_modules/\.bin$' | paste -sd: -)
export PATH
if [[ $(command -v wasm-opt) != /usr/bin/wasm-opt ]]; then
  echo "build-wasm.sh: Emscripten would run $(command -v wasm-opt || echo 'no wasm-opt'), not Debian's /usr/bin/wasm-opt (package binaryen): fix PATH or run npm run setup" >&2
  exit 1
fi
mkdir -p web/dist
for flavour in simd simd-relaxed baseline; do
  dir=build/wasm-$flavour
  # Configure unless a previous configure finished (a failed one leaves CMakeCache.txt but no Makefile).
  if [[ ! -f $dir/Makefile && ! -f $dir/build.ninja ]]; then cmake --preset "wasm-$flavour" >/dev/null; fi
  # The modules, and for simd and simd-relaxed the kernels' own test (tests/wasm_kernels/, run in Node by scripts/test.sh).
  cmake --build --preset "wasm-$flavour" -j "$JOBS"
done
# One JS glue for all five modules (a package or CDN ships it once, a page loads it with any .wasm): the others get the
# full SIMD build's export and import names, and a difference between their glue and the SIMD glue fails the build here
# rather than a page (scripts/share-wasm-glue.mjs; a light module's glue may lack library functions it does not use).
cmp -s build/wasm-simd/wasm/blockscope-simd.wasm web/dist/blockscope-simd.wasm 2>/dev/null ||
  cp build/wasm-simd/wasm/blockscope-simd.wasm web/dist/blockscope-simd.wasm
glue=build/wasm-simd/wasm/blockscope-simd.js
for flavour in baseline simd-relaxed; do
  full=build/wasm-$flavour/wasm/blockscope-$flavour
  node scripts/share-wasm-glue.mjs $glue $full.js $full.wasm web/dist/blockscope-$flavour.wasm
done
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
