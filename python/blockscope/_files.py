"""Which of Blockscope's built web files the package ships and inlines, in groups a notebook output carries.

Self-contained (standard library only, no imports from the package): setup.py runs this file to know what to copy
into the package, and the package reads it to know what to inline.

Paths are relative to the web/ directory of the repository (or of the npm package), which the installed package
mirrors as blockscope/web/. ``runtime`` is what every widget needs: the widgets bundle (its entry, the chunks next to
it and the per-element modules), the worker, the wasm glue, every wasm flavour (simd and baseline each as its
light module, which widgets start on, and its full one; the page picks the flavour its browser supports) and the
small lesson presets. The other groups are inlined only into the outputs of widgets that use them (a trained GPT, the
training corpus, GPT-2's tokenizer).
"""

import glob
import os

GROUPS = {
    "runtime": [
        "dist/blockscope-widgets.js",
        "dist/chunk-*.js",
        "dist/widgets/*.js",
        "dist/i18n/*.js",
        "dist/blockscope-worker.js",
        "dist/blockscope-glue.js",
        "dist/blockscope-simd.wasm",
        "dist/blockscope-simd-relaxed.wasm",
        "dist/blockscope-baseline.wasm",
        "dist/blockscope-light-simd.wasm",
        "dist/blockscope-light-baseline.wasm",
        "presets/*.json",
    ],
    "models/brown": ["models/brown/config.json", "models/brown/model.safetensors"],
    "models/brown-bpe": [
        "models/brown-bpe/config.json",
        "models/brown-bpe/model.safetensors",
        "models/brown-bpe/vocab.json",
        "models/brown-bpe/merges.txt",
    ],
    "models/sort": ["models/sort/config.json", "models/sort/model.safetensors", "models/sort/tokens.json"],
    "data/brown": ["data/brown/train.txt", "data/brown/val.txt"],
    "tokenizers/gpt2": ["dist/tokenizers/gpt2/encoder.json", "dist/tokenizers/gpt2/vocab.bpe"],
}

#: Groups without which the package cannot work: a build must find every file of these.
REQUIRED = ("runtime",)


def files_of(web, group):
    """The files of ``group`` under directory ``web``: paths relative to it, '/'-separated, sorted within a pattern.

    A pattern that matches nothing is left out (the caller decides whether that is an error)."""
    out = []
    for pattern in GROUPS[group]:
        if any(c in pattern for c in "*?["):
            found = sorted(glob.glob(os.path.join(web, *pattern.split("/"))))
            out.extend(os.path.relpath(p, web).replace(os.sep, "/") for p in found if os.path.isfile(p))
        elif os.path.isfile(os.path.join(web, *pattern.split("/"))):
            out.append(pattern)
    return out


def missing_required(web):
    """The required files (or patterns) not found under ``web``."""
    missing = []
    for group in REQUIRED:
        for pattern in GROUPS[group]:
            if not files_of_pattern(web, pattern):
                missing.append(pattern)
    return missing


def files_of_pattern(web, pattern):
    if any(c in pattern for c in "*?["):
        return [p for p in glob.glob(os.path.join(web, *pattern.split("/"))) if os.path.isfile(p)]
    path = os.path.join(web, *pattern.split("/"))
    return [path] if os.path.isfile(path) else []
