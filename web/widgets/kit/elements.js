// elements.js — every custom element the widget bundle defines, and when each one's code is loaded. Each element's
// module (with its English messages) is a chunk of its own next to the bundle (scripts/build-web.sh), imported the
// first time the page uses its tag: watch() (run by the bundle's entry, index.js) loads the tags in the document and
// those added later by scripts or frameworks; load(tag) gives a page the class itself. A page with one widget so
// downloads that widget, the kit and the parts of d3 it draws with — not the other widgets.
// Loading a widget also starts the shared runtime (client.js: the light wasm module on the page, a Web Worker when a
// request needs one) at once, so its start overlaps the download and set-up of the widget's code instead of waiting
// for the widget's constructor; the widget's files come with the in-thread runtime's (scripts/build-widgets.mjs).
import { connect } from '../../runtime/client.js';
import { addEnglish } from './i18n.js';
import { TOUR_TAG } from '../tour/tour-names.js';
import { clearLoadFailure, elementLoadFailure, showLoadFailure } from './load-failure.js';

/** tag -> the import of the module that defines it (literal specifiers: the bundler makes each one a chunk). */
const MODULES = Object.freeze({
  'layernorm-explorer': () => import('../layernorm-explorer/layernorm-explorer.js'),
  'gelu-explorer': () => import('../gelu-explorer/gelu-explorer.js'),
  'ffn-explorer': () => import('../ffn-explorer/ffn-explorer.js'),
  'block-explorer': () => import('../block-explorer/block-explorer.js'),
  'residual-flow-explorer': () => import('../residual-flow-explorer/residual-flow-explorer.js'),
  'training-lab': () => import('../training-lab/training-lab.js'),
  'gpt-explorer': () => import('../gpt-explorer/gpt-explorer.js'),
  // Not a widget (no runtime, no state of its own): it steps the widgets through states.
  [TOUR_TAG]: () => import('../tour/tour.js'),
});

/**
 * Every widget's tag, in the lesson's order: the one list (base.js define() refuses a tag not in it; the embed page,
 * the guide, the generated types and the tests read it from here or from the bundle's export).
 */
export const WIDGET_TAGS = Object.freeze(Object.keys(MODULES).filter((tag) => tag !== TOUR_TAG));
/** Every tag the bundle defines: the widgets and <blockscope-tour>. */
export const ELEMENT_TAGS = Object.freeze(Object.keys(MODULES));

const loads = new Map(); // tag -> the promise of its class
let elementFiles = {}; // tag -> the files of its code beyond those the entry imports (preloadFiles)
let entryUrl = null; // the entry's URL, where the bundle runs as built (preloadFiles): its files are next to it
const preloaded = new Set(); // the files asked for so far

/**
 * Tells which files each element's code is made of beyond those the entry imports (the entry's list, written by the
 * build), and where the entry is (`at`: the chunks and the per-element modules, widgets/<tag>.js, are next to it):
 * loading an element then asks for all of them at once, instead of learning its chunk's imports only once the chunk
 * has arrived (a network round trip per import level). Unbundled, or bundled again into an app, there is no list.
 */
export function preloadFiles(files, at) {
  elementFiles = files;
  entryUrl = at;
}

/**
 * Defines widget `tag` (its module calls this, through base.js) once — a page may load two copies of the bundle —
 * after adding its English messages (its file in i18n/en/, imported by its module: they travel in its chunk).
 */
export function define(tag, cls, english) {
  if (!WIDGET_TAGS.includes(tag)) throw new Error(`<${tag}> is not in WIDGET_TAGS (kit/elements.js)`);
  addEnglish(english);
  if (!customElements.get(tag)) customElements.define(tag, cls);
}

/**
 * Loads the code of Blockscope element `tag` (once) and resolves with its class, defined: for a page that needs the
 * class before it creates the element (its static checkedValue or attrSpecs, or a framework that sets properties
 * such as `state` on a new element). Rejects for a tag that is not Blockscope's, or when its module cannot be loaded
 * (a later call tries again) with an Error naming the file that failed (load-failure.js: for a file on another
 * origin, the Access-Control-Allow-Origin header its server must send).
 */
export function load(tag) {
  if (!Object.hasOwn(MODULES, tag)) {
    return Promise.reject(new Error(`<${tag}> is not a Blockscope element: use one of ${ELEMENT_TAGS.join(', ')}`));
  }
  if (WIDGET_TAGS.includes(tag)) startRuntime();
  if (!loads.has(tag)) {
    loads.set(tag, importElement(tag).then(() => {
      const cls = customElements.get(tag);
      if (!cls) throw new Error(`the module of <${tag}> did not define it`);
      return cls;
    }, (err) => {
      loads.delete(tag);
      throw elementLoadFailure(tag, err, entryUrl && new URL(`widgets/${tag}.js`, entryUrl).href);
    }));
  }
  return loads.get(tag);
}

/**
 * Imports element `tag`'s module, with every file of its code asked for at once (<link rel="modulepreload">). While
 * the page is still loading, its per-element module also goes into a <script type="module">: a module script delays
 * the page's load event until it has run (an import() does not), so the page is laid out with its widgets by then —
 * which is when the browser restores the reader's scroll position on a reload. Both reach the one chunk, fetched once
 * (the import() starts it at once; the script only waits for it).
 */
function importElement(tag) {
  if (typeof document !== 'undefined') {
    for (const file of elementFiles[tag] ?? []) {
      if (preloaded.has(file)) continue;
      preloaded.add(file);
      const href = new URL(file, entryUrl).href;
      (document.head ?? document.documentElement).append(Object.assign(document.createElement('link'), { rel: 'modulepreload', href }));
    }
  }
  const imported = MODULES[tag]();
  if (!entryUrl || typeof document === 'undefined' || document.readyState === 'complete') return imported;
  const script = document.createElement('script');
  try {
    script.type = 'module';
    script.src = new URL(`widgets/${tag}.js`, entryUrl).href;
  } catch {
    return imported; // a page whose policy refuses script URLs given as strings (Trusted Types)
  }
  const ran = new Promise((resolve) => {
    script.onload = resolve;
    script.onerror = resolve; // the import() decides
  });
  (document.head ?? document.documentElement).append(script);
  return Promise.all([imported, ran]);
}

/** Starts the shared runtime (once), where there is a page: a widget is about to be shown. */
function startRuntime() {
  if (typeof document === 'undefined') return;
  connect().catch(() => {}); // failures surface where a widget awaits the runtime
}

/**
 * Defines every Blockscope element `doc` uses, now and later: loads the module of each tag in the document and of
 * each one added afterwards (appended by a script or a framework, anywhere in the document's own tree; not inside
 * other elements' shadow roots). A tag whose code cannot be loaded is reported on the console and inside each of its
 * elements (load-failure.js), naming the tag and the file.
 * With `first` and `later` (start-order.js startFirst and firstWidgetsShown), only the widgets that will start first
 * (and elements that are not widgets: a tour) are loaded at once, the other widgets when later() settles — once
 * those have their numbers, so they get the network and the main thread to themselves. Resolves when the tags loaded at once are
 * defined (or have failed).
 */
export function watch(doc = document, { first = null, later = null } = {}) {
  const selector = ELEMENT_TAGS.join(',');
  const requested = new Set();
  const defined = new Set();
  const observer = new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType === 1) for (const tag of tagsIn(node)) request(tag);
      }
    }
  });
  const request = (tag) => {
    if (requested.has(tag)) return null;
    requested.add(tag);
    return load(tag).then(() => {
      defined.add(tag);
      clearLoadFailure(doc, tag);
      if (defined.size === ELEMENT_TAGS.length) observer.disconnect(); // nothing left to define
    }, (err) => {
      requested.delete(tag); // the next element with this tag tries again
      console.error(`Blockscope: the code of <${tag}> could not be loaded: ${err?.message ?? err}`);
      showLoadFailure(doc, tag, err); // on screen too, in each <tag>: the page's reader sees why it stays empty
    });
  };
  const tagsIn = (root) => {
    const tags = new Set([...root.querySelectorAll(selector)].map((el) => el.localName));
    if (Object.hasOwn(MODULES, root.localName)) tags.add(root.localName);
    return tags;
  };
  observer.observe(doc, { childList: true, subtree: true });
  const found = [...doc.querySelectorAll(selector)];
  let now = found;
  const widgets = found.filter((el) => WIDGET_TAGS.includes(el.localName));
  if (first && later && widgets.length > 0) {
    now = [...first(widgets), ...found.filter((el) => !widgets.includes(el))]; // and the tour (it has no numbers)
    later().then(() => { for (const tag of tagsIn(doc)) request(tag); });
  }
  return Promise.all([...new Set(now.map((el) => el.localName))].map(request));
}
