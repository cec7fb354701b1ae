// es messages for training-lab (see ../README.md).
export default {
  // Título, introducción, ajustes
  'lab.title': 'Laboratorio de entrenamiento: dos GPT lado a lado',
  'lab.description': 'Dos GPT pequeños aprenden a predecir el siguiente byte del corpus Brown (inglés estadounidense de ' +
    '1961) en esta pestaña, en un worker, un paso cada uno por turnos: lotes de {batch} ventanas de {context} bytes, ' +
    'AdamW con programación coseno y recorte del gradiente en 1. Parten de la misma semilla de Blockscope (el generador ' +
    'propio del núcleo, no torch.manual_seed) y ven los mismos lotes; solo difiere el ajuste que comparas.',
  'lab.settings': 'Ajustes',
  'lab.label.comparison': 'comparar',
  'lab.label.lr': 'tasa de aprendizaje',
  'lab.label.warmup': 'pasos de calentamiento',
  'lab.label.steps': 'pasos',
  'lab.label.layers': 'capas',
  'lab.label.embDim': 'd_model',
  'lab.lrValue': 'tasa de aprendizaje {lr}',

  // Las comparaciones y sus ejecuciones
  'lab.comparison.norm': 'pre-norm frente a post-norm',
  'lab.comparison.ffn': 'd_ff = 4·d_model frente a 2·d_model',
  'lab.comparison.activation': 'GELU frente a ReLU',
  'lab.comparison.residual': 'con o sin conexiones residuales',
  'lab.comparison.warmup': 'post-norm: con o sin calentamiento',
  'lab.run.norm.a': 'pre-norm',
  'lab.run.norm.b': 'post-norm',
  'lab.run.ffn.a': 'd_ff = 4·d_model',
  'lab.run.ffn.b': 'd_ff = 2·d_model',
  'lab.run.activation.a': 'GELU',
  'lab.run.activation.b': 'ReLU',
  'lab.run.residual.a': 'con conexiones residuales',
  'lab.run.residual.b': 'sin conexiones residuales',
  'lab.run.warmup.a': 'post-norm, con calentamiento',
  'lab.run.warmup.b': 'post-norm, sin calentamiento',
  'lab.runName': '{run}: {label}',

  // Botones y ritmo
  'lab.button.train': 'Entrenar',
  'lab.button.pause': 'Pausar',
  'lab.button.resume': 'Reanudar',
  'lab.button.done': 'Terminado',
  'lab.button.reset': 'Reiniciar',
  'lab.rate': '{rate} pasos/s por ejecución',

  // Qué observar (la nota sobre los gráficos)
  'lab.lookFor.norm.start': 'Ambas ejecuciones parten de los mismos pesos y ven los mismos lotes, sin calentamiento; ' +
    'solo difiere dónde se sitúa la LayerNorm.',
  'lab.lookFor.norm.startWarmup': {
    one: 'Ambas ejecuciones parten de los mismos pesos y ven los mismos lotes, con un calentamiento de {count} paso; ' +
      'solo difiere dónde se sitúa la LayerNorm.',
    other: 'Ambas ejecuciones parten de los mismos pesos y ven los mismos lotes, con un calentamiento de {count} pasos; ' +
      'solo difiere dónde se sitúa la LayerNorm.',
  },
  'lab.lookFor.norm': 'Medido aquí con 6 bloques y sin calentamiento: a partir de una tasa de aprendizaje de unos 0,01 ' +
    '(0,013 con la semilla 1; el límite depende un poco de la semilla), post-norm deja de aprender en sus primeros diez ' +
    'pasos, más o menos. Su pérdida se estanca cerca de 3,1 nats —el nivel de quien solo sabe lo frecuente que es cada ' +
    'byte— porque el gradiente que llega a sus capas inferiores se desploma casi a cero (mira el gráfico de gradientes), ' +
    'mientras que pre-norm sigue hasta unos 2,4. No explota a NaN: el recorte en 1 mantiene finito cada paso. Con 0,007 ' +
    'aprenden las dos, post-norm igual que pre-norm (2,50 frente a 2,51 tras 300 pasos); con 2 bloques en vez de 6, ' +
    'post-norm aguanta incluso con 0,015: el problema crece con la profundidad. Desliza la tasa de aprendizaje para ' +
    'encontrar el límite.',
  'lab.lookFor.ffn': 'Las capas feed-forward de la ejecución B son la mitad de anchas (d_ff = 2·d_model en lugar de ' +
    '4·d_model): 140.640 parámetros en lugar de 196.512 con el tamaño predeterminado, y pesos iniciales distintos. ' +
    'Medido con 0,015 tras 600 pasos: 2,38 (4×) frente a 2,40 (2×); la red más ancha es algo mejor, pero a este tamaño ' +
    'la diferencia es pequeña.',
  'lab.lookFor.activation': 'Los mismos pesos y lotes; solo difiere la activación de la red feed-forward. Medido con ' +
    '0,015 tras 600 pasos: 2,38 (GELU) frente a 2,40 (ReLU), muy parejos; a este tamaño, la normalización y las ' +
    'conexiones residuales importan mucho más.',
  'lab.lookFor.residual': 'La ejecución B no tiene conexiones de atajo: la salida de cada subcapa sustituye a su entrada ' +
    'en lugar de sumarse a ella. Medido aquí, el modelo de 6 bloques sin ellas se queda cerca de 3,1 nats (solo ' +
    'frecuencias de bytes) durante toda la ejecución con todas las tasas de aprendizaje probadas (de 0,003 a 0,03): el ' +
    'gradiente que llega a sus embeddings es entre 10⁵ y 10⁷ veces menor que el de la cabeza de salida. Con el camino ' +
    '+ x, la señal llega a todas las capas.',
  'lab.lookFor.warmup': {
    one: 'Ambas ejecuciones son post-norm. La ejecución A aumenta la tasa de aprendizaje linealmente durante {count} ' +
      'paso inicial; la ejecución B empieza con toda su intensidad. Medido con 0,015: con 60 pasos de calentamiento, ' +
      'post-norm aprende (2,47 tras 600 pasos), mientras que la ejecución sin calentamiento se estanca en 3,1; a partir ' +
      'de 0,02, ni un calentamiento de 60 pasos la salva.',
    other: 'Ambas ejecuciones son post-norm. La ejecución A aumenta la tasa de aprendizaje linealmente durante los ' +
      'primeros {count} pasos; la ejecución B empieza con toda su intensidad. Medido con 0,015: con 60 pasos de ' +
      'calentamiento, post-norm aprende (2,47 tras 600 pasos), mientras que la ejecución sin calentamiento se estanca en ' +
      '3,1; a partir de 0,02, ni un calentamiento de 60 pasos la salva.',
  },

  // Gráfico de la pérdida
  'lab.loss.heading': 'Pérdida',
  'lab.loss.explain': 'Línea fina: la pérdida de entrenamiento de cada paso; gruesa: su media sobre los últimos pasos ' +
    '(hasta 25); punteada con puntos: la pérdida de validación, sobre documentos con los que no entrena ningún modelo. ' +
    'Las líneas de la ejecución B son discontinuas. Un triángulo en el borde superior marca un pico de pérdida; una ' +
    'cruz, una ejecución que divergió.',
  'lab.loss.xLabel': 'paso de entrenamiento',
  'lab.loss.yLabel': 'pérdida (nats por byte)',
  'lab.loss.title': 'Pérdida de entrenamiento y de validación de ambas ejecuciones',
  'lab.loss.description': 'Pérdida frente al paso de entrenamiento para la ejecución A ({a}) y la ejecución B ({b}). ' +
    'Los últimos valores están en la tabla de resultados de abajo.',
  'lab.loss.uniform': 'conjetura uniforme, ln 256 = {loss}',
  'lab.loss.diverged': '{run} divergió en el paso {step}',
  'lab.loss.lrChange': 'lr → {lr}',
  'lab.loss.lrChangeTitle': 'Después del paso {step}: tasa de aprendizaje {lr}, {warmup} pasos de calentamiento, {steps} pasos en total; las ejecuciones siguieron donde estaban',
  'lab.status.rescheduled': 'Después del paso {step} ambas ejecuciones entrenan con tasa de aprendizaje {lr} ({warmup} pasos de calentamiento, {steps} pasos en total): siguen donde estaban.',
  'lab.confirm.text': 'Cambiar {setting} a {value} significa modelos nuevos: ambas ejecuciones volverían a empezar desde el paso 0 (están en el paso {step}).',
  'lab.confirm.fewerSteps': 'Las ejecuciones ya están en el paso {step}: {value} pasos en total significa volver a empezar ambas desde el paso 0.',
  'lab.confirm.restart': 'Reiniciar ambas ejecuciones',
  'lab.confirm.keep': 'Seguir entrenando',
  'lab.loss.spike': '{run}: pico de pérdida en el paso {step} ({loss} nats)',

  // Gráfico de los gradientes
  'lab.grad.heading': 'Norma del gradiente de cada capa',
  'lab.grad.explain': 'Cuánta señal de entrenamiento llega a cada capa, desde los embeddings (izquierda) hasta la cabeza ' +
    'de salida (derecha): líneas gruesas, ahora (promediadas sobre los pasos recientes); finas y punteadas, en el paso 1. ' +
    'Una línea que cae varios órdenes de magnitud hacia los embeddings indica que las capas inferiores han dejado de aprender.',
  'lab.grad.xLabel': 'capa (lado de entrada → lado de salida)',
  'lab.grad.yLabel': 'norma del gradiente (escala log.)',
  'lab.grad.title': 'Norma del gradiente de cada capa en ambas ejecuciones',
  'lab.grad.description': 'La norma del gradiente de cada capa antes del recorte, para la ejecución A ({a}) y la ' +
    'ejecución B ({b}): líneas gruesas, ahora (promediadas sobre los pasos recientes); líneas finas punteadas, en el ' +
    'paso 1. Una línea que cae en picado hacia los embeddings indica que las capas inferiores apenas reciben señal de ' +
    'entrenamiento.',
  'lab.grad.tickEmbeddings': 'emb',
  'lab.grad.tickHead': 'cabeza',

  // Muestras
  'lab.samples.heading': 'Lo que escribe cada modelo tras «{prompt}»',
  'lab.samples.explain': '{bytes} bytes muestreados a temperatura {temperature}, con los mismos sorteos aleatorios para ' +
    'ambos modelos, renovados cada pocas decenas de pasos. Los bytes que no forman un carácter UTF-8 completo se ' +
    'muestran como <0xNN>.',
  'lab.samples.after': '— tras el paso {step}',

  // Resultados
  'lab.results.heading': 'Resultados',
  'lab.results.caption': 'Últimos valores de ambas ejecuciones',
  'lab.results.run': 'ejecución',
  'lab.results.step': 'paso',
  'lab.results.trainLoss': 'pérdida de entren. (media)',
  'lab.results.valLoss': 'pérdida de val.',
  'lab.results.gradNorm': 'norma del grad.',
  'lab.results.state': 'estado',
  'lab.results.pytorch': 'Las mismas dos ejecuciones en PyTorch (los pesos y lotes con semilla del núcleo, portados): ' +
    'las pérdidas que imprime son las de arriba.',
  'lab.state.diverged': 'divergió en el paso {step}',
  'lab.state.done': 'terminada',
  'lab.state.training': 'entrenando',
  'lab.state.paused': 'en pausa',
  'lab.state.ready': 'lista',
  'lab.notes.run': '{run}:',
  'lab.notes.nonFinite': 'divergió en el paso {step}: la pérdida o un gradiente no era finito, así que el entrenamiento ' +
    'se detuvo.',
  'lab.notes.exploded': {
    one: 'divergió en el paso {step}: desde ahí, la pérdida se mantuvo por encima de una conjetura uniforme (ln 256) ' +
      'durante {count} paso, así que el entrenamiento se detuvo.',
    other: 'divergió en el paso {step}: desde ahí, la pérdida se mantuvo por encima de una conjetura uniforme (ln 256) ' +
      'durante {count} pasos, así que el entrenamiento se detuvo.',
  },
  'lab.notes.spike': 'pico de pérdida en el paso {step} ({loss} nats, peor que una conjetura uniforme).',
  'lab.notes.spikes': {
    one: 'pico de pérdida en el paso {step} ({loss} nats, peor que una conjetura uniforme) y {count} más.',
    other: 'pico de pérdida en el paso {step} ({loss} nats, peor que una conjetura uniforme) y {count} más.',
  },
  'lab.notes.vanished': 'desde el paso {step}, el gradiente que llega a los embeddings es menor que 1/100.000 del de la ' +
    'cabeza de salida: las capas inferiores han dejado de aprender.',

  // Checkpoints
  'lab.checkpoints.heading': 'Los modelos que has entrenado',
  'lab.checkpoints.explain': {
    one: 'Cada ejecución guarda sus pesos tras cada paso (desde el paso 0). Pasa una ejecución al explorador GPT de esta ' +
      'página para mirar dentro de ella —recorre sus checkpoints para ver cómo se forman la atención y las estadísticas ' +
      'de LayerNorm— o descarga uno como config.json + model.safetensors para la CLI o PyTorch.',
    other: 'Cada ejecución guarda sus pesos cada {count} pasos (desde el paso 0). Pasa una ejecución al explorador GPT de ' +
      'esta página para mirar dentro de ella —recorre sus checkpoints para ver cómo se forman la atención y las ' +
      'estadísticas de LayerNorm— o descarga uno como config.json + model.safetensors para la CLI o PyTorch.',
  },
  'lab.checkpoints.label': '{run}: {label}, paso',
  'lab.checkpoints.select': 'checkpoint de la ejecución {run}',
  'lab.checkpoints.inspect': 'Examinar la ejecución {run} en el explorador GPT',
  'lab.checkpoints.download': 'Descargar',
  'lab.checkpoints.noExplorer': 'No hay ningún <gpt-explorer> en esta página: descarga el checkpoint.',
  'lab.checkpoints.explorerLabel': 'laboratorio de entrenamiento, ejecución {run} ({label})',
  'lab.checkpoints.inExplorer': 'La ejecución {run} en el paso {step} está en el explorador GPT.',
  'lab.checkpoints.downloaded': 'Descargados {weights} y {config}: cámbiales el nombre a model.safetensors y ' +
    'config.json en un mismo directorio para blockscope --model DIR.',

  // Línea de estado
  'lab.status.waiting': 'El laboratorio carga su corpus cuando aparece en pantalla.',
  'lab.status.hidden': 'En pausa mientras la pestaña está oculta; continúa cuando vuelvas.',
  'lab.status.building': 'Cargando el corpus y construyendo ambos modelos…',
  'lab.status.ready': 'Listo: la ejecución A tiene {a} parámetros y la B, {b} (wasm {flavour}). Pulsa «Entrenar».',
  'lab.status.training': 'Entrenando…',
  'lab.status.pausedAt': 'En pausa en el paso {step}.',
  'lab.status.pausedAfter': 'En pausa tras el paso {a} (A) y el {b} (B).',
  'lab.status.finished': 'Terminado: {a}; {b}. Reinicia para volver a entrenar.',
  'lab.status.stopped': 'El entrenamiento se detuvo: {message}',
  'lab.summary.diverged': '{run} ({label}) divergió en el paso {step}',
  'lab.summary.validation': '{run} ({label}): pérdida de validación {loss}',
  'lab.error.corpus': 'no se pudo cargar el corpus {file} (HTTP {status})',
};
