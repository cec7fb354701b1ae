// start-order.js — when a page's widgets set up and start, and in which order. The widgets connected in one task (a
// page's widgets upgrade together when the bundle defines them) are handled together in a microtask, before the page
// is first rendered:
//  1. every read first — the host page's computed styles for theme="auto" (with container queries on the widgets,
//     each read forces a style and layout pass) and where each widget is — then every write (the theme palettes), so
//     the page is styled and laid out once instead of once per widget;
//  2. the widgets the reader sees (or, with none on screen, the next one down) set up and start at once; the others
//     wait until those have shown their first numbers (at most LATEST_MS), then set up and start one per task. The
//     first widget a reader sees so gets the runtime to itself: its calls reach the Web Worker first, its drawing is
//     not queued behind the others', and their set-up, first calls and drawing do not hold up the main thread while
//     the worker starts (starting a worker needs the page's main thread). When the browser is about to scroll the
//     page (a reload restoring the reader's position, a #fragment), the others build their DOM at once instead, so
//     the position is found on the page's layout; only their start waits.
// Widgets only gain from this order: each still gets its numbers from the core, the deferred ones a moment later.
import { mark } from '../../runtime/marks.js';

/** The longest the widgets further down wait for the ones on screen (e.g. one loading a model), in ms. */
const LATEST_MS = 3000;

let queued = null; // widgets connected since the last flush, in connection order
let waiting = []; // widgets waiting for the ones on screen, in document order

/**
 * Called by every widget's connectedCallback: resolves its theme and, the first time it is connected, sets it up
 * and starts it (widget.begin(), which returns a promise settled once the widget shows its first numbers) — now, or
 * after the widgets on screen.
 */
export function scheduleConnected(widget) {
  if (queued) {
    queued.add(widget);
    return;
  }
  queued = new Set([widget]);
  queueMicrotask(flush);
}

function flush() {
  const widgets = [...queued].filter((w) => w.isConnected);
  queued = null;
  // Reads.
  const css = widgets.map((w) => w.themeCss());
  const fresh = widgets.filter((w) => !w.begun && !waiting.includes(w));
  const viewport = typeof innerHeight === 'number' ? innerHeight : 0;
  const boxes = fresh.map((w) => w.getBoundingClientRect());
  // Writes.
  widgets.forEach((w, i) => w.setThemeCss(css[i]));
  if (fresh.length === 0) return;
  const onScreen = fresh.filter((_, i) => boxes[i].bottom > 0 && boxes[i].top < viewport);
  // With none on screen, the nearest one below it (fresh is in connection order: the order of the define() calls).
  let below = -1;
  fresh.forEach((_, i) => {
    if (boxes[i].bottom > 0 && (below === -1 || boxes[i].top < boxes[below].top)) below = i;
  });
  const first = onScreen.length > 0 ? onScreen : [fresh[below === -1 ? 0 : below]];
  const later = fresh.filter((w) => !first.includes(w));
  const shown = first.map((w) => w.begin());
  mark('first-widget-started');
  // When the browser is about to move the scroll position (restore it on a reload, or jump to a #fragment), the
  // page needs its layout first: the others build their DOM now and only start later.
  if (scrollWillMove()) for (const w of later) w.build();
  if (later.length === 0) return;
  const resume = waiting.length === 0;
  waiting.push(...later);
  waiting.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  if (!resume) return;
  const timeout = new Promise((resolve) => setTimeout(resolve, LATEST_MS));
  Promise.race([Promise.allSettled(shown), timeout]).then(beginWaiting);
}

/**
 * Whether the browser will scroll this page as it loads: a reload or a history navigation restoring the reader's
 * position, or a URL fragment naming an element.
 */
function scrollWillMove() {
  const type = performance.getEntriesByType?.('navigation')[0]?.type;
  if ((type === 'reload' || type === 'back_forward') && history.scrollRestoration !== 'manual') return true;
  const id = location.hash.slice(1);
  if (!id) return false;
  try {
    return document.getElementById(decodeURIComponent(id)) !== null;
  } catch {
    return false; // a malformed escape names no element
  }
}

/** Sets up the waiting widgets one per task, so input and rendering run in between. */
function beginWaiting() {
  const next = waiting.shift();
  if (!next) return;
  if (next.isConnected && !next.begun) next.begin();
  setTimeout(beginWaiting, 0);
}
