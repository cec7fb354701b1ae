// layernorm-views.js — <layernorm-explorer>'s views of the numbers the core computed: the token in detail (its
// statistics, the before/after chart and the per-feature table), the whole sequence (every token's statistics and
// output, chart and table) and the notes around them (the axis help, what an edit changed, the book's note). Every
// text comes from the element's messages, every number through its num(). Helpers of the element (they read its
// `result` and `changes` and fill its elements), not a custom element.
import { h } from '../kit/base.js';
import { groupedBars, legend } from '../kit/chart-kit.js';
import { bookNote } from './layernorm-book.js';
import { listText } from './layernorm-rows.js';

const TOKEN_COLORS = ['var(--bs-c1)', 'var(--bs-c2)', 'var(--bs-c3)', 'var(--bs-c4)', 'var(--bs-c5)', 'var(--bs-muted)',
  'var(--bs-fg)', 'var(--bs-accent)'];
// The prediction each detail-table column would give away (x̂ is y when γ = 1 and β = 0).
const PREDICTED_BY = { x: null, mean: 'mean', variance: 'variance', normalized: 'output', output: 'output' };

/**
 * A statistic or input for reading: num(v, 4), but 2,5000e29 for |v| ≥ 10⁶ (and, with `tiny`, 2,3094e−30 for a value
 * that would read 0,0000), and the overflow message for a float32 ∞ (a variance beyond float32's range).
 */
export function statText(el, v, { tiny = false } = {}) {
  if (!Number.isFinite(v)) return el.t('layernorm.stat.overflow');
  const a = Math.abs(v);
  if (a >= 1e6 || (tiny && a > 0 && a < 5e-5)) {
    const [m, e] = v.toExponential(4).split('e');
    return `${el.num(Number(m), 4)}e${e.replace('+', '').replace('-', '−')}`;
  }
  return el.num(v, 4);
}

/** Whether a variance of the result overflowed float32 (∞): the detail then explains why (layernorm.overflowNote). */
export function overflowed(result) {
  return Array.from(result.variance).some((v) => !Number.isFinite(v));
}

/** Fills the element's detail table and legend; returns the drawing of the detail chart at a given width. */
export function drawDetail(el) {
  const { rows, T, token, axis, mean, variance, rstd, normalized, output, gamma, beta } = el.result;
  const t = token - 1;
  const x = rows[t];
  const wrong = axis === 'sequence';
  const affine = [h('dt', {}, 'y = γ·x̂ + β'),
    h('dd', { class: 'text' }, el.t('layernorm.detail.affine', { gamma: el.num(gamma, 1), beta: el.num(beta, 1) }))];
  if (wrong) {
    el.stats.replaceChildren(
      h('dt', {}, 'μᵢ, σ²ᵢ'), h('dd', { class: 'text' }, el.t('layernorm.detail.perFeature', { count: T })), ...affine);
  } else {
    el.stats.replaceChildren(
      h('dt', {}, el.t('layernorm.detail.mean')), h('dd', { 'data-stat': 'mean', 'data-predict': 'mean' }, statText(el, mean[t])),
      h('dt', {}, el.t('layernorm.detail.variance')),
      h('dd', { 'data-stat': 'variance', 'data-predict': 'variance' }, statText(el, variance[t])),
      h('dt', {}, '1 / √(σ² + ε)'),
      h('dd', { 'data-stat': 'rstd', 'data-predict': 'variance' }, statText(el, rstd[t], { tiny: true })), ...affine);
  }
  el.overflowNote.hidden = !overflowed(el.result);
  el.overflowNote.textContent = el.overflowNote.hidden ? '' : el.t('layernorm.overflowNote');
  // On the wrong axis the table shows each feature's statistics instead of x̂ (x̂ = y when γ = 1, β = 0).
  const cols = [
    { key: 'x', label: 'xᵢ', v: x },
    ...(wrong ? [{ key: 'mean', label: 'μᵢ', v: mean }, { key: 'variance', label: 'σ²ᵢ', v: variance }]
      : [{ key: 'normalized', label: 'x̂ᵢ', v: normalized[t] }]),
    { key: 'output', label: 'yᵢ', v: output[t] },
  ];
  el.detailTable.replaceChildren(
    h('caption', { class: 'visually-hidden' }, el.t('layernorm.detail.caption', { token })),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'i'), ...cols.map((c) => h('th', { scope: 'col' }, c.label)))),
    h('tbody', {}, ...x.map((_, i) => h('tr', {}, h('th', { scope: 'row' }, el.num(i + 1)),
      ...cols.map((c) => h('td', { class: `num ${el.changes?.cells[t]?.[i] && c.key === 'output' ? 'changed' : ''}`,
        'data-col': c.key, 'data-predict': PREDICTED_BY[c.key] }, statText(el, c.v[i])))))));

  const groups = x.map((_, i) => String(i + 1));
  const series = [
    { key: 'x', label: el.t('layernorm.detail.before'), color: 'var(--bs-c1)', values: x },
    { key: 'y', label: el.t('layernorm.detail.after'), color: 'var(--bs-c3)', values: output[t] },
  ];
  el.detailLegend.replaceChildren(legend([...series,
    ...(wrong ? [] : [{ label: el.t('layernorm.detail.meanLegend', { mean: statText(el, mean[t]) }), color: 'var(--bs-c4)', outline: true }])]));
  el.detailChart.replaceChildren();
  return (width) => drawDetailChart(el, { groups, series, width, token, x, t, wrong });
}

/** The detail chart: token t's features before and after, with its mean. */
function drawDetailChart(el, { groups, series, width, token, x, t, wrong }) {
  const { mean, variance, output } = el.result;
  const description = el.t('layernorm.detailChart.description',
    { token, before: listText(el, x), after: listText(el, output[t]) });
  const chart = groupedBars(el.detailChart, {
    groups, series, width, height: 240,
    xLabel: el.t('layernorm.chart.featureIndex'), yLabel: el.t('layernorm.detailChart.yLabel'),
    title: el.t('layernorm.detailChart.title', { token }),
    description: wrong ? description : `${description} ${el.t('layernorm.detailChart.stats',
      { mean: el.num(mean[t], 4), variance: el.num(variance[t], 4) })}`,
    extraY: wrong ? [] : [mean[t]],
  });
  if (!wrong) {
    chart.plot.append('line').attr('class', 'mean-line').attr('x1', 0).attr('x2', chart.innerW)
      .attr('y1', chart.y(mean[t])).attr('y2', chart.y(mean[t])).attr('stroke', 'var(--bs-c4)')
      .attr('stroke-width', 2).attr('stroke-dasharray', '6 4');
  }
}

/** Fills the element's sequence table and legend; returns the drawing of the sequence chart at a given width. */
export function drawSequence(el) {
  const { rows, T, d, axis, mean, variance, output } = el.result;
  const wrong = axis === 'sequence';
  const cells = el.changes?.cells;
  const vec = (v, t) => h('div', { class: 'vec num' }, ...v.map((e, i) =>
    h('span', { class: cells?.[t]?.[i] ? 'changed' : '' }, statText(el, e))));
  const body = rows.map((_, t) => {
    const changed = el.changes?.outputs.includes(t + 1);
    return h('tr', { 'data-token': String(t + 1), 'data-changed': changed ? 'true' : null },
      h('th', { scope: 'row' }, el.t('layernorm.tokenOption', { n: t + 1 }),
        changed ? h('span', { class: 'visually-hidden' }, ` ${el.t('layernorm.sequence.outputChanged')}`) : null),
      ...(wrong ? [] : [h('td', { class: 'num', 'data-stat': 'mean', 'data-predict': 'mean' }, statText(el, mean[t])),
        h('td', { class: 'num', 'data-stat': 'variance', 'data-predict': 'variance' }, statText(el, variance[t]))]),
      h('td', { 'data-col': 'output', 'data-predict': 'output' }, vec(output[t], t)));
  });
  el.seqTable.replaceChildren(
    h('caption', { class: 'visually-hidden' }, el.t(wrong ? 'layernorm.sequence.captionWrong' : 'layernorm.sequence.caption')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, el.t('layernorm.sequence.token')),
      ...(wrong ? [] : [h('th', { scope: 'col' }, 'μ'), h('th', { scope: 'col' }, 'σ²')]),
      h('th', { scope: 'col' }, el.t('layernorm.sequence.output')))),
    h('tbody', {}, ...body),
    ...(!wrong ? [] : [h('tfoot', {},
      h('tr', {}, h('th', { scope: 'row' }, el.t('layernorm.sequence.featureMean')),
        h('td', { 'data-stat': 'feature-mean', 'data-predict': 'mean' }, vec(mean, -1))),
      h('tr', {}, h('th', { scope: 'row' }, el.t('layernorm.sequence.featureVariance')),
        h('td', { 'data-stat': 'feature-variance', 'data-predict': 'variance' }, vec(variance, -1))))]));

  const series = output.map((v, t) => ({ key: `t${t + 1}`, label: el.t('layernorm.tokenOption', { n: t + 1 }),
    color: TOKEN_COLORS[t % TOKEN_COLORS.length], values: v }));
  el.seqLegend.replaceChildren(legend(series));
  el.seqChart.replaceChildren();
  return (width) => {
    groupedBars(el.seqChart, {
      groups: rows[0].map((_, i) => String(i + 1)), series, width, height: 240,
      xLabel: el.t('layernorm.chart.featureIndex'), yLabel: el.t('layernorm.sequenceChart.yLabel'),
      title: el.t(wrong ? 'layernorm.sequenceChart.titleWrong' : 'layernorm.sequenceChart.title', { T }),
      description: output.map((v, t) => el.t('layernorm.sequenceChart.token', { n: t + 1, values: listText(el, v) })).join(' '),
    });
    el.seqChart.querySelector('svg')?.setAttribute('data-d', String(d));
  };
}

/** The axis help, the report of what an edit changed and the book's note. */
export function drawNotes(el) {
  const { axis, T, variance } = el.result;
  const wrong = axis === 'sequence';
  if (wrong) {
    el.axisText.textContent = el.t('layernorm.axisHelp.wrong', { count: T }) +
      (T === 1 ? ` ${el.t('layernorm.axisHelp.single')}` : '');
    el.flipHint.textContent = '';
  } else {
    el.axisText.textContent = el.t('layernorm.axisHelp.right');
    el.flipHint.textContent = ` ${el.t('layernorm.axisHelp.flip')}`;
  }
  const c = el.changes;
  el.editReport.classList.remove('trap');
  if (!c) {
    el.editReport.textContent = '';
  } else {
    const list = (ts) => el.t('layernorm.report.tokens', { count: ts.length, list: ts.join(', ') });
    const others = c.outputs.filter((t) => !c.inputs.includes(t));
    if (others.length) {
      el.editReport.classList.add('trap');
      el.editReport.textContent = `${el.t('layernorm.report.changed', { inputs: list(c.inputs), outputs: list(c.outputs) })} ` +
        el.t('layernorm.report.trap', { count: others.length, list: others.join(', ') });
    } else if (c.outputs.length) {
      el.editReport.textContent = el.t('layernorm.report.local', { inputs: list(c.inputs), outputs: list(c.outputs) });
    } else {
      el.editReport.textContent = el.t('layernorm.report.none', { inputs: list(c.inputs) });
    }
  }
  const book = el.presetSelect.value === 'book' && !wrong;
  el.bookNote.hidden = !book;
  if (book) el.bookNote.textContent = bookNote(el, variance);
}
