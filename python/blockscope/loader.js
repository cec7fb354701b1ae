// loader.js — runs in the page of a notebook (JupyterLab, Notebook, VS Code) or of its exported HTML; inlined by the
// Python package (python/blockscope/_html.py) into the first output of blockscope.show() of a session. It installs
// window.__blockscopeNotebook.run, which every Blockscope output calls (outputs that render before it queue
// themselves in window.__blockscopeNotebook.queue):
//   {root, need: [group names], groups: {group: {path: base64 of gzip}}, check: text | null}
// A group of files (the runtime: bundles, glue, wasm, presets; a model; the corpus) is decoded once per page into
// blob: URLs, registered in window.__blockscopeNotebook.files by the made-up URL the patched bundles ask for
// (blockscope-notebook:/dist/…, see _assets.py), and told to the runtime's workers. The runtime group also imports
// the widgets bundle (its modules become blob: URLs in the order they import each other). An output's widget (its <template>) is put on the page once the groups it needs are there; a
// check= value is pasted into its part="check-input" box and checked once the widget is ready.
(function () {
  'use strict';
  const reg = window.__blockscopeNotebook || (window.__blockscopeNotebook = {});
  reg.queue = reg.queue || [];
  if (reg.run) return; // an earlier output of this page installed it
  reg.files = reg.files || {};
  reg.workers = reg.workers || [];
  const SCHEME = 'blockscope-notebook:/';
  const BUNDLE = 'dist/blockscope-widgets.js';
  const WORKER = 'dist/blockscope-worker.js';
  // The widgets bundle's modules: its entry, the chunks next to it, the per-element modules (_assets.py).
  const PAGE_MODULE = /^dist\/(blockscope-widgets|chunk-[\w-]+|widgets\/[\w-]+)\.js$/;
  const STATIC_IMPORT = /"blockscope-import:\/([^"]+)"/g; // a static import, as _assets.py writes it
  const TYPES = { js: 'text/javascript', wasm: 'application/wasm', json: 'application/json' };
  const typeOf = (path) => TYPES[path.split('.').pop()] || 'application/octet-stream';
  const blobUrl = (data, type) => URL.createObjectURL(new Blob([data], { type }));
  const groups = {}; // name -> {promise, resolve, reject, started}

  function group(name) {
    if (!groups[name]) {
      const g = (groups[name] = { started: false });
      g.promise = new Promise((resolve, reject) => Object.assign(g, { resolve, reject }));
      g.promise.catch(() => {}); // reported by each output that needs it
    }
    return groups[name];
  }

  async function gunzip(base64) {
    if (typeof DecompressionStream !== 'function') {
      throw new Error('this browser cannot decompress the inlined files (no DecompressionStream): open it in a current browser');
    }
    const text = atob(base64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  async function load(name, files) {
    const bytes = {};
    await Promise.all(Object.entries(files).map(async ([path, data]) => { bytes[path] = await gunzip(data); }));
    const urls = {};
    for (const [path, data] of Object.entries(bytes)) {
      if (!PAGE_MODULE.test(path) && path !== WORKER) urls[SCHEME + path] = blobUrl(data, typeOf(path));
    }
    const decode = (data) => new TextDecoder().decode(data);
    Object.assign(urls, pageModules(Object.fromEntries(Object.entries(bytes)
      .filter(([path]) => PAGE_MODULE.test(path)).map(([path, data]) => [path, decode(data)]))));
    Object.assign(reg.files, urls);
    for (const worker of reg.workers) worker.postMessage({ __blockscopeFiles: urls });
    if (bytes[WORKER]) {
      // The worker starts with the files the page holds now; those added later reach it by message.
      reg.files[SCHEME + WORKER] = blobUrl(`const __blockscopeFiles = ${JSON.stringify(reg.files)};\n${decode(bytes[WORKER])}`,
        TYPES.js);
    }
    if (bytes[BUNDLE]) {
      if (performance.getEntriesByName('blockscope:entry-evaluated').length > 0 || customElements.get('gelu-explorer')) {
        console.info('Blockscope: the widgets bundle already runs on this page; the notebook\'s copy is not loaded.');
      } else {
        await import(reg.files[SCHEME + BUNDLE]);
      }
    }
  }

  /**
   * {made-up URL: blob: URL} of the widgets bundle's modules ({path: text}). A module's static imports name the
   * others as blockscope-import:/<path> (_assets.py); each module becomes a blob: after the ones it imports, with
   * their blob: URLs written in.
   */
  function pageModules(texts) {
    const urls = {};
    const visiting = new Set();
    const make = (path) => {
      if (urls[SCHEME + path]) return urls[SCHEME + path];
      if (!(path in texts)) throw new Error(`the widgets bundle imports ${path}, which this output does not carry`);
      if (visiting.has(path)) throw new Error(`the widgets bundle's modules import each other in a cycle (${path})`);
      visiting.add(path);
      const text = texts[path].replace(STATIC_IMPORT, (whole, dep) => JSON.stringify(make(dep)));
      visiting.delete(path);
      urls[SCHEME + path] = blobUrl(text, TYPES.js);
      return urls[SCHEME + path];
    };
    for (const path of Object.keys(texts)) make(path);
    return urls;
  }

  function addGroup(name, files) {
    const g = group(name);
    if (!g.started) {
      g.started = true;
      load(name, files).then(g.resolve, g.reject);
    }
    return g.promise;
  }

  /** Pastes `text` into the widget's check box and checks it, once the widget has computed its first result. */
  function hookCheck(el, text) {
    let done = false;
    const attempt = () => {
      if (done) return;
      done = true;
      const input = el.shadowRoot && el.shadowRoot.querySelector('textarea[part~="check-input"]');
      if (!input) {
        console.warn(`Blockscope: <${el.localName}> shows no check box (part="check-input"), so check= was not used.`);
        return;
      }
      const box = input.closest('[part~="check"], [part~="step-check"]') || input.parentElement;
      if (box.tagName === 'DETAILS') box.open = true;
      input.value = text;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      // The box's button after the text box: "Check my numbers" (kit/check-panel.js) or "Find the first step…".
      const button = [...box.querySelectorAll('button')]
        .find((b) => input.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
      if (button) button.click();
    };
    for (const type of ['blockscope-ready', 'blockscope-forward']) {
      el.addEventListener(type, () => setTimeout(attempt, 0), { once: true });
    }
  }

  function activate(item) {
    const root = item.root;
    if (!root || root.getAttribute('data-blockscope') === 'active') return;
    root.setAttribute('data-blockscope', 'active');
    const note = root.querySelector('.blockscope-note');
    for (const [name, files] of Object.entries(item.groups || {})) addGroup(name, files);
    Promise.all((item.need || ['runtime']).map((name) => group(name).promise)).then(() => {
      const template = root.querySelector('template.blockscope-widget');
      const content = document.importNode(template.content, true);
      const el = content.firstElementChild;
      if (item.check != null) hookCheck(el, item.check);
      template.after(content);
      item.done = true;
      if (note) note.remove();
    }, (err) => {
      item.done = true;
      const message = `Blockscope could not start: ${err && err.message ? err.message : err}`;
      if (note) note.textContent = message;
      console.error(message);
    });
  }

  reg.run = () => {
    for (const item of reg.queue.splice(0)) activate(item);
  };
})();
