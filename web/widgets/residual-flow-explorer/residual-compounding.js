// residual-compounding.js — <residual-flow-explorer>'s compounding toy (seed 002): one illustrative factor per layer,
// multiplied over the depth — 2¹⁰ ≈ 1024 explodes, 0.5¹⁰ ≈ 0.001 vanishes — drawn next to what the two real networks
// above did: their layer-1 over layer-L gradient ratio (from the core's backward pass) and the per-layer factor that
// ratio amounts to. The toy's numbers are plain arithmetic on the factor (no network); the real ones are the core's.
// Its text is in the widget's language (host: the element's panelPort); the PyTorch snippet below is code and stays
// English and locale-free. A helper of the element, not a custom element.
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleBand, scaleLog } from 'd3-scale';

import { h } from '../kit/base.js';
import { chartWidth, createChart, naturalSize } from '../kit/chart-kit.js';

/** A product for reading: 2 decimals (4 below 1), or 9.77 × 10^−4 when tiny or huge; in host's language. */
function sci(host, v) {
  if (v >= 1e4 || v < 1e-2) {
    const [m, e] = v.toExponential(2).split('e');
    return `${host.num(Number(m), 2)} × 10^${e.replace('+', '').replace('-', '−')}`;
  }
  return host.num(v, v < 1 ? 4 : 2);
}

export class Compounding {
  constructor(host) {
    this.host = host;
    const t = (key, params) => host.t(key, params);
    this.factor = h('input', { type: 'number', id: 'toy-factor', min: '0.1', max: '3', step: '0.1', value: '0.5',
      inputmode: 'decimal', 'aria-describedby': 'toy-result' });
    this.steps = h('input', { type: 'number', id: 'toy-steps', min: '1', max: '30', step: '1', value: '10',
      inputmode: 'numeric', 'aria-describedby': 'toy-result' });
    for (const el of [this.factor, this.steps]) el.addEventListener('input', () => this.draw());
    this.presets = [0.5, 2].map((f) => h('button', { type: 'button', 'data-factor': String(f), onclick: () => {
      this.factor.value = String(f);
      this.steps.value = '10';
      this.draw();
    } }, t('residual.toy.preset', { factor: host.num(f), layers: 10 })));
    this.result = h('p', { class: 'toy-result', id: 'toy-result', role: 'status', 'aria-live': 'polite' });
    this.real = h('p', { class: 'toy-real' });
    this.chart = h('div', { class: 'chart toy-chart' });
    const row = h('div', { class: 'row' }, h('label', { for: 'toy-factor' }, `${t('residual.toy.factor')} `), this.factor,
      h('label', { for: 'toy-steps' }, ` ${t('residual.toy.layers')} `), this.steps, ...this.presets);
    /** What the learner operates (the element's control group "compounding"). */
    this.boundControls = [row];
    this.root = h('section', { class: 'compounding', part: 'compounding', 'aria-labelledby': 'toy-title' },
      h('h4', { id: 'toy-title' }, t('residual.toy.title')),
      h('p', { class: 'muted' }, t('residual.toy.intro')),
      row, this.result, this.chart, this.real);
  }

  read() {
    const f = Math.min(3, Math.max(0.1, Number(this.factor.value) || 0.5));
    const L = Math.min(30, Math.max(1, Math.round(Number(this.steps.value) || 10)));
    return { f, L };
  }

  /** real: {withoutResidual, withResidual} per-layer gradient norms (layer 1 first) from the core, or null. */
  draw(real = this.realNorms) {
    this.realNorms = real;
    const { f, L } = this.read();
    const host = this.host;
    const product = f ** L;
    const key = product > 1 ? 'residual.toy.explodes' : product < 1 ? 'residual.toy.vanishes' : 'residual.toy.same';
    this.result.textContent = host.t(key, { f: host.num(f, 1), L, product: sci(host, product) });
    if (real) {
      const nets = { 'residual.net.withoutShort': real.withoutResidual, 'residual.net.withShort': real.withResidual };
      const parts = Object.entries(nets).map(([label, n]) => {
        const ratio = n[0] / n[n.length - 1];
        const per = n.length > 1 ? ratio ** (1 / (n.length - 1)) : 1;
        return host.t('residual.toy.realNet', { net: host.t(label), L: n.length, ratio: sci(host, ratio), per: host.num(per, 3) });
      });
      this.real.textContent = host.t('residual.toy.real', { nets: parts.join('; ') });
    }
    this.drawChart(f, L);
  }

  drawChart(f, L) {
    this.chart.replaceChildren();
    const width = chartWidth(this.chart, { min: 260, max: 560 });
    const values = Array.from({ length: L + 1 }, (_, k) => f ** k);
    const host = this.host;
    const chart = createChart(this.chart, { width, height: 170,
      xLabel: host.t('residual.toy.xLabel'), yLabel: host.t('residual.toy.yLabel'),
      title: host.t('residual.toy.chartTitle', { f: host.num(f, 1), L }),
      description: values.map((v, k) => `${host.num(k)}: ${sci(host, v)}`).join(host.t('residual.sep')) });
    naturalSize(chart, width, 170);
    const lo = Math.min(...values, 1);
    const hi = Math.max(...values, 1);
    const y = scaleLog().domain([lo / 1.5, hi * 1.5]).range([chart.innerH, 0]);
    const x = scaleBand().domain(values.map((_, k) => String(k))).range([0, chart.innerW]).padding(0.2);
    chart.root.select('.x-axis').call(axisBottom(x).tickValues(x.domain().filter((_, k) => k % Math.ceil((L + 1) / 10) === 0)));
    chart.root.select('.y-axis').call(axisLeft(y).ticks(4, '~e'));
    chart.plot.selectAll('rect').data(values).join('rect').attr('x', (_, k) => x(String(k))).attr('width', x.bandwidth())
      .attr('y', (v) => Math.min(y(v), y(1))).attr('height', (v) => Math.abs(y(1) - y(v)))
      .attr('fill', f > 1 ? 'var(--bs-c2)' : 'var(--bs-c1)');
  }
}

/**
 * The widget's experiment as PyTorch. In the lesson's view: lesson 82 §21's code verbatim (its torch.manual_seed(7)
 * draws the weights the widget loaded), printing every layer's gradient norm, which the widget shows. With other
 * settings the weights are Blockscope-seeded: the snippet runs the same experiment on PyTorch's own draws and says so.
 */
export function lessonSnippet({ depth, std, activation, layernorm, sameStd }, lesson) {
  const act = { tanh: 'torch.tanh', gelu: 'lambda t: torch.nn.functional.gelu(t, approximate="tanh")', relu: 'torch.relu' }[activation];
  const ln = layernorm;
  return [
    lesson ? '# Blockscope <residual-flow-explorer>: lesson 82 §21, verbatim; it prints the norms the widget shows.'
      : '# Blockscope <residual-flow-explorer>: the widget\'s settings on PyTorch\'s own weights (the widget\'s come from a\n' +
        '# Blockscope seed, the core\'s generator, so its numbers differ from these; the lesson\'s view is reproducible).',
    'import torch, torch.nn as nn',
    'torch.manual_seed(7)',
    `depth, d = ${depth}, 16`,
    `act = ${act}`,
    '',
    'class NoRes(nn.Module):',
    '    def __init__(self):',
    '        super().__init__()',
    '        self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(depth)])',
    ...(ln ? ['        self.norms = nn.ModuleList([nn.LayerNorm(d) for _ in range(depth)])'] : []),
    `        for l in self.layers: nn.init.normal_(l.weight, std=${std})`,
    '    def forward(self, x):',
    ln ? '        for l, n in zip(self.layers, self.norms): x = act(l(n(x)))' : '        for l in self.layers: x = act(l(x))',
    '        return x',
    '',
    'class WithRes(nn.Module):',
    '    def __init__(self):',
    '        super().__init__()',
    '        self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(depth)])',
    ...(ln ? ['        self.norms = nn.ModuleList([nn.LayerNorm(d) for _ in range(depth)])'] : []),
    ...(sameStd ? [`        for l in self.layers: nn.init.normal_(l.weight, std=${std})`] : []),
    '    def forward(self, x):',
    ln ? '        for l, n in zip(self.layers, self.norms): x = x + act(l(n(x)))' : '        for l in self.layers: x = x + act(l(x))',
    '        return x',
    '',
    'x = torch.randn(4, d)',
    "for Cls, name in [(NoRes, 'withoutResidual'), (WithRes, 'withResidual')]:",
    '    model = Cls(); model(x).sum().backward()',
    '    gnorms = [l.weight.grad.norm().item() for l in model.layers]',
    '    print(name, gnorms)',
  ].join('\n') + '\n';
}
