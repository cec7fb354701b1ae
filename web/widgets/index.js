// The widget bundle's entry (dist/blockscope-widgets.js): lesson authors load it with one <script type="module"> and
// then use the tags. It is small: it defines each Blockscope element when the page first uses it (kit/elements.js
// watch(): the element's module is a chunk of its own, loaded from next to this file; those on screen first), starts
// the shared runtime as soon as a widget is on its way, and exports what pages script with. Pages that need an
// element's class before they create the element await load(tag) (or import dist/widgets/<tag>.js: the class).
import { mark } from '../runtime/marks.js';
import { preloadFiles, watch } from './kit/elements.js';
import { firstWidgetsShown, scrollWillMove, startFirst } from './kit/start-order.js';

export { ELEMENT_TAGS, load, WIDGET_TAGS } from './kit/elements.js';
export { TOUR_STEP_EVENT } from './tour/tour-names.js';
export { connect } from '../runtime/client.js';
export { MISTAKE_TEXT } from './kit/mistake-text.js';

/* global BLOCKSCOPE_ELEMENT_FILES */
// Each element's chunks beyond those the entry imports, by tag: written into the entry by scripts/build-widgets.mjs.
// They hold where the entry runs as built (its own name, served over HTTP), not once an app bundler (Vite, webpack,
// esbuild) has renamed and merged the chunks into the app's: there the app's own imports load each element.
const entryUrl = new URL(import.meta.url);
if (typeof BLOCKSCOPE_ELEMENT_FILES === 'string' && /^https?:$/.test(entryUrl.protocol) &&
    entryUrl.pathname.endsWith('/blockscope-widgets.js')) {
  preloadFiles(JSON.parse(BLOCKSCOPE_ELEMENT_FILES), entryUrl);
}

mark('entry-evaluated');
// A page using only connect() (no widget on it) keeps the choice of options: loading a widget starts the runtime.
// The widgets on screen come first, the others once those have their numbers — except when the browser is about to
// scroll the page (a reload restoring the reader's position, a #fragment), which needs every widget laid out first.
if (typeof document !== 'undefined') {
  const order = scrollWillMove() ? {} : { first: startFirst, later: firstWidgetsShown };
  watch(document, order).then(() => mark('widgets-defined'));
}
