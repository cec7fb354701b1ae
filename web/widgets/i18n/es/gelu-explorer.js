// es messages for gelu-explorer (see ../README.md).
export default {
  'gelu.title': 'GELU frente a ReLU',
  'gelu.instructions': 'Pasa el ratón por el gráfico o tócalo (arrastra de lado para recorrerlo), o ponle el foco y usa ←/→ (Mayús para pasos más grandes, Inicio/Fin). Cada número viene del núcleo de Blockscope.',
  'gelu.instructions.touch': 'Toca el gráfico o arrastra el dedo de lado por él para leer los valores; con teclado, ponle el foco y usa ←/→ (Mayús para pasos más grandes, Inicio/Fin). Cada número viene del núcleo de Blockscope.',
  'gelu.loading': 'Cargando el núcleo…',
  'gelu.ready': '{points} puntos calculados por el núcleo (wasm {flavour}).',
  'gelu.failed': 'No se pudieron calcular las curvas: {message}',

  // the curves (legend, readout rows, the slider's value text)
  'gelu.curve.gelu_tanh': 'GELU (aprox. tanh)',
  'gelu.curve.gelu_erf': 'GELU (exacta, erf)',
  'gelu.curve.relu': 'ReLU',
  'gelu.legend.derivatives': 'finas, punteadas: derivadas f′(x)',

  // controls
  'gelu.control.min': 'x desde',
  'gelu.control.max': 'hasta',
  'gelu.field.minBelowMax': 'Debe ser menor que el extremo derecho ({max}).',
  'gelu.field.maxAboveMin': 'Debe ser mayor que el extremo izquierdo ({min}).',
  'gelu.control.derivative': 'mostrar derivadas',
  'gelu.control.difference': 'mostrar la diferencia tanh − erf',
  'gelu.control.checkForm': 'Tu código calcula',
  'gelu.control.checkForm.tanh': 'la aproximación tanh',
  'gelu.control.checkForm.erf': 'la forma exacta con erf',

  // the chart
  'gelu.chart.label': 'posición x de la lectura',
  'gelu.chart.title': 'Curvas de activación de GELU y ReLU',
  'gelu.chart.description': 'GELU (formas tanh y erf) y ReLU de {lo} a {hi}. GELU es suave, ligeramente negativa para entradas negativas, con un mínimo cerca de x = {dip}, y se aproxima a ReLU para |x| grande.',
  'gelu.chart.xLabel': 'entrada x',
  'gelu.chart.yLabel': 'activación f(x)',
  'gelu.chart.yLabelDerivatives': 'f(x) y f′(x)',
  'gelu.chart.dip': 'mínimo {y} en x ≈ {x}',
  'gelu.chart.valueText': 'x = {x}: {values}',
  'gelu.chart.curveValue': '{curve} {value}',
  'gelu.chart.hidden': 'oculto hasta que hagas tu predicción',

  // the readout table, the difference, the formula, the eight values
  'gelu.readout.caption': 'Valores de activación en la posición de lectura, calculados por el núcleo',
  'gelu.readout.function': 'función',
  'gelu.difference': 'Mayor |GELU-tanh − GELU-erf| en este rango: {worst} en x = {x}; la aproximación queda dentro de 1e-3, aproximadamente, en todas partes.',
  'gelu.formula': '{definition}, donde Φ es la función de distribución de la normal estándar (la probabilidad de que una variable N(0, 1) sea menor que x); la forma tanh la aproxima como {tanh}, con {constant}.',
  'gelu.eight.caption': 'Los ocho valores de la lección, calculados por el núcleo',
  'gelu.eight.note': 'La tabla de los ocho valores aparece cuando hayas hecho tu predicción.',

  // the check panel: completes "pega …"
  'gelu.check.what': 'tu GELU ({form}) de las ocho entradas de la lección, {code}',
  'gelu.check.form.tanh': 'forma tanh',
  'gelu.check.form.erf': 'forma exacta con erf',

  // predictions: GELU at x, and the seed's quiz
  'gelu.predict.value': 'Predice GELU({x}) con {form}.',
  'gelu.predict.form.tanh': 'la aproximación tanh',
  'gelu.predict.form.erf': 'la forma exacta con erf',
  'gelu.predict.hint.relu': 'Ese es el valor de ReLU, max(0, x): GELU pondera x por Φ(x) en lugar de recortarlo.',
  'gelu.predict.hint.identity': 'Ese es el propio x: GELU(x) = x·Φ(x), y Φ(x) < 1.',
  'gelu.predict.hint.otherForm': 'Esa es la otra forma de GELU ({form}).',
  'gelu.predict.otherForm.erf': 'exacta, erf',
  'gelu.predict.otherForm.tanh': 'tanh',
  'gelu.quiz.prompt': 'Ponte a prueba — GELU frente a ReLU: ¿qué las distingue?',
  'gelu.quiz.bounded': 'GELU está acotada: sus salidas quedan entre 0 y 1',
  'gelu.quiz.bounded.hint': 'Esa es la sigmoide. GELU crece como x para x grande (GELU(3) ≈ {value}).',
  'gelu.quiz.zero': 'GELU es exactamente 0 para toda entrada negativa',
  'gelu.quiz.zero.hint': 'Esa es ReLU. GELU es ligeramente negativa ahí, con un mínimo de unos {dip} cerca de x = {x}.',
  'gelu.quiz.smooth': 'GELU es suave y deja pasar valores negativos pequeños; ReLU los lleva a 0 con un quiebre en 0',
  'gelu.quiz.linear': 'GELU es lineal, así que la FFN no necesita ninguna otra no linealidad',
  'gelu.quiz.linear.hint': 'GELU no es lineal: por eso la FFN es más que una sola aplicación lineal.',
};
