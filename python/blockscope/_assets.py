"""Blockscope's built web files, made ready to inline into a notebook output.

The widgets bundle finds its worker, wasm glue, wasm and presets next to itself, from ``import.meta.url``; an inlined
bundle has no such place (a blob: URL cannot resolve relative URLs). So both bundles are patched as text, at the only
two seams every file location goes through:

* ``import.meta.url`` becomes a fixed URL of a made-up scheme, ``blockscope-notebook:/dist/blockscope-widgets.js``:
  relative URLs resolve against it as they would next to the real bundle, and a fetch of such a URL fails at once,
  without touching the network.
* ``new URL(`` becomes ``new __blockscopeURL(``, which builds the same URL and, when it names a file the page holds
  (the wasm, the glue, a preset, a model file), returns that file's blob: URL instead.

The message tables of languages other than English (dist/i18n/<locale>.js) are imported through ``new URL(`` too, so
they come from the page's blob: URLs. The widgets bundle's ``new Worker(`` also goes through a wrapper that tells each new worker the blob: URLs of files
added after it started (a model carried by a later output). loader.js (run in the page) decodes the files, makes the
blob: URLs and imports the patched bundle. Each file is gzip-compressed (deterministically: same input, same bytes)
and base64-encoded once per process.
"""

import base64
import gzip
import os
import threading

from . import _files
from ._spec import BlockscopeError

SCHEME = "blockscope-notebook:/"
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


def patch_bundle(text, path):
    """The bundle at web/``path`` (widgets or worker) patched to find its files in the page; BlockscopeError when it
    no longer has the seams this relies on."""
    page = path.endswith("blockscope-widgets.js")
    if "import.meta.url" not in text or "new URL(" not in text:
        raise BlockscopeError(f"{path} no longer uses import.meta.url and new URL( to find its files: "
                              "python/blockscope/_assets.py must be updated")
    if "__blockscope" in text:
        raise BlockscopeError(f"{path} already uses the name __blockscope…, which the notebook patch needs")
    text = text.replace("import.meta.url", "__blockscopeBase").replace("new URL(", "new __blockscopeURL(")
    if "import.meta" in text:
        raise BlockscopeError(f"{path} uses import.meta beyond import.meta.url: python/blockscope/_assets.py must be updated")
    if page:
        if "new Worker(" not in text:
            raise BlockscopeError(f"{path} no longer starts its worker with new Worker(: update python/blockscope/_assets.py")
        text = text.replace("new Worker(", "new __blockscopeWorker(")

        prologue = PAGE_PROLOGUE
    else:
        prologue = WORKER_PROLOGUE
    base = '"' + SCHEME + path + '"'
    return prologue % {"base": base} + text


def _encode(path, data):
    level = 6 if path.endswith((".wasm", ".safetensors")) else 9
    return base64.b64encode(gzip.compress(data, compresslevel=level, mtime=0)).decode("ascii")


def group_files(group, root=None):
    """{path under web/: base64 of its gzip} for file group ``group`` (_files.GROUPS); {} if the package lacks it."""
    root = root or web_root()
    out = {}
    for path in _files.files_of(root, group):
        full = os.path.join(root, *path.split("/"))
        stat = os.stat(full)
        key = (full, stat.st_mtime_ns, stat.st_size)
        with _lock:
            encoded = _cache.get(key)
        if encoded is None:
            with open(full, "rb") as f:
                data = f.read()
            if path in ("dist/blockscope-widgets.js", "dist/blockscope-worker.js"):
                data = patch_bundle(data.decode("utf-8"), path).encode("utf-8")
            encoded = _encode(path, data)
            with _lock:
                _cache[key] = encoded
        out[path] = encoded
    return out


def has_group(group, root=None):
    return bool(_files.files_of(root or web_root(), group))


def loader_js():
    with open(os.path.join(_HERE, "loader.js"), encoding="utf-8") as f:
        return f.read()
