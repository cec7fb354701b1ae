// de messages for gpt-explorer (see ../README.md).
export default {
  // The widget's frame and status line
  'gpt.title': 'Ein GPT-Vorwärtsdurchlauf in diesem Tab',
  'gpt.description': 'Das GPTModel aus dem Buch läuft im Blockscope-Kern (WebAssembly, in einem Worker). Einen Prompt ' +
    'eingeben: Das Modell liest jedes Token und sagt das nächste voraus; darunter stehen die Zahlen, die es dabei berechnet hat.',
  'gpt.status.loadingCore': 'Der Kern wird geladen …',
  'gpt.status.loadsInView': 'Das Modell wird geladen, sobald dieses Widget in den sichtbaren Bereich scrollt.',
  'gpt.status.building': 'Das Modell wird erstellt …',
  'gpt.status.running': 'Der Vorwärtsdurchlauf läuft …',
  'gpt.status.done': {
    one: '{count} Token durch {layers} Blöcke in {ms} ms (wasm {flavour}, in einem Worker).',
    other: '{count} Tokens durch {layers} Blöcke in {ms} ms (wasm {flavour}, in einem Worker).',
  },
  'gpt.status.doneOneBlock': {
    one: '{count} Token durch {layers} Block in {ms} ms (wasm {flavour}, in einem Worker).',
    other: '{count} Tokens durch {layers} Block in {ms} ms (wasm {flavour}, in einem Worker).',
  },
  'gpt.percent': '{value} %',

  // The models: a shipped model (by its name in SHIPPED_MODELS), its untrained twin, a random model, the fallback
  'gpt.model.brown.trained': 'trainiert auf dem Brown-Korpus (Kapitel 5 des Buchs)',
  'gpt.model.brown.about': 'auf dem Brown-Korpus (Kapitel 5 des Buchs)',
  'gpt.model.brown.short': 'Brown-Korpus',
  'gpt.model.brown-bpe.trained': 'trainiert auf dem Brown-Korpus, mit eigenen BPE-Tokens (models/brown-bpe/)',
  'gpt.model.brown-bpe.about': 'auf dem Brown-Korpus, mit eigenen BPE-Tokens (models/brown-bpe/)',
  'gpt.model.brown-bpe.short': 'Brown-Korpus, BPE',
  'gpt.model.sort.trained': 'trainiert, 8 Zahlen von 0 bis 15 zu sortieren (models/sort/)',
  'gpt.model.sort.about': 'darauf, 8 Zahlen von 0 bis 15 zu sortieren (models/sort/)',
  'gpt.model.sort.short': 'Zahlen sortieren',
  'gpt.model.untrained': 'untrainiert: zufällige Gewichte mit Seed, gleiche Architektur (Kapitel 4)',
  'gpt.model.untrainedAbout': 'zufällige Gewichte mit Seed, gleiche Architektur (Kapitel 4)',
  'gpt.model.random': 'zufällige Gewichte mit Seed (Seed {seed}), untrainiert wie in Kapitel 4 des Buchs',
  'gpt.model.fallback': 'untrainiert: zufällige Gewichte mit Seed (Seed {seed}), Kapitel 4 – das trainierte Modell ließ sich nicht laden',
  'gpt.model.trainedShort': 'das trainierte Modell ({short})',

  // The Model section
  'gpt.model.heading': 'Modell',
  'gpt.weights.legend': 'Gewichte',
  'gpt.weights.trained': 'Trainiert',
  'gpt.weights.untrained': 'Untrainiert',
  'gpt.weights.about': '– {about}',
  'gpt.model.seed': 'Blockscope-Seed der zufälligen Gewichte',
  'gpt.model.retry': 'Erneut versuchen',
  'gpt.model.backToTrained': 'Zurück zum trainierten Modell',
  'gpt.model.summary': 'GPT: {layers} Blöcke, emb_dim {embDim}, {heads} Köpfe, Kontext {context}, Vokabular {vocab} – ' +
    '{parameters} Parameter, {label}.',
  'gpt.model.fallbackMessage': 'Das trainierte Modell ließ sich nicht laden ({error}). Stattdessen wird ein untrainiertes ' +
    'Modell (zufällige Gewichte mit Seed) gezeigt.',
  'gpt.model.unknownError': 'unbekannter Fehler',
  'gpt.model.twinError': 'Der untrainierte Zwilling ließ sich nicht erstellen ({error}).',
  'gpt.progress.label': 'Modell-Download',
  'gpt.progress.bytes': '{label} wird geladen: {loaded} von {total} MB',
  'gpt.norm.label': 'Position der LayerNorm',
  'gpt.norm.pre': 'Pre-Norm (GPT-2)',
  'gpt.norm.post': 'Post-Norm (gleiche Gewichte)',
  'gpt.size.heading': 'Einstellungen des Zufallsmodells',
  'gpt.size.layers': 'Schichten',
  'gpt.size.heads': 'Köpfe',
  'gpt.size.context': 'Kontext',
  'gpt.size.tokenizer': 'Tokenizer',
  'gpt.size.bytes': 'UTF-8-Bytes ({vocab})',
  'gpt.size.gpt2': 'GPT-2-BPE ({vocab})',
  'gpt.size.build': 'Dieses Zufallsmodell erstellen',
  'gpt.size.note': 'Ein untrainiertes Zufallsmodell beliebiger Größe (Gewichte mit Seed) ersetzt das trainierte Modell; ' +
    'der Seed oben legt seine Gewichte fest. Ein geladener Checkpoint bringt seine eigene Größe mit.',
  'gpt.loader.heading': 'Einen anderen Checkpoint laden',
  'gpt.loader.note': 'Ein Verzeichnis mit config.json und model.safetensors (im Layout des Buchs oder von Hugging Face ' +
    'GPT-2) ersetzt das trainierte Modell; seine eigenen Tokenizer-Dateien (vocab.json + merges.txt) werden verwendet, ' +
    'wenn es welche hat. Modelle, die für diesen Tab zu groß sind, werden vor dem Download abgelehnt.',
  'gpt.loader.url': 'URL des Checkpoint-Verzeichnisses',
  'gpt.loader.load': 'Laden',
  'gpt.loader.choose': 'config.json und model.safetensors auswählen',
  'gpt.loader.drop': 'oder beide Dateien hier ablegen (mit vocab.json + merges.txt des Modells, falls es einen eigenen ' +
    'Tokenizer hat).',
  'gpt.loader.enterUrl': 'Die URL eines Verzeichnisses mit config.json und model.safetensors eingeben.',
  'gpt.loader.loading': '{label} wird geladen …',
  'gpt.loader.loaded': '{label} geladen.',
  'gpt.loader.failed': 'Das Modell ließ sich nicht laden: {error}',

  // A training lab's run, scrubbed through its checkpoints
  'gpt.lab.scrub': 'Durch die Checkpoints blättern:',
  'gpt.lab.defaultLabel': 'ein Lauf im Trainingslabor',
  'gpt.lab.step': 'Schritt {step}',
  'gpt.lab.atStep': '{label} bei Schritt {step}',
  'gpt.lab.label': {
    one: '{label}: {count} Checkpoint, Schritte {first}–{last}.',
    other: '{label}: {count} Checkpoints, Schritte {first}–{last}.',
  },

  // The prompt and its tokens
  'gpt.prompt.heading': 'Prompt',
  'gpt.prompt.tokensLabel': 'Tokens des Prompts',
  'gpt.prompt.chips': { one: '{count} Token des Prompts', other: '{count} Tokens des Prompts' },
  'gpt.prompt.chipsCropped': {
    one: '{count} Token des Prompts, {cropped} abgeschnitten',
    other: '{count} Tokens des Prompts, {cropped} abgeschnitten',
  },
  'gpt.chip.cropped': 'abgeschnitten: außerhalb des Kontexts',
  'gpt.chip.title': 'Position {position}, ID {id}',
  'gpt.prompt.empty': 'Mindestens ein Zeichen eingeben: Das Modell braucht ein Token, von dem aus es vorhersagt.',
  'gpt.prompt.tooLong': {
    one: 'Der Prompt hat {count} Token, die Kontextlänge ist aber {context}: bitte kürzen (es wurde nichts gerechnet).',
    other: 'Der Prompt hat {count} Tokens, die Kontextlänge ist aber {context}: bitte kürzen (es wurde nichts gerechnet).',
  },
  'gpt.prompt.cropped': {
    one: 'Der Prompt hat {tokens} Tokens; das Modell liest die letzten {context} (seine Kontextlänge), also wird das erste Token abgeschnitten.',
    other: 'Der Prompt hat {tokens} Tokens; das Modell liest die letzten {context} (seine Kontextlänge), also werden die ersten {count} abgeschnitten.',
  },
  'gpt.tokens.byte': 'Die Tokens sind UTF-8-Bytes (Vokabular 256) aus dem Byte-Tokenizer des Kerns. Ein Byte, das nur Teil ' +
    'eines Zeichens ist, wird als <0xNN> gezeigt.',
  'gpt.tokens.gpt2': 'Die Tokens stammen vom GPT-2-BPE-Tokenizer im Kern (Vokabular {vocab}).',
  'gpt.tokens.own': 'Die Tokens stammen vom eigenen Byte-Level-BPE des Modells ({source}; Vokabular {vocab}), gelesen vom ' +
    'GPT-2-Tokenizer-Code des Kerns. Ein Byte, das nur Teil eines Zeichens ist, wird als <0xNN> gezeigt.',
  'gpt.tokens.symbols': 'Die Tokens sind die {count} eigenen Symbole des Modells ({symbols}; {source}), durch Leerzeichen ' +
    'getrennt: Jedes Wort des Prompts ist ein Token, und ein Wort, das kein Symbol ist, wird abgelehnt.',

  // Next-token prediction
  'gpt.next.heading': 'Vorhersage des nächsten Tokens',
  'gpt.copy.downloadWeights': 'Gewichte herunterladen',
  'gpt.table.trained': 'Trainiert',
  'gpt.table.untrained': 'Untrainiert',
  'gpt.table.random': 'Zufällige Gewichte',
  'gpt.table.loaded': 'Geladener Checkpoint',
  'gpt.table.shownBelow': '{label} – in den Diagrammen unten gezeigt',
  'gpt.cand.caption': {
    one: 'Nach „{after}“ das wahrscheinlichste nächste Token. Die Logits stammen aus dem Vorwärtsdurchlauf des Kerns, die ' +
      'Wahrscheinlichkeiten aus seinem Softmax über das ganze Vokabular (bei Temperatur 1).',
    other: 'Nach „{after}“ die {count} wahrscheinlichsten nächsten Tokens. Die Logits stammen aus dem Vorwärtsdurchlauf ' +
      'des Kerns, die Wahrscheinlichkeiten aus seinem Softmax über das ganze Vokabular (bei Temperatur 1).',
  },
  'gpt.cand.uniform': 'gleichverteilt 1/{vocab} = {percent} %',
  'gpt.cand.uniformNote': '– jedes Token gleich wahrscheinlich: was ein Modell vorhersagen würde, das nichts gelernt hat. ' +
    'Alle Balken teilen sich eine logarithmische Skala ({low} % bis 100 %); „× gleichverteilt“ ist die Wahrscheinlichkeit ' +
    'geteilt durch 1/{vocab}.',
  'gpt.cand.token': 'Token (ID)',
  'gpt.cand.logit': 'Logit',
  'gpt.cand.prob': 'Wahrsch.',
  'gpt.cand.scale': 'Wahrscheinlichkeit, log. Skala (%)',
  'gpt.cand.timesUniform': '× gleichverteilt',
  'gpt.cand.rowTitle': 'Token-ID {id}, Logit {logit}',

  // Which layer, head and token? (logit lens, head ablation, attribution)
  'gpt.interpret.heading': 'Welche Schicht, welcher Kopf, welches Token?',
  'gpt.lens.heading': 'Logit-Lens: Wann erscheint die Vorhersage?',
  'gpt.lens.intro': 'Der Residualstrom jeder Schicht an der letzten Position, gelesen durch die letzte LayerNorm und den ' +
    'Ausgabekopf des Modells, als ob das Modell dort aufhörte. Schicht 0 sind die Embeddings; die letzte Zeile ist die ' +
    'eigene Vorhersage des Modells.',
  'gpt.lens.caption': 'Logit-Lens: die wahrscheinlichsten Tokens und die Wahrscheinlichkeit des verfolgten Tokens in jeder Schicht',
  'gpt.lens.layer': 'Schicht',
  'gpt.lens.top': 'Top-Token',
  'gpt.lens.then': 'danach',
  'gpt.lens.bar': 'Balken',
  'gpt.lens.embeddings': 'Embeddings',
  'gpt.ablate.heading': 'Kopf-Ablation: Welcher Kopf zählt?',
  'gpt.ablate.intro': 'Köpfe abschalten: Die Tabelle der nächsten Tokens oben zeigt dann, was das Modell ohne sie vorhersagt.',
  'gpt.ablate.groupLabel': 'Attention-Köpfe, die abgeschaltet werden',
  'gpt.ablate.headShort': 'K{head}',
  'gpt.ablate.mode': 'Ablation:',
  'gpt.ablate.zero': 'Ausgabe des Kopfes auf null setzen',
  'gpt.ablate.mean': 'Mittelwert über die bisherigen Positionen',
  'gpt.ablate.restore': 'Alle Köpfe wiederherstellen',
  'gpt.ablate.allOn': 'Alle Köpfe sind an.',
  'gpt.ablate.note.zero': {
    one: '{count} Kopf auf null gesetzt: Die Top-Vorhersage ist jetzt „{token}“ ({percent}); mit allen Köpfen war sie „{before}“ ({beforePercent}).',
    other: '{count} Köpfe auf null gesetzt: Die Top-Vorhersage ist jetzt „{token}“ ({percent}); mit allen Köpfen war sie „{before}“ ({beforePercent}).',
  },
  'gpt.ablate.note.mean': {
    one: '{count} Kopf durch den Mittelwert ersetzt: Die Top-Vorhersage ist jetzt „{token}“ ({percent}); mit allen Köpfen war sie „{before}“ ({beforePercent}).',
    other: '{count} Köpfe durch den Mittelwert ersetzt: Die Top-Vorhersage ist jetzt „{token}“ ({percent}); mit allen Köpfen war sie „{before}“ ({beforePercent}).',
  },
  'gpt.ablate.noteAlone.zero': {
    one: '{count} Kopf auf null gesetzt: Die Top-Vorhersage ist jetzt „{token}“ ({percent}).',
    other: '{count} Köpfe auf null gesetzt: Die Top-Vorhersage ist jetzt „{token}“ ({percent}).',
  },
  'gpt.ablate.noteAlone.mean': {
    one: '{count} Kopf durch den Mittelwert ersetzt: Die Top-Vorhersage ist jetzt „{token}“ ({percent}).',
    other: '{count} Köpfe durch den Mittelwert ersetzt: Die Top-Vorhersage ist jetzt „{token}“ ({percent}).',
  },
  'gpt.attr.heading': 'Attribution: Welches Token des Prompts treibt die Vorhersage?',
  'gpt.attr.method': 'Methode:',
  'gpt.attr.gradXInput': 'Gradient × Eingabe',
  'gpt.attr.integrated': 'integrierte Gradienten',
  'gpt.attr.integratedSteps': 'integrierte Gradienten ({steps} Schritte)',
  'gpt.attr.listLabel': 'Tokens des Prompts, nach Attribution schattiert',
  'gpt.attr.title': 'Position {position}: {value}',
  'gpt.attr.note': 'Schattiert nach {method} des Logits von „{token}“ (ID {id}) an der letzten Position: Blau hebt es an, ' +
    'Orange senkt es; am stärksten: Position {position}.',
  'gpt.attr.int8': 'Attribution braucht Gradienten, und die haben int8-Gewichte nicht.',

  // Inside one block: attention weights and feed-forward activations
  'gpt.heatmap.role': 'Heatmap',
  'gpt.chart.block': 'Block {block}',
  'gpt.chart.position': 'Position {position}',
  'gpt.block.heading': 'Im Inneren eines Blocks',
  'gpt.block.select': 'Block',
  'gpt.block.head': 'Kopf',
  'gpt.att.heading': 'Attention-Gewichte',
  'gpt.att.intro': 'Zeile: das Token, das aufmerksam ist (Query); Spalte: das Token, auf das geachtet wird (Key). Die ' +
    'kausale Maske verdeckt spätere Tokens (leer), und jede Zeile summiert sich zu 1. Untrainierte Köpfe verteilen ihr ' +
    'Gewicht fast gleichmäßig auf die früheren Tokens; trainierte Köpfe greifen wenige heraus (das vorige Token, den ' +
    'Anfang eines Wortes, ein Leerzeichen).',
  'gpt.att.what': 'Block {block}, Kopf {head}',
  'gpt.att.xLabel': 'Key: Token, auf das geachtet wird',
  'gpt.att.yLabel': 'Query: Token, das aufmerksam ist',
  'gpt.att.chartTitle': 'Attention-Gewichte, {what}',
  'gpt.att.chartDescription': 'Kausale Attention-Gewichte von {what}: {size} × {size}, jede Zeile summiert sich zu 1; ' +
    'spätere Tokens sind maskiert.',
  'gpt.att.boxLabel': 'Attention-Gewichte von {what}, Query mal Key. Die Pfeiltasten wechseln zwischen den Zellen.',
  'gpt.att.legend': 'Attention-Gewicht',
  'gpt.att.readout': 'Query „{query}“ (Position {queryPosition}) achtet auf „{key}“ (Position {keyPosition}) mit Gewicht {weight}.',
  'gpt.ffn.heading': 'Aktivierungen des Feed-Forward-Netzes vor und nach GELU',
  'gpt.ffn.intro': 'Jeder verborgene Wert des Feed-Forward-Netzes (ffn_hidden pro Token: 4 × emb_dim, sofern die ' +
    'Konfiguration nichts anderes sagt) nach der ersten Linear-Schicht und nach GELU. GELU behält positive Werte, drückt ' +
    'negative gegen 0 und taucht knapp darunter (Minimum ≈ −0,17 bei x ≈ −0,75). Werte aus dem Kern, auf der Seite in ' +
    'Klassen eingeteilt.',
  'gpt.ffn.before': 'vor GELU',
  'gpt.ffn.after': 'nach GELU',
  'gpt.ffn.tableSummary': 'Übersicht der Aktivierungen',
  'gpt.ffn.xLabel': 'verborgener Wert (vor / nach GELU)',
  'gpt.ffn.yLabel': 'Anzahl (Tokens × verborgene Einheiten)',
  'gpt.ffn.chartTitle': 'Block {block}: verborgene Werte des Feed-Forward-Netzes vor und nach GELU',
  'gpt.ffn.chartDescription': { one: '{count} Wert pro Histogramm.', other: '{count} Werte pro Histogramm.' },
  'gpt.ffn.min': 'Min. {value}',
  'gpt.ffn.text': 'Block {block}: {count} verborgene Werte. Vor GELU reichen sie von {from} bis {to}, und {negative} sind ' +
    'negativ; nach GELU ist der kleinste {smallest} (die Delle von GELU liegt bei ≈ {dip}) – die negativen Werte werden ' +
    'in [{smallest}; 0] gedrückt, während positive Werte fast unverändert durchgehen.',
  'gpt.ffn.minimum': 'Minimum',
  'gpt.ffn.maximum': 'Maximum',
  'gpt.ffn.negative': 'negativ',

  // LayerNorm statistics
  'gpt.ln.heading': 'LayerNorm-Statistiken: Schicht × Token',
  'gpt.ln.intro': 'Jede LayerNorm skaliert den Vektor jedes Tokens über seine Merkmale auf Mittelwert 0 und Varianz 1; ' +
    'hier steht, was sie in diesem Vorwärtsdurchlauf erhalten (Eingabe) oder erzeugt (Ausgabe) hat. Zum Ablesen einer ' +
    'Zelle die Heatmap fokussieren und die Pfeiltasten benutzen oder mit der Maus darüberfahren.',
  'gpt.ln.intro.touch': 'Jede LayerNorm skaliert den Vektor jedes Tokens über seine Merkmale auf Mittelwert 0 und ' +
    'Varianz 1; hier steht, was sie in diesem Vorwärtsdurchlauf erhalten (Eingabe) oder erzeugt (Ausgabe) hat. Zum ' +
    'Ablesen einer Zelle tippen Sie darauf oder ziehen den Finger über die Heatmap.',
  'gpt.ln.select': 'LayerNorm',
  'gpt.ln.side': 'an der',
  'gpt.ln.input': 'Eingabe',
  'gpt.ln.output': 'Ausgabe',
  'gpt.ln.stat': 'Statistik',
  'gpt.stat.mean': 'Mittelwert',
  'gpt.stat.var': 'Varianz',
  'gpt.ln.tableSummary': 'Die Zahlen der Heatmap als Tabelle',
  'gpt.ln.norm1': 'norm1 (vor der Attention)',
  'gpt.ln.norm2': 'norm2 (vor dem Feed-Forward-Netz)',
  'gpt.ln.final': 'final_norm (vor dem Ausgabekopf)',
  'gpt.ln.norm1Post': 'norm1 (nach Attention + Shortcut)',
  'gpt.ln.norm2Post': 'norm2 (nach Feed-Forward + Shortcut)',
  'gpt.ln.whatIn': '{stat} der Eingabe von {norm}',
  'gpt.ln.whatOut': '{stat} der Ausgabe von {norm}',
  'gpt.ln.finalRow': 'final',
  'gpt.ln.xLabel': 'Token (Position im Prompt)',
  'gpt.ln.yLabel': 'Block (Schicht)',
  'gpt.ln.chartTitle': 'LayerNorm-Statistiken: {what}, pro Block und Token',
  'gpt.ln.chartDescription': '{rows} × {cols} Werte von {from} bis {to}.',
  'gpt.ln.boxLabel': {
    one: 'Heatmap: {what}, {rows} Zeilen mal {count} Token. Die Pfeiltasten wechseln zwischen den Zellen.',
    other: 'Heatmap: {what}, {rows} Zeilen mal {count} Tokens. Die Pfeiltasten wechseln zwischen den Zellen.',
  },
  'gpt.ln.legend': '{stat} (Farbskala)',
  'gpt.ln.caption': '{what}, aus dem Kern',
  'gpt.ln.blockColumn': 'Block',
  'gpt.ln.readout': '{row}, Token „{token}“ (Position {position}): {value}',

  // Generate
  'gpt.gen.heading': 'Generieren',
  'gpt.gen.intro': 'Jedes neue Token wird aus den Logits des Kerns für das nächste Token gezogen (geteilt durch die ' +
    'Temperatur; top-k und top-p behalten nur die wahrscheinlichsten Tokens), angehängt und wieder eingespeist. ' +
    'Temperatur 0 nimmt immer das wahrscheinlichste Token (greedy). Das untrainierte Modell liefert Kauderwelsch – genau ' +
    'das behebt das Training.',
  'gpt.gen.with.trained': 'Generiert wird mit dem trainierten Modell ({short}).',
  'gpt.gen.with.untrained': 'Generiert wird mit dem untrainierten Modell (zufällige Gewichte mit Seed, gleiche Architektur).',
  'gpt.gen.with.fallback': 'Generiert wird mit dem untrainierten Modell (zufällige Gewichte mit Seed).',
  'gpt.gen.with.random': 'Generiert wird mit dem Zufallsmodell (Gewichte mit Seed).',
  'gpt.gen.with.loaded': 'Generiert wird mit dem geladenen Checkpoint.',
  'gpt.gen.temperature': 'Temperatur',
  'gpt.gen.greedy': '0 (greedy)',
  'gpt.gen.off': 'aus',
  'gpt.gen.offOne': 'aus (1)',
  'gpt.gen.newTokens': 'neue Tokens',
  'gpt.gen.seed': 'Blockscope-Seed für das Sampling',
  'gpt.gen.button': 'Generieren',
  'gpt.gen.stop': 'Stopp',
  'gpt.gen.reuse': 'Als Prompt verwenden',
  'gpt.gen.outputLabel': 'generierter Text',
  'gpt.gen.running': 'Generiert …',
  'gpt.gen.emptyPrompt': 'zuerst einen Prompt eingeben: Die Generierung setzt ihn fort',
  'gpt.gen.failed': 'Generierung fehlgeschlagen: {error}',
  'gpt.gen.done': { one: '{count} neues Token in {seconds} s ({reason}).', other: '{count} neue Tokens in {seconds} s ({reason}).' },
  'gpt.gen.stop.limit': 'Token-Grenze erreicht',
  'gpt.gen.stop.token': 'das Modell hat <|endoftext|> ausgegeben',
  'gpt.gen.stop.context': 'der Kontext ist voll',
  'gpt.gen.stop.cancelled': 'gestoppt',
  'gpt.gen.droppedBytes': {
    one: '{count} Byte, das für sich allein kein Text ist, wurde im Prompt weggelassen.',
    other: '{count} Bytes, die für sich allein kein Text sind, wurden im Prompt weggelassen.',
  },
};
