// marks.js — performance marks at the phases of Blockscope's start-up (bench/page.mjs reads them, and so do a
// browser's performance tools): "blockscope:<phase>" on the page's timeline. The Web Worker has its own timeline,
// so its marks travel to the page as absolute times (timeOrigin + now) and are re-entered there.
//   page:   entry-evaluated (the widget bundle's entry ran), worker-created, widgets-defined (the code of the
//           elements loaded first ran: those on screen), first-widget-started (the widget on screen set up and asked
//           for its numbers: start-order.js), client-ready (the runtime answered 'init'), first-result (the first call
//           answered)
//   worker: worker-started, glue-loaded, wasm-compiled, runtime-ready (module instantiated, bindings checked)
const perf = typeof performance !== 'undefined' && typeof performance.mark === 'function' ? performance : null;
const recorded = new Set();

/** Marks `phase` once (later calls are ignored); returns its absolute time (ms since the epoch) or null. */
export function mark(phase) {
  if (!perf || recorded.has(phase)) return null;
  recorded.add(phase);
  perf.mark(`blockscope:${phase}`);
  return perf.timeOrigin + perf.now();
}

/** This thread's marks so far, as {phase: absolute ms}, to send to another thread. */
export function exportMarks() {
  const out = {};
  if (!perf) return out;
  for (const e of perf.getEntriesByType('mark')) {
    if (e.name.startsWith('blockscope:')) out[e.name.slice(11)] = perf.timeOrigin + e.startTime;
  }
  return out;
}

/** Enters marks from another thread (exportMarks()'s output) on this thread's timeline, each once. */
export function importMarks(marks) {
  if (!perf || !marks) return;
  for (const [phase, at] of Object.entries(marks)) {
    if (recorded.has(phase)) continue;
    recorded.add(phase);
    perf.mark(`blockscope:${phase}`, { startTime: Math.max(0, at - perf.timeOrigin) });
  }
}
