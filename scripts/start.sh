#!/usr/bin/env bash
# `npm start`: installs what is missing, builds the wasm modules and the web bundle if needed, then serves
# web/ on localhost and prints the URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "Building (incremental)..."
bash scripts/build.sh web >/dev/null
exec node scripts/serve.mjs "$@"
