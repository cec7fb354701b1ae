// es messages for gpt-explorer (see ../README.md).
export default {
  // The widget's frame and status line
  'gpt.title': 'Una pasada hacia delante de GPT en esta pestaña',
  'gpt.description': 'El GPTModel del libro se ejecuta en el núcleo de Blockscope (WebAssembly, en un worker). Escribe un ' +
    'prompt: el modelo lee cada token y predice el siguiente; debajo están los números que calculó por el camino.',
  'gpt.status.loadingCore': 'Cargando el núcleo…',
  'gpt.status.loadsInView': 'El modelo se carga cuando este widget aparece en pantalla.',
  'gpt.status.building': 'Construyendo el modelo…',
  'gpt.status.running': 'Ejecutando la pasada hacia delante…',
  'gpt.status.done': {
    one: '{count} token a través de {layers} bloques en {ms} ms (wasm {flavour}, en un worker).',
    other: '{count} tokens a través de {layers} bloques en {ms} ms (wasm {flavour}, en un worker).',
  },
  'gpt.status.doneOneBlock': {
    one: '{count} token a través de {layers} bloque en {ms} ms (wasm {flavour}, en un worker).',
    other: '{count} tokens a través de {layers} bloque en {ms} ms (wasm {flavour}, en un worker).',
  },
  'gpt.percent': '{value} %',

  // The models: a shipped model (by its name in SHIPPED_MODELS), its untrained twin, a random model, the fallback
  'gpt.model.brown.trained': 'entrenado con el corpus Brown (capítulo 5 del libro)',
  'gpt.model.brown.about': 'con el corpus Brown (capítulo 5 del libro)',
  'gpt.model.brown.short': 'corpus Brown',
  'gpt.model.brown-bpe.trained': 'entrenado con el corpus Brown, leyendo sus propios tokens BPE (models/brown-bpe/)',
  'gpt.model.brown-bpe.about': 'con el corpus Brown, leyendo sus propios tokens BPE (models/brown-bpe/)',
  'gpt.model.brown-bpe.short': 'corpus Brown, BPE',
  'gpt.model.sort.trained': 'entrenado para ordenar 8 números del 0 al 15 (models/sort/)',
  'gpt.model.sort.about': 'para ordenar 8 números del 0 al 15 (models/sort/)',
  'gpt.model.sort.short': 'ordenar números',
  'gpt.model.untrained': 'sin entrenar: pesos aleatorios con semilla, misma arquitectura (capítulo 4)',
  'gpt.model.untrainedAbout': 'pesos aleatorios con semilla, misma arquitectura (capítulo 4)',
  'gpt.model.random': 'pesos aleatorios con semilla (semilla {seed}), sin entrenar como en el capítulo 4 del libro',
  'gpt.model.fallback': 'sin entrenar: pesos aleatorios con semilla (semilla {seed}), capítulo 4 — no se pudo cargar el modelo entrenado',
  'gpt.model.trainedShort': 'el modelo entrenado ({short})',

  // The Model section
  'gpt.model.heading': 'Modelo',
  'gpt.weights.legend': 'Pesos',
  'gpt.weights.trained': 'Entrenado',
  'gpt.weights.untrained': 'Sin entrenar',
  'gpt.weights.about': '— {about}',
  'gpt.model.seed': 'Semilla de Blockscope de los pesos aleatorios',
  'gpt.model.retry': 'Reintentar',
  'gpt.model.backToTrained': 'Volver al modelo entrenado',
  'gpt.model.summary': 'GPT: {layers} bloques, emb_dim {embDim}, {heads} cabezas, contexto {context}, vocabulario {vocab} — ' +
    '{parameters} parámetros, {label}.',
  'gpt.model.fallbackMessage': 'No se pudo cargar el modelo entrenado ({error}). En su lugar se muestra un modelo sin ' +
    'entrenar (pesos aleatorios con semilla).',
  'gpt.model.unknownError': 'error desconocido',
  'gpt.model.twinError': 'No se pudo construir el gemelo sin entrenar ({error}).',
  'gpt.progress.label': 'descarga del modelo',
  'gpt.progress.bytes': 'Cargando {label}: {loaded} de {total} MB',
  'gpt.norm.label': 'Posición de la LayerNorm',
  'gpt.norm.pre': 'pre-norm (GPT-2)',
  'gpt.norm.post': 'post-norm (mismos pesos)',
  'gpt.size.heading': 'Ajustes del modelo aleatorio',
  'gpt.size.layers': 'capas',
  'gpt.size.heads': 'cabezas',
  'gpt.size.context': 'contexto',
  'gpt.size.tokenizer': 'tokenizador',
  'gpt.size.bytes': 'bytes UTF-8 ({vocab})',
  'gpt.size.gpt2': 'BPE de GPT-2 ({vocab})',
  'gpt.size.build': 'Construir este modelo aleatorio',
  'gpt.size.note': 'Un modelo aleatorio con semilla (sin entrenar) de cualquier tamaño sustituye al modelo entrenado; la ' +
    'semilla de arriba fija sus pesos. Un checkpoint cargado trae su propio tamaño.',
  'gpt.loader.heading': 'Cargar otro checkpoint',
  'gpt.loader.note': 'Un directorio con config.json y model.safetensors (con la estructura del libro o la de GPT-2 de ' +
    'Hugging Face) sustituye al modelo entrenado; si tiene sus propios archivos de tokenizador (vocab.json + merges.txt), ' +
    'se usan. Los modelos demasiado grandes para esta pestaña se rechazan antes de descargarlos.',
  'gpt.loader.url': 'URL del directorio del checkpoint',
  'gpt.loader.load': 'Cargar',
  'gpt.loader.choose': 'Elegir config.json y model.safetensors',
  'gpt.loader.drop': 'o soltar aquí ambos archivos (con vocab.json + merges.txt del modelo, si tiene su propio tokenizador).',
  'gpt.loader.enterUrl': 'Introduce la URL de un directorio que contenga config.json y model.safetensors.',
  'gpt.loader.loading': 'Cargando {label}…',
  'gpt.loader.loaded': '{label} cargado.',
  'gpt.loader.failed': 'No se pudo cargar el modelo: {error}',

  // A training lab's run, scrubbed through its checkpoints
  'gpt.lab.scrub': 'Recorrer sus checkpoints:',
  'gpt.lab.defaultLabel': 'una ejecución del laboratorio de entrenamiento',
  'gpt.lab.step': 'paso {step}',
  'gpt.lab.atStep': '{label} en el paso {step}',
  'gpt.lab.label': {
    one: '{label}: {count} checkpoint, pasos {first}–{last}.',
    other: '{label}: {count} checkpoints, pasos {first}–{last}.',
  },

  // The prompt and its tokens
  'gpt.prompt.heading': 'Prompt',
  'gpt.prompt.tokensLabel': 'tokens del prompt',
  'gpt.prompt.chips': { one: '{count} token del prompt', other: '{count} tokens del prompt' },
  'gpt.prompt.chipsCropped': {
    one: '{count} token del prompt; recortados: {cropped}',
    other: '{count} tokens del prompt; recortados: {cropped}',
  },
  'gpt.chip.cropped': 'recortado: fuera del contexto',
  'gpt.chip.title': 'posición {position}, id {id}',
  'gpt.prompt.empty': 'Escribe al menos un carácter: el modelo necesita un token desde el que predecir.',
  'gpt.prompt.tooLong': {
    one: 'El prompt tiene {count} token, pero la longitud de contexto es {context}: acórtalo (no se ejecutó nada).',
    other: 'El prompt tiene {count} tokens, pero la longitud de contexto es {context}: acórtalo (no se ejecutó nada).',
  },
  'gpt.prompt.cropped': {
    one: 'El prompt tiene {tokens} tokens; el modelo lee los últimos {context} (su longitud de contexto), así que se recorta el primero.',
    other: 'El prompt tiene {tokens} tokens; el modelo lee los últimos {context} (su longitud de contexto), así que se recortan los {count} primeros.',
  },
  'gpt.tokens.byte': 'Los tokens son bytes UTF-8 (vocabulario de 256), del tokenizador de bytes del núcleo. Un byte que es ' +
    'solo parte de un carácter se muestra como <0xNN>.',
  'gpt.tokens.gpt2': 'Los tokens vienen del tokenizador BPE de GPT-2 del núcleo (vocabulario de {vocab}).',
  'gpt.tokens.own': 'Los tokens vienen del BPE a nivel de bytes propio del modelo ({source}; vocabulario de {vocab}), leído ' +
    'por el código del tokenizador GPT-2 del núcleo. Un byte que es solo parte de un carácter se muestra como <0xNN>.',
  'gpt.tokens.symbols': 'Los tokens son los {count} símbolos propios del modelo ({symbols}; {source}), separados por ' +
    'espacios: cada palabra del prompt es un token, y una palabra que no es un símbolo se rechaza.',

  // Next-token prediction
  'gpt.next.heading': 'Predicción del siguiente token',
  'gpt.copy.downloadWeights': 'Descargar los pesos',
  'gpt.table.trained': 'Entrenado',
  'gpt.table.untrained': 'Sin entrenar',
  'gpt.table.random': 'Pesos aleatorios',
  'gpt.table.loaded': 'Checkpoint cargado',
  'gpt.table.shownBelow': '{label} — mostrado en los gráficos de abajo',
  'gpt.cand.caption': {
    one: 'Tras «{after}», el siguiente token más probable. Los logits vienen de la pasada hacia delante del núcleo y las ' +
      'probabilidades, de su softmax sobre todo el vocabulario (a temperatura 1).',
    other: 'Tras «{after}», los {count} siguientes tokens más probables. Los logits vienen de la pasada hacia delante del ' +
      'núcleo y las probabilidades, de su softmax sobre todo el vocabulario (a temperatura 1).',
  },
  'gpt.cand.uniform': 'uniforme 1/{vocab} = {percent} %',
  'gpt.cand.uniformNote': '— todos los tokens igual de probables: lo que predeciría un modelo que no ha aprendido nada. ' +
    'Las barras comparten una escala logarítmica ({low} % a 100 %); «× uniforme» es la probabilidad dividida entre 1/{vocab}.',
  'gpt.cand.token': 'token (id)',
  'gpt.cand.logit': 'logit',
  'gpt.cand.prob': 'prob.',
  'gpt.cand.scale': 'probabilidad, escala log. (%)',
  'gpt.cand.timesUniform': '× uniforme',
  'gpt.cand.rowTitle': 'id del token {id}, logit {logit}',

  // Which layer, head and token? (logit lens, head ablation, attribution)
  'gpt.interpret.heading': '¿Qué capa, qué cabeza, qué token?',
  'gpt.lens.heading': 'Lente de logits: ¿cuándo aparece la predicción?',
  'gpt.lens.intro': 'El flujo residual de cada capa en la última posición, leído a través de la LayerNorm final y la ' +
    'cabeza de salida del modelo, como si el modelo se detuviera ahí. La capa 0 son los embeddings; la última fila es la ' +
    'predicción del propio modelo.',
  'gpt.lens.caption': 'Lente de logits: los tokens más probables y la probabilidad del token seguido en cada capa',
  'gpt.lens.layer': 'capa',
  'gpt.lens.top': 'token principal',
  'gpt.lens.then': 'después',
  'gpt.lens.bar': 'barra',
  'gpt.lens.embeddings': 'embeddings',
  'gpt.ablate.heading': 'Ablación de cabezas: ¿qué cabeza importa?',
  'gpt.ablate.intro': 'Apaga cabezas y la tabla del siguiente token de arriba mostrará lo que predice el modelo sin ellas.',
  'gpt.ablate.groupLabel': 'cabezas de atención que se anulan',
  'gpt.ablate.headShort': 'c{head}',
  'gpt.ablate.mode': 'Ablación:',
  'gpt.ablate.zero': 'poner a cero la salida de la cabeza',
  'gpt.ablate.mean': 'media sobre las posiciones hasta ahora',
  'gpt.ablate.restore': 'Restaurar todas las cabezas',
  'gpt.ablate.allOn': 'Todas las cabezas están activas.',
  'gpt.ablate.note.zero': {
    one: '{count} cabeza puesta a cero: la predicción principal es ahora «{token}» ({percent}); con todas las cabezas era «{before}» ({beforePercent}).',
    other: '{count} cabezas puestas a cero: la predicción principal es ahora «{token}» ({percent}); con todas las cabezas era «{before}» ({beforePercent}).',
  },
  'gpt.ablate.note.mean': {
    one: '{count} cabeza sustituida por su media: la predicción principal es ahora «{token}» ({percent}); con todas las cabezas era «{before}» ({beforePercent}).',
    other: '{count} cabezas sustituidas por su media: la predicción principal es ahora «{token}» ({percent}); con todas las cabezas era «{before}» ({beforePercent}).',
  },
  'gpt.ablate.noteAlone.zero': {
    one: '{count} cabeza puesta a cero: la predicción principal es ahora «{token}» ({percent}).',
    other: '{count} cabezas puestas a cero: la predicción principal es ahora «{token}» ({percent}).',
  },
  'gpt.ablate.noteAlone.mean': {
    one: '{count} cabeza sustituida por su media: la predicción principal es ahora «{token}» ({percent}).',
    other: '{count} cabezas sustituidas por su media: la predicción principal es ahora «{token}» ({percent}).',
  },
  'gpt.attr.heading': 'Atribución: ¿qué token del prompt impulsa la predicción?',
  'gpt.attr.method': 'Método:',
  'gpt.attr.gradXInput': 'gradiente × entrada',
  'gpt.attr.integrated': 'gradientes integrados',
  'gpt.attr.integratedSteps': 'gradientes integrados ({steps} pasos)',
  'gpt.attr.listLabel': 'tokens del prompt sombreados según la atribución',
  'gpt.attr.title': 'posición {position}: {value}',
  'gpt.attr.note': 'Sombreado según {method} del logit de «{token}» (id {id}) en la última posición: el azul lo sube, el ' +
    'naranja lo baja; el más fuerte: posición {position}.',
  'gpt.attr.int8': 'La atribución necesita gradientes, y los pesos int8 no los tienen.',

  // Inside one block: attention weights and feed-forward activations
  'gpt.heatmap.role': 'mapa de calor',
  'gpt.chart.block': 'bloque {block}',
  'gpt.chart.position': 'posición {position}',
  'gpt.block.heading': 'Dentro de un bloque',
  'gpt.block.select': 'bloque',
  'gpt.block.head': 'cabeza',
  'gpt.att.heading': 'Pesos de atención',
  'gpt.att.intro': 'Fila: el token que atiende (query); columna: el token atendido (key). La máscara causal oculta los ' +
    'tokens posteriores (en blanco), y cada fila suma 1. Las cabezas sin entrenar reparten su peso casi por igual entre ' +
    'los tokens anteriores; las entrenadas escogen unos pocos (el token anterior, el inicio de una palabra, un espacio).',
  'gpt.att.what': 'bloque {block}, cabeza {head}',
  'gpt.att.xLabel': 'key: token atendido',
  'gpt.att.yLabel': 'query: token que atiende',
  'gpt.att.chartTitle': 'Pesos de atención, {what}',
  'gpt.att.chartDescription': 'Pesos de atención causal de {what}: {size} × {size}, cada fila suma 1; los tokens ' +
    'posteriores están enmascarados.',
  'gpt.att.boxLabel': 'Pesos de atención de {what}, query por key. Las flechas del teclado mueven entre celdas.',
  'gpt.att.legend': 'peso de atención',
  'gpt.att.readout': 'La query «{query}» (posición {queryPosition}) atiende a «{key}» (posición {keyPosition}) con peso {weight}.',
  'gpt.ffn.heading': 'Activaciones de la red feed-forward antes y después de GELU',
  'gpt.ffn.intro': 'Cada valor oculto de la red feed-forward (ffn_hidden por token: 4 × emb_dim salvo que la configuración ' +
    'diga otra cosa) tras la primera capa Linear, y tras GELU. GELU conserva los valores positivos, aplasta los negativos ' +
    'hacia 0 y baja un poco por debajo (mínimo ≈ −0,17 cerca de x ≈ −0,75). Valores del núcleo, agrupados en la página.',
  'gpt.ffn.before': 'antes de GELU',
  'gpt.ffn.after': 'después de GELU',
  'gpt.ffn.tableSummary': 'Resumen de las activaciones',
  'gpt.ffn.xLabel': 'valor oculto (antes / después de GELU)',
  'gpt.ffn.yLabel': 'recuento (tokens × unidades ocultas)',
  'gpt.ffn.chartTitle': 'Bloque {block}: valores ocultos de la red feed-forward antes y después de GELU',
  'gpt.ffn.chartDescription': { one: '{count} valor por histograma.', other: '{count} valores por histograma.' },
  'gpt.ffn.min': 'mín. {value}',
  'gpt.ffn.text': 'Bloque {block}: {count} valores ocultos. Antes de GELU van de {from} a {to} y el {negative} son ' +
    'negativos; después de GELU el menor es {smallest} (el valle de GELU está en ≈ {dip}): los valores negativos se ' +
    'aplastan en [{smallest}; 0] mientras que los positivos pasan casi sin cambios.',
  'gpt.ffn.minimum': 'mínimo',
  'gpt.ffn.maximum': 'máximo',
  'gpt.ffn.negative': 'negativos',

  // LayerNorm statistics
  'gpt.ln.heading': 'Estadísticas de LayerNorm: capa × token',
  'gpt.ln.intro': 'Cada LayerNorm reescala el vector de cada token a media 0 y varianza 1 sobre sus características; aquí ' +
    'está lo que recibió (entrada) o produjo (salida) en esta pasada hacia delante. Para leer una celda, enfoca el mapa de ' +
    'calor y usa las flechas del teclado, o pasa el ratón por encima.',
  'gpt.ln.intro.touch': 'Cada LayerNorm reescala el vector de cada token a media 0 y varianza 1 sobre sus ' +
    'características; aquí está lo que recibió (entrada) o produjo (salida) en esta pasada hacia delante. Para leer ' +
    'una celda, tócala o arrastra el dedo por el mapa de calor.',
  'gpt.ln.select': 'LayerNorm',
  'gpt.ln.side': 'en la',
  'gpt.ln.input': 'entrada',
  'gpt.ln.output': 'salida',
  'gpt.ln.stat': 'estadístico',
  'gpt.stat.mean': 'media',
  'gpt.stat.var': 'varianza',
  'gpt.ln.tableSummary': 'Los números del mapa de calor como tabla',
  'gpt.ln.norm1': 'norm1 (antes de la atención)',
  'gpt.ln.norm2': 'norm2 (antes de la red feed-forward)',
  'gpt.ln.final': 'final_norm (antes de la cabeza de salida)',
  'gpt.ln.norm1Post': 'norm1 (después de atención + atajo)',
  'gpt.ln.norm2Post': 'norm2 (después de feed-forward + atajo)',
  'gpt.ln.whatIn': '{stat} de la entrada de {norm}',
  'gpt.ln.whatOut': '{stat} de la salida de {norm}',
  'gpt.ln.finalRow': 'final',
  'gpt.ln.xLabel': 'token (posición en el prompt)',
  'gpt.ln.yLabel': 'bloque (capa)',
  'gpt.ln.chartTitle': 'Estadísticas de LayerNorm: {what}, por bloque y token',
  'gpt.ln.chartDescription': '{rows} × {cols} valores de {from} a {to}.',
  'gpt.ln.boxLabel': {
    one: 'Mapa de calor de la {what}, {rows} filas por {count} token. Las flechas del teclado mueven entre celdas.',
    other: 'Mapa de calor de la {what}, {rows} filas por {count} tokens. Las flechas del teclado mueven entre celdas.',
  },
  'gpt.ln.legend': '{stat} (escala de color)',
  'gpt.ln.caption': 'La {what}, del núcleo',
  'gpt.ln.blockColumn': 'bloque',
  'gpt.ln.readout': '{row}, token «{token}» (posición {position}): {value}',

  // Generate
  'gpt.gen.heading': 'Generar',
  'gpt.gen.intro': 'Cada token nuevo se muestrea de los logits del siguiente token que da el núcleo (divididos por la ' +
    'temperatura; top-k y top-p conservan solo los tokens más probables), se añade y se vuelve a introducir. La ' +
    'temperatura 0 toma siempre el token más probable (voraz). El modelo sin entrenar produce galimatías: eso es lo que ' +
    'arregla el entrenamiento.',
  'gpt.gen.with.trained': 'Se genera con el modelo entrenado ({short}).',
  'gpt.gen.with.untrained': 'Se genera con el modelo sin entrenar (pesos aleatorios con semilla, misma arquitectura).',
  'gpt.gen.with.fallback': 'Se genera con el modelo sin entrenar (pesos aleatorios con semilla).',
  'gpt.gen.with.random': 'Se genera con el modelo aleatorio (pesos con semilla).',
  'gpt.gen.with.loaded': 'Se genera con el checkpoint cargado.',
  'gpt.gen.temperature': 'temperatura',
  'gpt.gen.greedy': '0 (voraz)',
  'gpt.gen.off': 'desactivado',
  'gpt.gen.offOne': 'desactivado (1)',
  'gpt.gen.newTokens': 'tokens nuevos',
  'gpt.gen.seed': 'Semilla de Blockscope para el muestreo',
  'gpt.gen.button': 'Generar',
  'gpt.gen.stop': 'Detener',
  'gpt.gen.reuse': 'Usar como prompt',
  'gpt.gen.outputLabel': 'texto generado',
  'gpt.gen.running': 'Generando…',
  'gpt.gen.emptyPrompt': 'primero escribe un prompt: la generación lo continúa',
  'gpt.gen.failed': 'La generación falló: {error}',
  'gpt.gen.done': { one: '{count} token nuevo en {seconds} s ({reason}).', other: '{count} tokens nuevos en {seconds} s ({reason}).' },
  'gpt.gen.stop.limit': 'se alcanzó el límite de tokens',
  'gpt.gen.stop.token': 'el modelo emitió <|endoftext|>',
  'gpt.gen.stop.context': 'el contexto está lleno',
  'gpt.gen.stop.cancelled': 'detenido',
  'gpt.gen.droppedBytes': {
    one: 'Se omitió del prompt {count} byte que no es texto por sí solo.',
    other: 'Se omitieron del prompt {count} bytes que no son texto por sí solos.',
  },
};
