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
mkdir -p web/dist
for flavour in simd simd-relaxed baseline; do
  dir=build/wasm-$flavour
  # Configure unless a previous configure finished (a failed one leaves CMakeCache.txt but no Makefile).
  if [[ ! -f $dir/Makefile && ! -f $dir/build.ninja ]]; then cmake --preset "wasm-$flavour" >/dev/null; fi
  # The modules, and for simd and simd-relaxed the kernels' own test (tests/wasm_kernels/, run in Node by scripts/test.sh).
  # One target at a time (each compiles in parallel): two Emscripten links running at once in one build directory are
  # suspected of the inconsistent outputs a fresh clone's build once gave (a glue with unminified import names next to
  # a .wasm with minified ones, failing the import checks of share-wasm-glue.mjs and merge-relaxed-kernels.mjs).
  targets=$(node -e "const p=require('./CMakePresets.json').buildPresets.find((b)=>b.name==='wasm-$flavour');console.log(p.targets.join(' '))")
  for target in $targets; do
    cmake --build --preset "wasm-$flavour" --target "$target" -j "$JOBS"
  done
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
