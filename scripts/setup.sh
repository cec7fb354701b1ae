#!/usr/bin/env bash
# Installs what Blockscope needs on Debian 12 and is missing: the apt packages (compilers, Eigen, Catch2,
# nlohmann-json, Emscripten, clang-16/lld-16 for the relaxed-SIMD kernels, wabt, Chromium, clang with libFuzzer,
# PyTorch for the tests that run Copy-as-PyTorch snippets, pip and Jupyter's nbclient/ipykernel/nbconvert for the
# Python package's notebook test, a word list) and the npm packages in package-lock.json.
# Idempotent and silent when everything is present. Called by `npm test` and `npm start`.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  cmake g++ make pkg-config       # native toolchain
  libeigen3-dev catch2 nlohmann-json3-dev libcli11-dev
  emscripten wabt                 # WebAssembly build (Emscripten 3.1.6) and wasm-objdump
  clang-16 lld-16                 # the simd-relaxed flavour's kernel module (f32x4.relaxed_madd; core/relaxed_kernels.cmake)
  chromium                        # browser tests (driven by playwright-core)
  clang libclang-rt-dev           # fuzzing: libFuzzer with ASan/UBSan (tests/fuzz)
  python3-torch                   # browser tests run the widgets' Copy-as-PyTorch snippets in Debian's PyTorch
  python3-pip python3-setuptools python3-wheel        # the Python package (python/), built offline with pip
  python3-nbclient python3-ipykernel python3-nbconvert  # its notebook test: executed in a kernel, exported to HTML
  wamerican                       # the model recipes count English words in samples (/usr/share/dict/words)
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing apt packages: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# npm packages: install when node_modules is missing or older than the lock file.
if [[ -f package-lock.json ]]; then
  if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
    echo "setup: installing npm packages"
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
  fi
fi
