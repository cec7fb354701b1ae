// gpt-candidates.js — <gpt-explorer>'s next-token tables: the top candidates of one or two models side by side
// (stacked on narrow screens), every probability on the same absolute log scale with the uniform baseline 1/vocab
// marked, and how many times more likely than uniform each candidate is — so a confident prediction and noise look
// different. DOM only; the logits, ranks and softmax probabilities are the core's (topCandidates).
import { scaleLog } from 'd3-scale';

import { fmt, h } from '../kit/base.js';
import { renderPieces } from '../kit/tokens.js';

export const CANDIDATES_CSS = `
.cand-pair { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.75rem 1.25rem; align-items: start; }
@container (min-width: 720px) { .cand-pair.two { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
.cand-col { container-type: inline-size; min-width: 0; border: 1px solid var(--bs-border); border-radius: 6px; padding: 0.3rem 0.4rem; }
.cand-col.selected { border: 2px solid var(--bs-accent); }
table.candidates { width: 100%; }
table.candidates caption { text-align: start; font-weight: 600; padding: 0 0 0.3rem; caption-side: top; }
table.candidates caption .muted { font-weight: 400; display: block; font-size: 0.9em; }
table.candidates th, table.candidates td { padding: 0.1rem 0.3rem; }
table.candidates td.bar { width: 38%; min-width: 5.5rem; padding-right: 0.5rem; }
td.prob, td.xu, table.candidates tbody th { white-space: nowrap; }
@container (max-width: 430px) {
  table.candidates .logit, table.candidates .tid, .ticks span.minor { display: none; }
  table.candidates { font-size: 0.8rem; }
  table.candidates th, table.candidates td { padding: 0.1rem 0.2rem; }
  /* Room for a BPE token's whole word in the token column: the rank is the row's order. */
  table.candidates .rank { display: none; }
}
.track { position: relative; height: 0.7rem; border-radius: 2px; background-color: color-mix(in srgb, var(--bs-panel) 60%, transparent);
  background-image: linear-gradient(to right, var(--bs-border) 1px, transparent 1px); background-size: var(--decade) 100%; }
.track .fill { position: absolute; left: 0; top: 0; bottom: 0; background: var(--bs-c1); border-radius: 2px; min-width: 1px; }
.cand-col.untrained .track .fill, .cand-col.fallback .track .fill, .cand-col.random .track .fill { background: var(--bs-c5); }
.uline { position: absolute; top: -2px; bottom: -2px; border-left: 2px dashed var(--bs-c2); }
.ticks { position: relative; height: 1.3em; margin-top: 0.1rem; font-weight: 400; font-size: 0.72rem; color: var(--bs-muted); }
.ticks span { position: absolute; top: 0; transform: translateX(-50%); white-space: nowrap; }
.ticks span:first-of-type { transform: none; }
.ticks span:last-of-type { transform: translateX(-100%); }
.ticks .uline { top: 0; bottom: 0; }
.uniform-note { margin: 0.2rem 0 0.5rem; }
.uniform-note .dash { display: inline-block; width: 0; height: 1em; margin: 0 0.4rem 0 0.2rem; vertical-align: -0.15em; border-left: 2px dashed var(--bs-c2); }
.uniform-label { font-weight: 600; }
table.candidates tbody th, table.candidates thead th:nth-child(2), table.candidates thead th.bar { text-align: start; }
td.xu { white-space: nowrap; }
`;

/** `s` (a number as toPrecision or String writes it) for reading in the locale of `num` (Messages.num): the same
 * digits, the locale's decimal sign, an exponent kept as "e-6". */
export function localDigits(s, num) {
  const [mantissa, exponent] = s.split('e');
  const decimals = mantissa.includes('.') ? mantissa.length - mantissa.indexOf('.') - 1 : 0;
  return num(Number(mantissa), decimals) + (exponent === undefined ? '' : `e${exponent.replace('+', '')}`);
}

/** Locale-free numbers (the default of the functions below): fmt with `digits`, else whole numbers grouped as in English. */
const plain = (v, digits) => (digits === undefined ? v.toLocaleString('en-US') : fmt(v, digits));

/**
 * A probability in percent: two decimals, three significant digits below 1 % (large vocabularies), and below 0.001 %
 * two in exponent form ("9.6e-6"): a model as sure as the sort model leaves its other tokens at 1e-7 %, and their
 * zeros would not fit a phone's width. `num`: the widget's number format (port.num), else locale-free.
 */
export function percent(p, num = plain) {
  const v = 100 * p;
  return v >= 1 ? num(v, 2) : localDigits(v >= 1e-3 || v === 0 ? v.toPrecision(3) : v.toExponential(1), num);
}

/** p as a multiple of the uniform probability 1/V: "×0.98", "×12", "×212", "×6.8e-6" (exponent form below 0.01). */
export function timesUniform(p, V, num = plain) {
  const v = p * V;
  return `×${v >= 10 ? num(Math.round(v)) : localDigits(v >= 0.01 || v === 0 ? v.toPrecision(2) : v.toExponential(1), num)}`;
}

/**
 * The log scale every table shares: probability [lo, 1] -> [0, 100] (% of the bar), lo a power of ten no larger
 * than 0.01 % and below half the uniform probability, so the baseline is always on the scale.
 */
export function probabilityScale(V) {
  const lo = Math.min(1e-4, 10 ** Math.floor(Math.log10(1 / (2 * V))));
  return scaleLog().domain([lo, 1]).range([0, 100]).clamp(true);
}

/** "0.01", "0.1", "1", "10", "100": a decade tick of the probability scale, in percent ("0,01" in German). */
function tickLabel(p, num) {
  return localDigits(String(Number((100 * p).toPrecision(1))), num);
}

function scaleHeader(x, uniform, { t, num }) {
  const ticks = x.ticks().filter((v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9);
  return h('th', { scope: 'col', class: 'bar' }, t('gpt.cand.scale'),
    h('div', { class: 'ticks', 'aria-hidden': 'true' },
      h('i', { class: 'uline', style: `left: ${x(uniform)}%` }),
      ...ticks.map((v, i) => h('span', { style: `left: ${x(v)}%`, class: i % 2 && i < ticks.length - 1 ? 'minor' : null }, tickLabel(v, num)))));
}

function row(c, i, { x, V, uniform, t, num }) {
  return h('tr', { 'data-id': String(c.id), title: t('gpt.cand.rowTitle', { id: String(c.id), logit: num(c.logit, 4) }) },
    h('td', { class: 'rank' }, String(i + 1)),
    h('th', { scope: 'row' }, h('span', { class: 'tok' }, ...renderPieces(c.pieces, { visible: true })), ' ',
      h('span', { class: 'muted num tid' }, `(${c.id})`)),
    h('td', { class: 'num logit' }, num(c.logit, 4)),
    h('td', { class: 'num prob' }, t('gpt.percent', { value: percent(c.probability, num) })),
    h('td', { class: 'bar', 'aria-hidden': 'true' },
      h('div', { class: 'track' },
        h('span', { class: 'fill', style: `width: ${x(c.probability)}%` }),
        h('i', { class: 'uline', style: `left: ${x(uniform)}%` }))),
    h('td', { class: 'num xu', 'data-times-uniform': String(c.probability * V) }, timesUniform(c.probability, V, num)));
}

/**
 * Renders the next-token tables into `box`. tables: [{key, title, note, selected, candidates: [{id, logit,
 * probability, pieces}]}] (one or two, same vocabulary V); `after`: the label of the last prompt token; `port`: the
 * widget's panel port (its t and num word the tables).
 */
export function renderCandidates(box, { tables, vocab: V, after }, port) {
  const { t, num } = port;
  const x = probabilityScale(V);
  const uniform = 1 / V;
  const decades = Math.round(Math.log10(1 / x.domain()[0]));
  const note = h('p', { class: 'uniform-note' }, h('span', { class: 'dash', 'aria-hidden': 'true' }),
    h('span', { class: 'uniform-label' }, t('gpt.cand.uniform', { vocab: V,
      percent: localDigits(String(Number((100 * uniform).toPrecision(2))), num) })),
    h('span', { class: 'muted' }, ' ', t('gpt.cand.uniformNote', { vocab: V, low: tickLabel(x.domain()[0], num) })));
  const cols = tables.map((table) => h('div', { class: `cand-col ${table.key}${table.selected ? ' selected' : ''}`, style: `--decade: ${100 / decades}%` },
    h('table', { class: `candidates ${table.key}${table.selected ? ' selected' : ''}`, 'data-model': table.key },
      h('caption', {}, table.title, table.note ? h('span', { class: 'muted' }, table.note) : null),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', class: 'rank' }, '#'), h('th', { scope: 'col' }, t('gpt.cand.token')),
        h('th', { scope: 'col', class: 'logit' }, t('gpt.cand.logit')),
        h('th', { scope: 'col' }, t('gpt.cand.prob')), scaleHeader(x, uniform, port), h('th', { scope: 'col' }, t('gpt.cand.timesUniform')))),
      h('tbody', {}, ...table.candidates.map((c, i) => row(c, i, { x, V, uniform, t, num }))))));
  box.replaceChildren(
    h('p', { class: 'muted candidate-caption' }, t('gpt.cand.caption', { after, count: tables[0].candidates.length })),
    note,
    h('div', { class: `cand-pair${tables.length > 1 ? ' two' : ''}` }, ...cols));
}
