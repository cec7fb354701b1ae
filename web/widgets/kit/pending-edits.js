// pending-edits.js — edits a widget applies a little later (typing in a prompt box, dragging through checkpoints),
// kept so that none is ever lost: every pending edit is applied before anything else the learner does on the widget —
// a pointer press or key press on another of its controls, focus leaving the field, another attribute set (base.js
// calls flush() from set()) — and code that writes attribute values into fields skips one with an edit pending
// (base.js isEditing). Not a custom element.

/** How long an edit waits for the next keystroke before it applies itself (ms). */
export const EDIT_DELAY_MS = 200;

export class PendingEdits {
  /** `root`: the widget's shadow root, whose pointer, key and focus events flush the pending edits. */
  constructor(root) {
    this.byKey = new Map(); // key -> {fn, timer, source}
    // Capture phase: before the other control's own handler runs (its click follows its pointerdown).
    const flushUnlessFrom = (e) => {
      if (this.byKey.size && ![...this.byKey.values()].some((p) => p.source && e.composedPath().includes(p.source))) this.flush();
    };
    root.addEventListener('pointerdown', flushUnlessFrom, true);
    root.addEventListener('keydown', flushUnlessFrom, true);
    root.addEventListener('focusout', (e) => {
      if ([...this.byKey.values()].some((p) => p.source === e.target)) this.flush();
    }, true);
  }

  /**
   * Runs fn once `ms` have passed without another edit under the same `key`, or sooner when flush() comes first.
   * `source`: the field (or chart) the edit comes from; its own keys and presses do not flush it.
   */
  defer(key, fn, { ms = EDIT_DELAY_MS, source = null } = {}) {
    clearTimeout(this.byKey.get(key)?.timer);
    const timer = setTimeout(() => this.run(key), ms);
    this.byKey.set(key, { fn, timer, source });
  }

  run(key) {
    const pending = this.byKey.get(key);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.byKey.delete(key); // first: what fn does (set an attribute) may flush again
    pending.fn();
  }

  /** Applies every pending edit now, in the order they were made. */
  flush() {
    for (const key of [...this.byKey.keys()]) this.run(key);
  }

  /** Whether `source` (a field) has an edit not yet applied: code that writes attribute values into fields skips it. */
  has(source) {
    return [...this.byKey.values()].some((p) => p.source === source);
  }

  /** Drops every pending edit (the widget left the page). */
  cancel() {
    for (const { timer } of this.byKey.values()) clearTimeout(timer);
    this.byKey.clear();
  }
}
