// block-links.js — linked selection in <block-explorer> (kit/linked-selection.js): the per-token bars and the
// per-token table point at their token when hovered (the table's rows also when focused: one tab stop, arrow keys)
// and show the token pointed at here or in a linked widget. Reads the items' data-position; draws nothing else.
import { markLinked, pointOnItems, pointsAtToken } from '../kit/linked-selection.js';

export class BlockLinks {
  #ids = [];
  #restore;

  /** link: the widget's LinkedSelection; barBox and tokenTable persist, their items are redrawn. */
  constructor(link, { barBox, tokenTable }) {
    this.link = link;
    this.parts = { barBox, tokenTable };
    const read = (el) => {
      const position = Number(el.dataset.position);
      return { kind: 'token', position, id: this.#ids[position] ?? null };
    };
    pointOnItems(barBox, link, { selector: 'rect[data-position]', read });
    this.#restore = pointOnItems(tokenTable, link, { selector: 'tr[data-position]', read, roving: true });
    link.addView((sel) => this.#show(sel));
  }

  /** The pass now shown: its token ids, tokenizer key and a name for its weights (null ids: the lesson's tensor). */
  setPass(ids, pass) {
    this.#ids = ids ? Array.from(ids) : [];
    this.link.setPass(ids ? pass : null);
  }

  /** After the bars and the table were redrawn. */
  refresh() {
    this.#restore();
    this.link.refresh();
  }

  #show(sel) {
    const at = (el) => pointsAtToken(sel, Number(el.dataset.position), this.#ids[Number(el.dataset.position)]);
    markLinked(this.parts.barBox.querySelectorAll('rect[data-position]'), at);
    markLinked(this.parts.tokenTable.querySelectorAll('tr[data-position]'), at);
  }
}
