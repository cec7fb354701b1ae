// ffn-text.js — <ffn-explorer>'s reading text helpers on top of the kit's messages (kit/i18n.js): messages with
// elements in them (a number in a <span> inside a sentence), vectors and small numbers in scientific notation in
// the widget's language. Code (Copy as PyTorch, the lesson's printout) and event details never come through here.
// A helper of the element, not a custom element.

const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * Message text with some {placeholders} left for nodes (t() leaves a placeholder it has no param for): returns the
 * text split into strings and `nodes[name]`, to append to an element. Placeholders without a node stay as text.
 */
export function fill(text, nodes) {
  const out = [];
  let at = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (!Object.hasOwn(nodes, m[1])) continue;
    if (m.index > at) out.push(text.slice(at, m.index));
    out.push(nodes[m[1]]);
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** `v` in scientific notation with `digits` decimals (as toExponential: 3.0e-8) and the locale's decimal sign. */
export function sci(port, v, digits) {
  const point = port.num(0.5, 1).replace(/\d/g, '');
  return v.toExponential(digits).replace('.', point);
}

const grouped = new Map();
/** `v` with `digits` fixed decimals and the locale's digit grouping (1,234.5 / 1.234,5), U+2212 minus. */
export function decimals(port, v, digits) {
  const locale = port.messages().locale;
  const key = `${locale}:${digits}`;
  if (!grouped.has(key)) {
    grouped.set(key, new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }));
  }
  return grouped.get(key).format(v).replace('-', '−');
}

/** [a, b, …] with 4 decimals each, separated as the locale separates decimal numbers in a list (", " or "; "). */
export function vector(port, values) {
  return `[${Array.from(values, (v) => port.num(v, 4)).join(port.t('ffn.vectorSeparator'))}]`;
}
