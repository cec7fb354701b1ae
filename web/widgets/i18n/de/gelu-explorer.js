// de messages for gelu-explorer (see ../README.md).
export default {
  'gelu.title': 'GELU vs. ReLU',
  'gelu.instructions': 'Fahren Sie mit der Maus über das Diagramm oder tippen Sie darauf (seitlich ziehen, um es abzutasten), oder fokussieren Sie es und verwenden Sie ←/→ (Umschalt für größere Schritte, Pos1/Ende). Jede Zahl stammt aus dem Blockscope-Kern.',
  'gelu.instructions.touch': 'Tippen Sie auf das Diagramm oder ziehen Sie seitlich darüber, um die Werte abzulesen; mit einer Tastatur fokussieren Sie es und verwenden ←/→ (Umschalt für größere Schritte, Pos1/Ende). Jede Zahl stammt aus dem Blockscope-Kern.',
  'gelu.loading': 'Der Kern wird geladen…',
  'gelu.ready': '{points} Punkte aus dem Kern (wasm {flavour}).',
  'gelu.failed': 'Die Kurven ließen sich nicht berechnen: {message}',

  // the curves (legend, readout rows, the slider's value text)
  'gelu.curve.gelu_tanh': 'GELU (tanh-Näherung)',
  'gelu.curve.gelu_erf': 'GELU (exakt, erf)',
  'gelu.curve.relu': 'ReLU',
  'gelu.legend.derivatives': 'dünn, gepunktet: Ableitungen f′(x)',

  // controls
  'gelu.control.min': 'x von',
  'gelu.control.max': 'bis',
  'gelu.field.minBelowMax': 'Muss kleiner als das rechte Ende ({max}) sein.',
  'gelu.field.maxAboveMin': 'Muss größer als das linke Ende ({min}) sein.',
  'gelu.control.derivative': 'Ableitungen zeigen',
  'gelu.control.difference': 'Differenz tanh − erf zeigen',
  'gelu.control.checkForm': 'Ihr Code berechnet',
  'gelu.control.checkForm.tanh': 'die tanh-Näherung',
  'gelu.control.checkForm.erf': 'die exakte erf-Form',

  // the chart
  'gelu.chart.label': 'x-Position der Ablesestelle',
  'gelu.chart.title': 'Aktivierungskurven von GELU und ReLU',
  'gelu.chart.description': 'GELU (tanh- und erf-Form) und ReLU von {lo} bis {hi}. GELU ist glatt, für negative Eingaben leicht negativ mit einem Minimum nahe x = {dip}, und nähert sich für großes |x| der ReLU an.',
  'gelu.chart.xLabel': 'Eingabe x',
  'gelu.chart.yLabel': 'Aktivierung f(x)',
  'gelu.chart.yLabelDerivatives': 'f(x) und f′(x)',
  'gelu.chart.dip': 'Minimum {y} bei x ≈ {x}',
  'gelu.chart.valueText': 'x = {x}: {values}',
  'gelu.chart.curveValue': '{curve} {value}',
  'gelu.chart.hidden': 'verborgen, bis Sie eine Vorhersage abgeben',

  // the readout table, the difference, the formula, the eight values
  'gelu.readout.caption': 'Aktivierungswerte an der Ablesestelle, berechnet vom Kern',
  'gelu.readout.function': 'Funktion',
  'gelu.difference': 'Größtes |GELU-tanh − GELU-erf| in diesem Bereich: {worst} bei x = {x} — die Näherung ist überall auf etwa 1e-3 genau.',
  'gelu.formula': '{definition}, wobei Φ die Verteilungsfunktion der Standardnormalverteilung ist (die Wahrscheinlichkeit, dass eine N(0, 1)-verteilte Variable kleiner als x ist); die tanh-Form nähert sie an als {tanh}, mit {constant}.',
  'gelu.eight.caption': 'Die acht Werte der Lektion, berechnet vom Kern',
  'gelu.eight.note': 'Die Tabelle der acht Werte erscheint, sobald Sie Ihre Vorhersage abgegeben haben.',

  // the check panel: completes "fügen Sie … ein"
  'gelu.check.what': 'Ihre GELU ({form}) der acht Eingaben der Lektion ({code})',
  'gelu.check.form.tanh': 'tanh-Form',
  'gelu.check.form.erf': 'exakte erf-Form',

  // predictions: GELU at x, and the seed's quiz
  'gelu.predict.value': 'Sagen Sie GELU({x}) in {form} voraus.',
  'gelu.predict.form.tanh': 'der tanh-Näherung',
  'gelu.predict.form.erf': 'der exakten erf-Form',
  'gelu.predict.hint.relu': 'Das ist der Wert von ReLU, max(0, x): GELU gewichtet x mit Φ(x), statt es abzuschneiden.',
  'gelu.predict.hint.identity': 'Das ist x selbst: GELU(x) = x·Φ(x), und Φ(x) < 1.',
  'gelu.predict.hint.otherForm': 'Das ist die andere GELU-Form ({form}).',
  'gelu.predict.otherForm.erf': 'exakt, erf',
  'gelu.predict.otherForm.tanh': 'tanh',
  'gelu.quiz.prompt': 'Selbsttest — GELU und ReLU: Was unterscheidet sie?',
  'gelu.quiz.bounded': 'GELU ist beschränkt: Die Ausgaben bleiben zwischen 0 und 1',
  'gelu.quiz.bounded.hint': 'Das ist die Sigmoidfunktion. GELU wächst für große x wie x (GELU(3) ≈ {value}).',
  'gelu.quiz.zero': 'GELU ist für jede negative Eingabe genau 0',
  'gelu.quiz.zero.hint': 'Das ist ReLU. GELU ist dort leicht negativ, mit einem Minimum von etwa {dip} nahe x = {x}.',
  'gelu.quiz.smooth': 'GELU ist glatt und lässt kleine negative Werte durch; ReLU setzt sie mit einem Knick bei 0 auf 0',
  'gelu.quiz.linear': 'GELU ist linear, daher braucht das FFN keine weitere Nichtlinearität',
  'gelu.quiz.linear.hint': 'GELU ist nichtlinear: Deshalb ist das FFN mehr als eine einzige lineare Abbildung.',
};
