// gpt-links.js — linked selection inside <gpt-explorer> (kit/linked-selection.js): which of its views point at a token
// or a head when hovered or focused, and how each shows the selection — the prompt's token chips, the attribution-
// shaded prompt, the next-token tables and the logit lens (by token id), the two heatmaps (rows and columns, drawn by
// InspectionView), the ablation checkboxes and the attention heatmap (by head). Views keep their own DOM; this file
// only reads their items' data attributes (data-position, data-id, data-top, data-head).
import { markLinked, pointOnItems, pointsAtToken } from '../kit/linked-selection.js';

export class GPTLinks {
  #link;
  #parts;
  #ids = [];
  #restore = [];

  /**
   * link: the widget's LinkedSelection; parts: {chips, candidateBox, interpret (InterpretPanel), view
   * (InspectionView)} — their containers persist, their items are redrawn.
   */
  constructor(link, parts) {
    this.#link = link;
    this.#parts = parts;
    const { chips, candidateBox, interpret } = parts;
    const token = (el) => {
      const position = el.dataset.position == null ? null : Number(el.dataset.position);
      return { kind: 'token', position, id: Number(el.dataset.id ?? el.dataset.top ?? this.#ids[position]) };
    };
    const head = (el) => {
      const [layer, h] = (el.querySelector('input[data-head]')?.dataset.head ?? '').split('.').map(Number);
      return { kind: 'head', layer, head: h };
    };
    this.#restore = [
      pointOnItems(chips, link, { selector: 'li[data-position]', read: token, roving: true }),
      pointOnItems(interpret.attrList, link, { selector: 'li[data-position]', read: token, roving: true }),
      pointOnItems(candidateBox, link, { selector: 'tr[data-id]', read: token, roving: true }),
      pointOnItems(interpret.lensBox, link, { selector: 'tr[data-top]', read: token, roving: true }),
      pointOnItems(interpret.headsBox, link, { selector: 'label', read: head }),
    ];
    link.addView((sel) => this.#show(sel));
  }

  /** The token ids of the pass now shown (position -> id, for selections by id). */
  setIds(ids) {
    this.#ids = Array.from(ids);
  }

  /** After the views were redrawn: one tab stop per list again, and the selection drawn on the new items. */
  refresh() {
    for (const restore of this.#restore) restore();
    this.#link.refresh();
  }

  #show(sel) {
    const { chips, candidateBox, interpret, view } = this.#parts;
    const ids = this.#ids;
    const idOf = sel?.kind === 'token' ? (sel.position != null ? ids[sel.position] : sel.id) : null;
    const atPosition = (el) => pointsAtToken(sel, Number(el.dataset.position), ids[Number(el.dataset.position)]);
    markLinked(chips.querySelectorAll('li[data-position]'), atPosition);
    markLinked(interpret.attrList.querySelectorAll('li[data-position]'), atPosition);
    markLinked(candidateBox.querySelectorAll('tr[data-id]'), (el) => idOf != null && Number(el.dataset.id) === idOf);
    markLinked(interpret.lensBox.querySelectorAll('tr[data-top]'), (el) => idOf != null && Number(el.dataset.top) === idOf);
    const headName = sel?.kind === 'head' ? `${sel.layer}.${sel.head}` : null;
    markLinked(interpret.headsBox.querySelectorAll('label'), (el) => el.querySelector('input')?.dataset.head === headName);
    const positions = sel?.kind === 'token' ? ids.flatMap((id, t) => (pointsAtToken(sel, t, id) ? [t] : [])) : [];
    view.highlight({ positions, head: sel?.kind === 'head' ? sel : null });
  }
}
