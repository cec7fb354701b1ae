"""Blockscope's built web files, made ready to inline into a notebook output.

The widgets bundle finds its worker, wasm glue, wasm and presets next to itself, from ``import.meta.url``; an inlined
bundle has no such place (a blob: URL cannot resolve relative URLs). So the bundles are patched as text, at the only
seams every file location goes through:

* ``import.meta.url`` becomes a fixed URL of a made-up scheme, ``blockscope-notebook:/dist/blockscope-widgets.js`` (each
  file's own path): relative URLs resolve against it as they would next to the real bundle, and a fetch of such a URL
  fails at once, without touching the network.
* ``new URL(`` becomes ``new __blockscopeURL(``, which builds the same URL and, when it names a file the page holds
  (the wasm, the glue, a preset, a model file), returns that file's blob: URL instead.

The widgets bundle is an entry with chunks next to it (dist/chunk-*.js) and per-element modules (dist/widgets/*.js),
which import each other by relative specifiers. A static import (``from"./chunk-….js"``) becomes the file's URL in a
second made-up scheme, ``blockscope-import:/dist/chunk-….js``, which loader.js replaces with the file's blob: URL when
it makes the page's modules (those imported first); an ``import("./chunk-….js")`` goes through ``new __blockscopeURL(``
at the time it runs. The message tables of languages other than English (dist/i18n/<locale>.js) are imported through
``new URL(`` too, so they come from the page's blob: URLs. The widgets bundle's ``new Worker(`` also goes through a
wrapper that tells each new worker the blob: URLs of files added after it started (a model carried by a later output).
loader.js (run in the page) decodes the files, makes the blob: URLs and imports the patched bundle. Each file is
gzip-compressed (deterministically: same input, same bytes) and base64-encoded once per process.
"""

import base64
import gzip
import os
import posixpath
import re
import threading

from . import _files
from ._spec import BlockscopeError

SCHEME = "blockscope-notebook:/"
IMPORT_SCHEME = "blockscope-import:/"
BUNDLE = "dist/blockscope-widgets.js"
WORKER = "dist/blockscope-worker.js"
_PAGE_MODULE = re.compile(r"^dist/(blockscope-widgets|chunk-[\w-]+|widgets/[\w-]+)\.js$")
# esbuild's static imports and re-exports (`import{a}from"./x.js"`, `import"./x.js"`, `export{a}from"./x.js"`) and the
# per-element modules' `export { X } from '../x.js'`; and its import("./x.js").
_STATIC_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*)(["'])(\.{1,2}/[^"'\s]+?\.js)\2""")
_DYNAMIC_IMPORT = re.compile(r"""\bimport\((["'])(\.{1,2}/[^"'\s]+?\.js)\1\)""")
_HERE = os.path.dirname(os.path.abspath(__file__))
_lock = threading.Lock()
_cache = {}


class AssetsMissingError(BlockscopeError):
    """The package holds no built web files (it was installed from a tree that was not built)."""


def web_root():
    """The directory holding the built web files: the installed package's copy, else the repository's web/."""
    candidates = [os.path.join(_HERE, "web"), os.path.join(os.path.dirname(os.path.dirname(_HERE)), "web")]
    for root in candidates:
        if not _files.missing_required(root):
            return root
    raise AssetsMissingError(
        "Blockscope's built web files are missing (looked in " + " and ".join(candidates) + "). Build them with "
        "`npm run build` in the repository, then `pip install ./python`; or install from the npm package's python/ "
        "directory, which has them next to it.")


PAGE_PROLOGUE = """\
const __blockscopeNotebook = globalThis.__blockscopeNotebook;
const __blockscopeFiles = __blockscopeNotebook.files;
const __blockscopeBase = %(base)s;
function __blockscopeURL(url, base) {
  const u = base === undefined ? new URL(url) : new URL(url, base);
  const file = __blockscopeFiles[u.href];
  return file ? new URL(file) : u;
}
function __blockscopeWorker(url, options) {
  // A page opened from a file has an opaque origin that its workers do not share: they could not read the page's
  // blob: URLs. The client then runs the runtime on the page's thread (its fallback for pages without workers).
  if (globalThis.location && location.protocol === 'file:') {
    throw new Error('a page opened from a file cannot give a worker its inlined files');
  }
  const worker = new Worker(url, options);
  __blockscopeNotebook.workers.push(worker);
  worker.postMessage({ __blockscopeFiles: { ...__blockscopeFiles } });
  return worker;
}
"""

# Preceded, in loader.js, by `const __blockscopeFiles = {…};` (the blob: URLs the page holds when it starts the worker).
WORKER_PROLOGUE = """\
const __blockscopeBase = %(base)s;
self.addEventListener('message', (e) => {
  const files = e.data && e.data.__blockscopeFiles;
  if (files) {
    Object.assign(__blockscopeFiles, files);
    e.stopImmediatePropagation();
  }
});
function __blockscopeURL(url, base) {
  const u = base === undefined ? new URL(url) : new URL(url, base);
  const file = __blockscopeFiles[u.href];
  return file ? new URL(file) : u;
}
"""


def is_page_module(path):
    """Whether web/``path`` is one of the widgets bundle's modules: the entry, a chunk or a per-element module."""
    return bool(_PAGE_MODULE.match(path))


def patch_bundle(text, path):
    """The file at web/``path`` (a module of the widgets bundle, or the worker) patched to find its files in the page;
    BlockscopeError when it no longer has the seams this relies on (for the worker here; for the widgets bundle, whose
    seams may sit in any of its modules, patch_page checks the set)."""
    page = is_page_module(path)
    if not page and ("import.meta.url" not in text or "new URL(" not in text):
        raise BlockscopeError(f"{path} no longer uses import.meta.url and new URL( to find its files: "
                              "python/blockscope/_assets.py must be updated")
    if "__blockscope" in text or "blockscope-import:" in text:
        raise BlockscopeError(f"{path} already uses the name __blockscope…, which the notebook patch needs")
    text = text.replace("import.meta.url", "__blockscopeBase").replace("new URL(", "new __blockscopeURL(")
    if "import.meta" in text:
        raise BlockscopeError(f"{path} uses import.meta beyond import.meta.url: python/blockscope/_assets.py must be updated")
    if page:
        here = posixpath.dirname(path)
        text = _STATIC_IMPORT.sub(
            lambda m: m.group(1) + '"' + IMPORT_SCHEME + posixpath.normpath(posixpath.join(here, m.group(3))) + '"', text)
        text = _DYNAMIC_IMPORT.sub(lambda m: 'import(new __blockscopeURL("' + m.group(2) + '",__blockscopeBase).href)', text)
        text = text.replace("new Worker(", "new __blockscopeWorker(")
        if "__blockscope" not in text:
            return text  # a module that locates no file needs no prologue (most chunks)
        prologue = PAGE_PROLOGUE
    else:
        prologue = WORKER_PROLOGUE
    base = '"' + SCHEME + path + '"'
    return prologue % {"base": base} + text


def patch_page(texts):
    """{path: text} of the widgets bundle's modules (entry, chunks, per-element modules), each patched (patch_bundle);
    BlockscopeError when the set no longer has the seams this relies on, or a module imports a file the set lacks."""
    if BUNDLE not in texts:
        raise BlockscopeError(f"the widgets bundle's entry ({BUNDLE}) is missing")
    joined = "".join(texts.values())
    for seam in ("import.meta.url", "new URL(", "new Worker("):
        if seam not in joined:
            raise BlockscopeError(f"the widgets bundle no longer uses {seam} to find its files and start its worker: "
                                  "python/blockscope/_assets.py must be updated")
    out = {path: patch_bundle(text, path) for path, text in texts.items()}
    for path, text in out.items():
        for target in re.findall(re.escape(IMPORT_SCHEME) + r'([^"]+)"', text):
            if target not in texts:
                raise BlockscopeError(f"{path} imports {target}, which is not among the widgets bundle's files")
    return out


def _encode(path, data):
    level = 6 if path.endswith((".wasm", ".safetensors")) else 9
    return base64.b64encode(gzip.compress(data, compresslevel=level, mtime=0)).decode("ascii")


def group_files(group, root=None):
    """{path under web/: base64 of its gzip} for file group ``group`` (_files.GROUPS); {} if the package lacks it."""
    root = root or web_root()
    paths = _files.files_of(root, group)
    keys = {}
    for path in paths:
        full = os.path.join(root, *path.split("/"))
        stat = os.stat(full)
        keys[path] = (full, stat.st_mtime_ns, stat.st_size)
    with _lock:
        out = {path: _cache.get(key) for path, key in keys.items()}
    missing = [path for path, encoded in out.items() if encoded is None]
    if missing:
        data = {}
        for path in paths if any(is_page_module(p) for p in missing) else missing:
            with open(keys[path][0], "rb") as f:
                data[path] = f.read()
        # The widgets bundle's modules are patched as a set (their seams may sit in any of them).
        page = {p: d.decode("utf-8") for p, d in data.items() if is_page_module(p)}
        patched = {p: t.encode("utf-8") for p, t in patch_page(page).items()} if page else {}
        if WORKER in data:
            patched[WORKER] = patch_bundle(data[WORKER].decode("utf-8"), WORKER).encode("utf-8")
        for path in missing:
            out[path] = _encode(path, patched.get(path, data[path]))
            with _lock:
                _cache[keys[path]] = out[path]
    return out


def has_group(group, root=None):
    return bool(_files.files_of(root or web_root(), group))


def loader_js():
    with open(os.path.join(_HERE, "loader.js"), encoding="utf-8") as f:
        return f.read()
