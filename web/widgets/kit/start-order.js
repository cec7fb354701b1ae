// start-order.js — when a page's widgets set up and start, and in which order. The widgets connected in one task (the
// widgets of one kind upgrade together when their code is defined) are handled together in a microtask, before the
// page is first rendered:
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
// Each widget's code is a chunk of its own (kit/elements.js), so a page's widgets are defined one chunk at a time:
// the widgets whose code is still loading (:not(:defined)) are candidates too. When the one the reader sees is among
// them, the widgets that arrive before it wait, and it starts the moment it arrives.
// Widgets only gain from this order: each still gets its numbers from the core, the deferred ones a moment later.
import { mark } from '../../runtime/marks.js';
import { WIDGET_TAGS } from './elements.js';

/** The longest the widgets further down wait for the ones on screen (e.g. one loading a model), in ms. */
const LATEST_MS = 3000;

let queued = null; // widgets connected since the last flush, in connection order
let waiting = []; // widgets waiting for the ones on screen, in document order
const awaited = new Set(); // widgets chosen to start first before their code had arrived
const leaders = new Map(); // widget started first -> its begin() promise, until it settles
const wakers = []; // the waits for the leaders, to re-check when one arrives or shows its numbers
let started = false; // whether a widget of the page has started
const onFirstStart = []; // firstWidgetsShown() callers waiting for the first widgets to start
// The page's widgets whose code is still loading.
const LOADING = WIDGET_TAGS.map((tag) => `${tag}:not(:defined)`).join(',');

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
  const candidates = fresh.length > 0 ? [...fresh, ...document.querySelectorAll(LOADING)] : [];
  const viewport = typeof innerHeight === 'number' ? innerHeight : 0;
  const boxes = candidates.map((w) => w.getBoundingClientRect());
  // Writes.
  widgets.forEach((w, i) => w.setThemeCss(css[i]));
  if (fresh.length === 0) return;
  // Widgets chosen before their code arrived go now; while some are still on their way, the others wait for them.
  let first = fresh.filter((w) => awaited.has(w));
  if (first.length === 0 && !stillAwaited()) first = choose(candidates, boxes, viewport);
  const now = fresh.filter((w) => first.includes(w));
  for (const w of first) {
    if (now.includes(w)) awaited.delete(w);
    else awaited.add(w);
  }
  const later = fresh.filter((w) => !now.includes(w));
  for (const w of now) {
    const shown = w.begin();
    leaders.set(w, shown);
    const settled = () => {
      if (leaders.get(w) === shown) leaders.delete(w);
      wake();
    };
    shown.then(settled, settled);
  }
  wake();
  if (now.length > 0) {
    mark('first-widget-started');
    started = true;
    for (const resolve of onFirstStart.splice(0)) leadersShown().then(resolve);
  }
  // When the browser is about to move the scroll position (restore it on a reload, or jump to a #fragment), the
  // page needs its layout first: the others build their DOM now and only start later.
  if (scrollWillMove()) for (const w of later) w.build();
  if (later.length === 0) return;
  const resume = waiting.length === 0;
  waiting.push(...later);
  waiting.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  if (!resume) return;
  const timeout = new Promise((resolve) => setTimeout(resolve, LATEST_MS));
  Promise.race([leadersShown(), timeout]).then(beginWaiting);
}

/**
 * The widgets on screen among `candidates`; with none on screen, the nearest one below it — unless widgets started
 * first are still on their way to their numbers: then none (these candidates wait for them).
 */
function choose(candidates, boxes, viewport) {
  return nearest(candidates, boxes, viewport, { alone: !leading() });
}

/**
 * The widgets among `elements` (their code loaded or not) that would start first on this page as it is now: those
 * on screen, else the nearest one below it. The entry loads their code first (kit/elements.js watch).
 */
export function startFirst(elements) {
  return nearest(elements, elements.map((el) => el.getBoundingClientRect()), innerHeight, { alone: true });
}

/** The ones of `candidates` on screen; with none, and `alone`, the nearest one below the screen's top. */
function nearest(candidates, boxes, viewport, { alone }) {
  const onScreen = candidates.filter((_, i) => boxes[i].bottom > 0 && boxes[i].top < viewport);
  if (onScreen.length > 0 || !alone) return onScreen;
  // With none on screen, the nearest one below it (candidates are in connection order, then document order).
  let below = -1;
  candidates.forEach((_, i) => {
    if (boxes[i].bottom > 0 && (below === -1 || boxes[i].top < boxes[below].top)) below = i;
  });
  return [candidates[below === -1 ? 0 : below]];
}

/** Whether a widget chosen to start first is still on the page waiting for its code (forgets the others). */
function stillAwaited() {
  for (const el of awaited) if (!el.isConnected || el.begun) awaited.delete(el);
  return awaited.size > 0;
}

/** Whether a widget started first is still on the page and on its way to its first numbers. */
function leading() {
  for (const w of leaders.keys()) if (!w.isConnected) leaders.delete(w);
  return leaders.size > 0;
}

/** Settles once the awaited widgets have arrived and every widget started first has shown its first numbers. */
function leadersShown() {
  if (!stillAwaited() && !leading()) return Promise.resolve();
  return new Promise((resolve) => wakers.push(resolve)).then(leadersShown);
}

function wake() {
  for (const resolve of wakers.splice(0)) resolve();
}

/**
 * Settles once the page's first widgets to start have shown their first numbers, or LATEST_MS after it was asked:
 * the entry loads the code of the widgets off screen then (kit/elements.js watch), so that the ones on screen have the
 * network and the main thread to themselves until then.
 */
export function firstWidgetsShown() {
  const shown = started ? leadersShown() : new Promise((resolve) => onFirstStart.push(resolve));
  return Promise.race([shown, new Promise((resolve) => setTimeout(resolve, LATEST_MS))]);
}

/**
 * Whether the browser will scroll this page as it loads: a reload or a history navigation restoring the reader's
 * position, or a URL fragment naming an element. (The page then needs every widget's layout before it loads.)
 */
export function scrollWillMove() {
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
