// es messages for residual-flow-explorer (see ../README.md).
export default {
  // Números en una lista (la coma decimal exige otro separador).
  'residual.sep': '; ',

  'residual.title': 'Flujo del gradiente con conexiones residuales: con y sin',
  'residual.description': 'Dos pilas de capas Linear({dim}, {dim}) con una activación, una con atajos y otra sin ellos, procesan el mismo lote de 4 entradas. La pérdida es la suma de la salida (y.sum()); el gráfico muestra lo grande que es el gradiente de los pesos de cada capa tras la pasada hacia atrás del núcleo. La capa 1 es la más alejada de la pérdida.',
  'residual.loading': 'Cargando el núcleo…',

  // Controles
  'residual.depth': 'profundidad',
  'residual.depthValue': { one: '{count} capa', other: '{count} capas' },
  'residual.std': 'std inicial',
  'residual.stdValue': 'desviación típica {std}',
  'residual.activation': 'activación',
  'residual.act.tanh': 'tanh',
  'residual.act.gelu': 'GELU (aprox. tanh)',
  'residual.act.relu': 'ReLU',
  'residual.layernorm': 'LayerNorm dentro de cada capa: f(x) = act(W·LN(x) + b)',
  'residual.sameStd': 'la red residual usa la misma inicialización N(0, std)',
  'residual.stdHelp': 'La std fija los pesos de la red simple, N(0, std) como en la lección. La red residual conserva la inicialización predeterminada de Linear en PyTorch (uniforme ±1/√16, std ≈ 0,14), también como en la lección, salvo que marques «misma inicialización N(0, std)»: entonces ambas redes se inicializan con la misma distribución y solo las diferencia el atajo.',
  'residual.lowStd': 'Std 0,1: mira cómo se desvanece el gradiente de la red simple',
  'residual.reseed': 'Nueva semilla',
  'residual.reseedTo': 'Nueva semilla (semilla de Blockscope {seed})',
  'residual.backToLesson': 'Volver a los pesos de la lección',

  // Lo que se calcula, y el estado
  'residual.setup.net': { one: '{count} capa, d = {dim}, {act}', other: '{count} capas, d = {dim}, {act}' },
  'residual.setup.netLayerNorm': {
    one: '{count} capa, d = {dim}, {act}, con LayerNorm dentro',
    other: '{count} capas, d = {dim}, {act}, con LayerNorm dentro',
  },
  'residual.setup.lesson': 'los propios pesos de PyTorch y la entrada de la lección (exactamente el experimento de la lección).',
  'residual.setup.seededSame': 'pesos de ambas redes ~ N(0, {std}); pesos de la semilla {seed} de Blockscope (el generador del núcleo, no el de PyTorch), entrada: el lote x de la lección.',
  'residual.setup.seededDefault': 'pesos de la red simple ~ N(0, {std}), red residual con la inicialización predeterminada de PyTorch; pesos de la semilla {seed} de Blockscope (el generador del núcleo, no el de PyTorch), entrada: el lote x de la lección.',
  'residual.status.computed': 'Calculado por el núcleo (wasm {flavour}).',
  'residual.status.notes': '{notes}. Calculado por el núcleo (wasm {flavour}).',
  'residual.note.notNumber': '{name} «{raw}» no es un número; se usa {value}',
  'residual.note.outside': '{name} {raw} está fuera de {lo}–{hi}; se usa {value}',
  'residual.note.outsideSeed': '{name} {raw} está fuera de {lo}–2⁵³ − 1; se usa {value}',
  'residual.note.notWhole': '{name} {raw} no es un número entero; se usa {value}',
  'residual.note.activation': 'activation «{raw}» no es ninguna de {options}; se usa tanh',
  'residual.note.zeros': {
    one: '{count} norma del gradiente es exactamente 0 (por debajo del rango de float32); se dibuja como marca hueca en el borde inferior',
    other: '{count} normas del gradiente son exactamente 0 (por debajo del rango de float32); se dibujan como marcas huecas en el borde inferior',
  },
  'residual.note.overflows': {
    one: '{count} norma del gradiente no es finita; se dibuja en el borde superior',
    other: '{count} normas del gradiente no son finitas; se dibujan en el borde superior',
  },
  'residual.presetFailed': 'No se pudieron cargar los pesos de la lección ({detail}).',
  'residual.presetIncomplete': 'A los pesos de la lección les falta {detail}.',

  // Los resultados: gráfico, cocientes, tabla
  'residual.net.without': 'sin conexión residual: x = f(x)',
  'residual.net.with': 'con conexión residual: x = x + f(x)',
  'residual.net.withoutShort': 'sin conexión residual',
  'residual.net.withShort': 'con conexión residual',
  'residual.chart.xLabel': 'capa (1 = la más cercana a la entrada)',
  'residual.chart.yLabel': '‖∂loss/∂W‖ (escala logarítmica)',
  'residual.chart.title': 'Norma del gradiente de los pesos por capa, {L} capas, con y sin conexiones residuales',
  'residual.chart.series': '{net}: capa 1 {first}, capa {L} {last}',
  'residual.chart.description': '{series}. Todos los valores están en la tabla de abajo.',
  'residual.ratio': '{net}: capa 1 / capa {L}',
  'residual.undefined': 'indefinido',
  'residual.torch': 'PyTorch imprimió «{plain}» y «{residual}»; las normas del núcleo difieren de las de PyTorch como mucho en {rel} (relativo).',
  'residual.tableSummary': 'Los números en una tabla',
  'residual.table.caption': 'Norma del gradiente de los pesos de cada capa, calculada por el núcleo, para {L} capas',
  'residual.table.layer': 'capa',

  // Por qué el atajo transporta el gradiente
  'residual.why.title': 'Por qué el atajo transporta el gradiente',
  'residual.why.text': 'Una capa residual calcula x + f(x), así que, por la regla de la cadena, {math}. El «1» es un camino que se salta la capa: multiplicado a lo largo de la pila, el gradiente que llega a la capa 1 siempre contiene el gradiente de la pérdida sin cambios, más términos de corrección, por pequeño que sea cada f′. Sin el atajo, el factor es solo f′(x) (los pesos de la capa por la pendiente de la activación), y la capa 1 recibe un producto de profundidad − 1 de esos factores: se encoge geométricamente cuando son menores que 1 y crece cuando son mayores.',
  'residual.why.noteTitle': 'Lo que muestran los números de la lección, y lo que no.',
  'residual.why.note': 'Con la std 0,3 de la lección, la red simple no tiene gradientes que se desvanecen: la capa 1 recibe 15,07, más que los 9,79 de la capa 8. Cada capa tanh escala el gradiente en aproximadamente std·√d = 0,3·√16 = 1,2 (menos donde tanh se satura), así que ocho capas ni lo encogen ni lo hacen crecer mucho. Con std 0,1 la ganancia es de unos 0,4 por capa: el gradiente de la capa 1 de la red simple se desploma varios órdenes de magnitud, mientras que el de la red residual se mantiene cerca de su valor en la capa 8. Las pilas más profundas refuerzan ambos efectos; una std cercana a 1 hace, en cambio, que el gradiente de la red simple explote.',

  // El efecto compuesto
  'residual.toy.title': 'Efecto compuesto: un factor por capa',
  'residual.toy.intro': 'Una ilustración, no una red: cada paso hacia atrás multiplica el gradiente por el mismo factor, así que tras L pasos es factor^L. Las capas reales multiplican por números distintos, pero la profundidad los compone de la misma manera.',
  'residual.toy.factor': 'factor por capa',
  'residual.toy.layers': 'capas',
  'residual.toy.preset': '{factor} por capa, {layers} capas',
  'residual.toy.explodes': '{f}^{L} = {product}: el gradiente que llega a la primera capa es {product} veces el que salió de la última: explota.',
  'residual.toy.vanishes': '{f}^{L} = {product}: a la primera capa le llega {product} de él: se desvanece.',
  'residual.toy.same': '{f}^{L} = {product}: se mantiene igual.',
  'residual.toy.realNet': '{net}: capa 1 / capa {L} = {ratio}, como si cada capa multiplicara por {per}',
  'residual.toy.real': 'Las redes reales de arriba (pasada hacia atrás del núcleo): {nets}.',
  'residual.toy.xLabel': 'capas multiplicadas',
  'residual.toy.yLabel': 'factor^L (log)',
  'residual.toy.chartTitle': '{f} multiplicado a lo largo de {L} capas',
};
