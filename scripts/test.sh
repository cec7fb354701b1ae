#!/usr/bin/env bash
# `npm test`: installs what is missing, builds, and runs every test suite. Fails on the first failing suite.
#   1. native unit tests (Catch2 via ctest), Release build
#   2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer
#   3. fuzzing: every libFuzzer target (tests/fuzz, Clang, ASan+UBSan) replays its regression inputs and
#      fuzzes for FUZZ_SECONDS (default 30) each; `npm run fuzz` runs them long
#   4. wasm tests in Node (every flavour, node:test), after the SIMD128 and relaxed-SIMD kernel tests
#   5. the blockscope command line (against PyTorch goldens, gpt-tokenizer and the wasm build)
#   6. widget helpers in Node
#   7. browser tests in Chromium (playwright-core)
#   8. the Python package (python/): installed with pip from the npm package's files, its unit tests, and a notebook
#      executed with nbclient + ipykernel, exported by nbconvert and opened in Chromium (offline)
#   9. the npm package: packed, installed into a temporary project, used from Node, from a page, from TSX and from
#      apps built with esbuild, Vite (build and dev server) and webpack
# Every suite always runs: a missing script or test directory fails the run (a skipped suite proves nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}

step() { printf '\n==> %s\n' "$*"; }
# Fails the run, naming what is missing, unless every path given exists.
require() {
  local path
  for path in "$@"; do
    if [[ ! -e $path ]]; then
      echo "test.sh: $path is missing, so its suite cannot run (failing rather than skipping it)" >&2
      exit 1
    fi
  done
}
require scripts/build-wasm.sh scripts/build-web.sh scripts/fuzz.sh tests/fuzz tests/wasm tests/cli tests/web tests/browser \
  tests/python tests/package/package.test.mjs tests/package/bundlers.test.mjs

step "setup"
bash scripts/setup.sh

step "native build (Release)"
bash scripts/build.sh native
step "native tests (Release)"
ctest --preset release -j "$JOBS"

step "native build (ASan + UBSan)"
bash scripts/build.sh asan
step "native tests (ASan + UBSan)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --preset asan -j "$JOBS"

step "fuzzing (libFuzzer + ASan + UBSan: regression inputs, then ${FUZZ_SECONDS:-30} s per target)"
FUZZ_SECONDS=${FUZZ_SECONDS:-30} JOBS=$JOBS bash scripts/fuzz.sh

step "wasm build (simd128 + simd-relaxed + baseline)"
bash scripts/build.sh wasm
step "wasm SIMD128 kernels vs their generic twins (Node)"
require build/wasm-simd/tests/wasm_kernels/blockscope_kernel_tests.js
node build/wasm-simd/tests/wasm_kernels/blockscope_kernel_tests.js
# Node 20 runs relaxed SIMD behind a flag (Chromium without one). The relaxed build's test program reads its merged
# .wasm from disk, which Emscripten's Node loader would try with fetch() (refused for a file path) unless fetch is off.
RELAXED=--experimental-wasm-relaxed-simd
step "wasm relaxed-SIMD kernels vs their generic twins (Node)"
require build/wasm-simd-relaxed/tests/wasm_kernels/blockscope_kernel_tests.js
node $RELAXED --no-experimental-fetch build/wasm-simd-relaxed/tests/wasm_kernels/blockscope_kernel_tests.js
step "wasm tests in Node (every flavour)"
node $RELAXED --test --test-reporter=spec tests/wasm/

step "command-line tests (blockscope CLI, native vs wasm)"
node $RELAXED --test --test-reporter=spec tests/cli/

# The bundle first: tests/web reads its chunk graph (widget-chunks.test.mjs) as well as the sources.
step "web bundle (esbuild)"
bash scripts/build-web.sh
step "widget helpers in Node (tests/web: UTF-8 bytes, token display, types, the bundle's chunk graph)"
node --test --test-reporter=spec tests/web/

step "browser tests in Chromium"
node --test --test-reporter=spec --test-concurrency=1 tests/browser/

step "Python package in a notebook (pip from the npm package's files, unittest, nbclient + ipykernel, nbconvert, Chromium)"
node --test --test-reporter=spec tests/python/

step "npm package (npm pack, installed offline into a temporary project, Node + Chromium; an app built with esbuild, Vite, webpack)"
# One file at a time: each runs npm pack, whose prepack swaps the package README into the repository's place.
node --test --test-concurrency=1 --test-reporter=spec tests/package/
