// en messages for gelu-explorer (see ../README.md).
export default {
  'gelu.title': 'GELU vs ReLU',
  'gelu.instructions': 'Hover or tap the plot (drag sideways to scan), or focus it and use ←/→ (Shift for bigger steps, Home/End). Every number comes from the Blockscope core.',
  // On a touch screen (pointer: coarse) the instructions speak of tapping and dragging, not hovering.
  'gelu.instructions.touch': 'Tap the plot, or drag sideways along it, to read the values; with a keyboard, focus it and use ←/→ (Shift for bigger steps, Home/End). Every number comes from the Blockscope core.',
  'gelu.loading': 'Loading the core…',
  'gelu.ready': '{points} points from the core (wasm {flavour}).',
  'gelu.failed': 'Could not compute the curves: {message}',

  // the curves (legend, readout rows, the slider's value text)
  'gelu.curve.gelu_tanh': 'GELU (tanh approx.)',
  'gelu.curve.gelu_erf': 'GELU (exact, erf)',
  'gelu.curve.relu': 'ReLU',
  'gelu.legend.derivatives': 'thin, dotted: derivatives f′(x)',

  // controls
  'gelu.control.min': 'x from',
  'gelu.control.max': 'to',
  'gelu.field.minBelowMax': 'Must be less than the right end ({max}).',
  'gelu.field.maxAboveMin': 'Must be greater than the left end ({min}).',
  'gelu.control.derivative': 'show derivatives',
  'gelu.control.difference': 'show tanh − erf difference',
  'gelu.control.checkForm': 'Your code computes',
  'gelu.control.checkForm.tanh': 'the tanh approximation',
  'gelu.control.checkForm.erf': 'the exact erf form',

  // the chart
  'gelu.chart.label': 'x position of the readout',
  'gelu.chart.title': 'GELU and ReLU activation curves',
  'gelu.chart.description': 'GELU (tanh and erf forms) and ReLU from {lo} to {hi}. GELU is smooth, slightly negative for negative inputs with a minimum near x = {dip}, and approaches ReLU for large |x|.',
  'gelu.chart.xLabel': 'input x',
  'gelu.chart.yLabel': 'activation f(x)',
  'gelu.chart.yLabelDerivatives': 'f(x) and f′(x)',
  'gelu.chart.dip': 'dip {y} at x ≈ {x}',
  'gelu.chart.valueText': 'x = {x}: {values}',
  'gelu.chart.curveValue': '{curve} {value}',
  'gelu.chart.hidden': 'hidden until you predict it',

  // the readout table, the difference, the formula, the eight values
  'gelu.readout.caption': 'Activation values at the readout position, computed by the core',
  'gelu.readout.function': 'function',
  'gelu.difference': 'Largest |GELU-tanh − GELU-erf| on this range: {worst} at x = {x} — the approximation is within about 1e-3 everywhere.',
  'gelu.formula': '{definition}, where Φ is the standard normal CDF (the probability that a N(0, 1) variable is below x); the tanh form approximates it as {tanh}, with {constant}.',
  'gelu.eight.caption': 'The lesson’s eight values, computed by the core',
  'gelu.eight.note': 'The table of the eight values appears once you have made your prediction.',

  // the check panel: completes "paste …"
  'gelu.check.what': 'your GELU ({form}) of the lesson’s eight inputs, {code}',
  'gelu.check.form.tanh': 'tanh form',
  'gelu.check.form.erf': 'exact erf form',

  // predictions: GELU at x, and the seed's quiz
  'gelu.predict.value': 'Predict GELU({x}) in {form}.',
  'gelu.predict.form.tanh': 'the tanh approximation',
  'gelu.predict.form.erf': 'the exact erf form',
  'gelu.predict.hint.relu': 'That is ReLU’s value, max(0, x): GELU weights x by Φ(x) instead of cutting it.',
  'gelu.predict.hint.identity': 'That is x itself: GELU(x) = x·Φ(x), and Φ(x) < 1.',
  'gelu.predict.hint.otherForm': 'That is the other GELU form ({form}).',
  'gelu.predict.otherForm.erf': 'exact erf',
  'gelu.predict.otherForm.tanh': 'tanh',
  'gelu.quiz.prompt': 'Check yourself — GELU vs ReLU: what distinguishes them?',
  'gelu.quiz.bounded': 'GELU is bounded: its outputs stay between 0 and 1',
  'gelu.quiz.bounded.hint': 'That is the sigmoid. GELU grows like x for large x (GELU(3) ≈ {value}).',
  'gelu.quiz.zero': 'GELU is exactly 0 for every negative input',
  'gelu.quiz.zero.hint': 'That is ReLU. GELU is slightly negative there, with a dip of about {dip} near x = {x}.',
  'gelu.quiz.smooth': 'GELU is smooth and lets small negative values through; ReLU cuts them to 0 with a kink at 0',
  'gelu.quiz.linear': 'GELU is linear, so the FFN needs no other nonlinearity',
  'gelu.quiz.linear.hint': 'GELU is nonlinear: that is why the FFN is more than one linear map.',
};
