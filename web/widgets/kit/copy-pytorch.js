// copy-pytorch.js — "Copy as PyTorch": the element's current state as a runnable PyTorch snippet (inputs and small
// weights as literals, printing the numbers the widget shows), offered as a button (part="copy-pytorch") that
// copies it and a disclosure that shows it. The element's toPyTorch() returns the same text. tests/browser runs
// every widget's snippet with /usr/bin/python3 and compares the printed numbers with the widget's.
// A panel of an element (it gets the element's panelPort), not a custom element. Its labels speak the element's
// language (messages kit.copy.*); the code itself is the same in every language.
import { h } from './base.js';
import { OFF } from './layout.js';

// sections="…" without copy-pytorch hides the button (its part); the code's disclosure and note go with it.
export const COPY_CSS = `
details.copy pre { max-height: 16rem; overflow: auto; font-size: 0.8rem; background: var(--bs-panel); padding: 0.5rem; }
details.copy summary { cursor: pointer; }
.copy-box:has(> .row > [part~="copy-pytorch"][${OFF}]) { display: none; }
`;

/** A float32 value as a Python literal that reads back as the same float32 (NaN and infinities by name). */
export function py(v) {
  if (Number.isNaN(v)) return "float('nan')";
  if (!Number.isFinite(v)) return v > 0 ? "float('inf')" : "float('-inf')";
  const s = String(Math.fround(v));
  return /[.e]/.test(s) ? s : `${s}.0`;
}
/** A nested list of numbers as a Python list literal, one row per line when it has rows. */
export function pyList(rows) {
  if (!Array.isArray(rows) && !ArrayBuffer.isView(rows)) return py(rows);
  const items = Array.from(rows, (r) => pyList(r));
  return Array.isArray(rows[0]) ? `[\n    ${items.join(',\n    ')},\n]` : `[${items.join(', ')}]`;
}

export class CopyPanel {
  /** snippet(): the current state's PyTorch code; extras: more controls for the button's row (e.g. a download). */
  constructor(port, { snippet, extras = [] }) {
    this.port = port;
    this.snippet = snippet;
    this.code = h('pre', { tabindex: '0', 'aria-label': port.t('kit.copy.codeLabel') });
    this.button = h('button', { type: 'button', part: 'copy-pytorch' }, port.t('kit.copy.button'));
    this.note = h('span', { class: 'muted', role: 'status', 'aria-live': 'polite' });
    this.details = h('details', { class: 'copy' }, h('summary', {}, port.t('kit.copy.show')), this.code);
    this.details.addEventListener('toggle', () => this.refresh());
    this.element = h('div', { class: 'copy-box' }, h('div', { class: 'row' }, this.button, ...extras, this.note), this.details);
    this.button.addEventListener('click', () => this.copy());
  }

  refresh() {
    if (this.details.open) this.code.textContent = this.snippet();
  }

  async copy() {
    const text = this.snippet();
    this.code.textContent = text;
    try {
      await navigator.clipboard.writeText(text);
      this.note.textContent = this.port.t('kit.copy.copied');
    } catch {
      // No clipboard permission (an iframe, http): show the code selected so the learner can copy it.
      this.details.open = true;
      getSelection()?.selectAllChildren(this.code);
      this.note.textContent = this.port.t('kit.copy.blocked');
    }
  }
}
