// de messages for training-lab (see ../README.md).
export default {
  // Titel, Einleitung, Einstellungen
  'lab.title': 'Trainingslabor: zwei GPTs im Vergleich',
  'lab.description': 'Zwei kleine GPTs lernen in diesem Tab, das nächste Byte des Brown-Korpus (amerikanisches Englisch ' +
    'von 1961) vorherzusagen – in einem Worker, abwechselnd je ein Schritt: Batches aus {batch} Fenstern zu je {context} ' +
    'Bytes, AdamW mit Kosinus-Zeitplan und Gradient Clipping bei 1. Beide starten mit demselben Blockscope-Seed (dem ' +
    'eigenen Zufallsgenerator des Kerns, nicht torch.manual_seed) und sehen dieselben Batches; nur die verglichene ' +
    'Einstellung unterscheidet sich.',
  'lab.settings': 'Einstellungen',
  'lab.label.comparison': 'Vergleich',
  'lab.label.lr': 'Lernrate',
  'lab.label.warmup': 'Warmup-Schritte',
  'lab.label.steps': 'Schritte',
  'lab.label.layers': 'Schichten',
  'lab.label.embDim': 'd_model',
  'lab.lrValue': 'Lernrate {lr}',

  // Die Vergleiche und ihre Läufe
  'lab.comparison.norm': 'Pre-Norm vs. Post-Norm',
  'lab.comparison.ffn': 'd_ff = 4·d_model vs. 2·d_model',
  'lab.comparison.activation': 'GELU vs. ReLU',
  'lab.comparison.residual': 'mit vs. ohne Residualverbindungen',
  'lab.comparison.warmup': 'Post-Norm: mit vs. ohne Warmup',
  'lab.run.norm.a': 'Pre-Norm',
  'lab.run.norm.b': 'Post-Norm',
  'lab.run.ffn.a': 'd_ff = 4·d_model',
  'lab.run.ffn.b': 'd_ff = 2·d_model',
  'lab.run.activation.a': 'GELU',
  'lab.run.activation.b': 'ReLU',
  'lab.run.residual.a': 'mit Residualverbindungen',
  'lab.run.residual.b': 'ohne Residualverbindungen',
  'lab.run.warmup.a': 'Post-Norm, mit Warmup',
  'lab.run.warmup.b': 'Post-Norm, ohne Warmup',
  'lab.runName': '{run}: {label}',

  // Schaltflächen und Tempo
  'lab.button.train': 'Trainieren',
  'lab.button.pause': 'Pausieren',
  'lab.button.resume': 'Fortsetzen',
  'lab.button.done': 'Fertig',
  'lab.button.reset': 'Zurücksetzen',
  'lab.rate': '{rate} Schritte/s je Lauf',

  // Worauf zu achten ist (der Hinweis über den Diagrammen)
  'lab.lookFor.norm.start': 'Beide Läufe starten mit denselben Gewichten und sehen dieselben Batches, ohne Warmup; nur ' +
    'die Position der LayerNorm unterscheidet sich.',
  'lab.lookFor.norm.startWarmup': {
    one: 'Beide Läufe starten mit denselben Gewichten und sehen dieselben Batches, mit einem Warmup über {count} Schritt; ' +
      'nur die Position der LayerNorm unterscheidet sich.',
    other: 'Beide Läufe starten mit denselben Gewichten und sehen dieselben Batches, mit einem Warmup über {count} ' +
      'Schritte; nur die Position der LayerNorm unterscheidet sich.',
  },
  'lab.lookFor.norm': 'Hier gemessen mit 6 Blöcken und ohne Warmup: Ab einer Lernrate von etwa 0,01 (0,013 mit Seed 1 – ' +
    'die Grenze hängt ein wenig vom Seed ab) hört Post-Norm schon in den ersten zehn oder so Schritten auf zu lernen. ' +
    'Der Verlust bleibt bei etwa 3,1 Nats hängen – dem Niveau eines Modells, das nur weiß, wie häufig jedes Byte ist –, ' +
    'weil der Gradient, der die unteren Schichten erreicht, fast auf null zusammenbricht (siehe das Gradientendiagramm), ' +
    'während Pre-Norm bis etwa 2,4 weiterlernt. Der Verlust explodiert dabei nicht zu NaN: Das Clipping bei 1 ' +
    'hält jeden Schritt endlich. Bei 0,007 lernen beide, Post-Norm ebenso wie Pre-Norm (2,50 gegenüber 2,51 nach 300 Schritten); mit ' +
    '2 statt 6 Blöcken hält Post-Norm selbst bei 0,015 mit – das Problem wächst mit der Tiefe. Verschieben Sie die ' +
    'Lernrate, um die Grenze zu finden.',
  'lab.lookFor.ffn': 'Die Feed-Forward-Schichten von Lauf B sind halb so breit (d_ff = 2·d_model statt 4·d_model): ' +
    '140.640 statt 196.512 Parameter bei der Standardgröße, und andere Anfangsgewichte. Gemessen bei 0,015 nach 600 ' +
    'Schritten: 2,38 (4×) gegenüber 2,40 (2×) – das breitere Netz ist etwas besser, doch bei dieser Größe ist der ' +
    'Abstand klein.',
  'lab.lookFor.activation': 'Dieselben Gewichte und Batches; nur die Aktivierungsfunktion des Feed-Forward-Netzes ' +
    'unterscheidet sich. Gemessen bei 0,015 nach 600 Schritten: 2,38 (GELU) gegenüber 2,40 (ReLU) – knapp; bei dieser ' +
    'Größe zählen Normalisierung und Residualverbindungen weit mehr.',
  'lab.lookFor.residual': 'Lauf B hat keine Abkürzungsverbindungen: Die Ausgabe jeder Teilschicht ersetzt ihre Eingabe, ' +
    'statt zu ihr addiert zu werden. Hier gemessen bleibt das Modell mit 6 Blöcken ohne sie den ganzen Lauf über bei ' +
    'etwa 3,1 Nats (nur Bytehäufigkeiten), bei jeder getesteten Lernrate (0,003 bis 0,03): Der Gradient, der seine ' +
    'Embeddings erreicht, ist 10⁵- bis 10⁷-mal kleiner als der des Ausgabekopfs. Mit dem Pfad + x erreicht das Signal ' +
    'jede Schicht.',
  'lab.lookFor.warmup': {
    one: 'Beide Läufe sind Post-Norm. Lauf A erhöht die Lernrate linear über den ersten {count} Schritt; Lauf B beginnt ' +
      'mit voller Stärke. Gemessen bei 0,015: Mit 60 Warmup-Schritten lernt Post-Norm (2,47 nach 600 Schritten), ' +
      'während der Lauf ohne Warmup bei 3,1 stehen bleibt; ab 0,02 rettet ihn auch ein Warmup über 60 Schritte nicht mehr.',
    other: 'Beide Läufe sind Post-Norm. Lauf A erhöht die Lernrate linear über die ersten {count} Schritte; Lauf B ' +
      'beginnt mit voller Stärke. Gemessen bei 0,015: Mit 60 Warmup-Schritten lernt Post-Norm (2,47 nach 600 Schritten), ' +
      'während der Lauf ohne Warmup bei 3,1 stehen bleibt; ab 0,02 rettet ihn auch ein Warmup über 60 Schritte nicht mehr.',
  },

  // Verlustdiagramm
  'lab.loss.heading': 'Verlust',
  'lab.loss.explain': 'Dünne Linie: der Trainingsverlust jedes Schritts; dicke: sein Mittel über die letzten Schritte ' +
    '(bis zu 25); gepunktet mit Punkten: der Validierungsverlust, auf Dokumenten, mit denen keines der Modelle trainiert. ' +
    'Die Linien von Lauf B sind gestrichelt. Ein Dreieck am oberen Rand markiert eine Verlustspitze, ein Kreuz einen ' +
    'divergierten Lauf.',
  'lab.loss.xLabel': 'Trainingsschritt',
  'lab.loss.yLabel': 'Verlust (Nats pro Byte)',
  'lab.loss.title': 'Trainings- und Validierungsverlust beider Läufe',
  'lab.loss.description': 'Verlust über dem Trainingsschritt für Lauf A ({a}) und Lauf B ({b}). Die neuesten Zahlen ' +
    'stehen in der Ergebnistabelle darunter.',
  'lab.loss.uniform': 'gleichverteiltes Raten, ln 256 = {loss}',
  'lab.loss.diverged': '{run} divergiert bei Schritt {step}',
  'lab.loss.lrChange': 'lr → {lr}',
  'lab.loss.lrChangeTitle': 'Nach Schritt {step}: Lernrate {lr}, {warmup} Warmup-Schritte, {steps} Schritte insgesamt; die Läufe gingen weiter, wo sie waren',
  'lab.status.rescheduled': 'Nach Schritt {step} trainieren beide Läufe mit Lernrate {lr} ({warmup} Warmup-Schritte, {steps} Schritte insgesamt): Sie machen weiter, wo sie waren.',
  'lab.confirm.text': '{setting} auf {value} zu ändern heißt neue Modelle: Beide Läufe begännen wieder bei Schritt 0 (sie sind bei Schritt {step}).',
  'lab.confirm.fewerSteps': 'Die Läufe sind schon bei Schritt {step}: {value} Schritte insgesamt heißt, beide wieder bei Schritt 0 zu beginnen.',
  'lab.confirm.restart': 'Beide Läufe neu starten',
  'lab.confirm.keep': 'Weiter trainieren',
  'lab.loss.spike': '{run}: Verlustspitze bei Schritt {step} ({loss} Nats)',

  // Gradientendiagramm
  'lab.grad.heading': 'Gradientennorm jeder Schicht',
  'lab.grad.explain': 'Wie viel Trainingssignal jede Schicht erreicht, von den Embeddings (links) bis zum Ausgabekopf ' +
    '(rechts): dicke Linien jetzt (gemittelt über die letzten Schritte), dünne gepunktete bei Schritt 1. Eine Linie, ' +
    'die zu den Embeddings hin um Größenordnungen abfällt, bedeutet, dass die unteren Schichten nicht mehr lernen.',
  'lab.grad.xLabel': 'Schicht (Eingabeseite → Ausgabeseite)',
  'lab.grad.yLabel': 'Gradientennorm (log. Skala)',
  'lab.grad.title': 'Gradientennorm jeder Schicht für beide Läufe',
  'lab.grad.description': 'Die Norm des Gradienten jeder Schicht vor dem Clipping, für Lauf A ({a}) und Lauf B ({b}): ' +
    'dicke Linien jetzt (gemittelt über die letzten Schritte), dünne gepunktete Linien bei Schritt 1. Eine Linie, die ' +
    'zu den Embeddings hin steil abfällt, bedeutet, dass die unteren Schichten kaum noch Trainingssignal erhalten.',
  'lab.grad.tickEmbeddings': 'Emb.',
  'lab.grad.tickHead': 'Kopf',

  // Textproben
  'lab.samples.heading': 'Was jedes Modell nach „{prompt}“ schreibt',
  'lab.samples.explain': '{bytes} Bytes, gesampelt bei Temperatur {temperature}, mit denselben Zufallszügen für beide ' +
    'Modelle, alle paar Dutzend Schritte erneuert. Bytes, die kein vollständiges UTF-8-Zeichen bilden, erscheinen als <0xNN>.',
  'lab.samples.after': '– nach Schritt {step}',

  // Ergebnisse
  'lab.results.heading': 'Ergebnisse',
  'lab.results.caption': 'Neueste Zahlen beider Läufe',
  'lab.results.run': 'Lauf',
  'lab.results.step': 'Schritt',
  'lab.results.trainLoss': 'Verlust Train. (Ø)',
  'lab.results.valLoss': 'Verlust Valid.',
  'lab.results.gradNorm': 'Grad.-Norm',
  'lab.results.state': 'Zustand',
  'lab.results.pytorch': 'Dieselben zwei Läufe in PyTorch (die geseedeten Gewichte und Batches des Kerns, portiert): ' +
    'Die dort ausgegebenen Verluste sind die obigen.',
  'lab.state.diverged': 'divergiert bei Schritt {step}',
  'lab.state.done': 'fertig',
  'lab.state.training': 'trainiert',
  'lab.state.paused': 'pausiert',
  'lab.state.ready': 'bereit',
  'lab.notes.run': '{run}:',
  'lab.notes.nonFinite': 'divergiert bei Schritt {step}: Der Verlust oder ein Gradient war nicht endlich, daher wurde ' +
    'das Training angehalten.',
  'lab.notes.exploded': {
    one: 'divergiert bei Schritt {step}: Ab dort lag der Verlust {count} Schritt lang über dem gleichverteilten Raten ' +
      '(ln 256), daher wurde das Training angehalten.',
    other: 'divergiert bei Schritt {step}: Ab dort lag der Verlust {count} Schritte lang über dem gleichverteilten Raten ' +
      '(ln 256), daher wurde das Training angehalten.',
  },
  'lab.notes.spike': 'Verlustspitze bei Schritt {step} ({loss} Nats, schlechter als gleichverteiltes Raten).',
  'lab.notes.spikes': {
    one: 'Verlustspitze bei Schritt {step} ({loss} Nats, schlechter als gleichverteiltes Raten) und {count} weitere.',
    other: 'Verlustspitze bei Schritt {step} ({loss} Nats, schlechter als gleichverteiltes Raten) und {count} weitere.',
  },
  'lab.notes.vanished': 'seit Schritt {step} ist der Gradient an den Embeddings kleiner als 1/100.000 des Gradienten am ' +
    'Ausgabekopf: Die unteren Schichten lernen nicht mehr.',

  // Checkpoints
  'lab.checkpoints.heading': 'Die Modelle, die Sie trainiert haben',
  'lab.checkpoints.explain': {
    one: 'Jeder Lauf speichert seine Gewichte nach jedem Schritt (ab Schritt 0). Übergeben Sie einen Lauf an den ' +
      'GPT-Explorer auf dieser Seite, um hineinzuschauen – blättern Sie durch seine Checkpoints und sehen Sie zu, wie ' +
      'Attention und die LayerNorm-Statistiken entstehen –, oder laden Sie einen als config.json + model.safetensors ' +
      'für die CLI oder PyTorch herunter.',
    other: 'Jeder Lauf speichert seine Gewichte alle {count} Schritte (ab Schritt 0). Übergeben Sie einen Lauf an den ' +
      'GPT-Explorer auf dieser Seite, um hineinzuschauen – blättern Sie durch seine Checkpoints und sehen Sie zu, wie ' +
      'Attention und die LayerNorm-Statistiken entstehen –, oder laden Sie einen als config.json + model.safetensors ' +
      'für die CLI oder PyTorch herunter.',
  },
  'lab.checkpoints.label': '{run}: {label}, Schritt',
  'lab.checkpoints.select': 'Checkpoint von Lauf {run}',
  'lab.checkpoints.inspect': 'Lauf {run} im GPT-Explorer untersuchen',
  'lab.checkpoints.download': 'Herunterladen',
  'lab.checkpoints.noExplorer': 'Auf dieser Seite gibt es keinen <gpt-explorer>: Laden Sie den Checkpoint stattdessen herunter.',
  'lab.checkpoints.explorerLabel': 'Trainingslabor, Lauf {run} ({label})',
  'lab.checkpoints.inExplorer': 'Lauf {run} bei Schritt {step} ist jetzt im GPT-Explorer.',
  'lab.checkpoints.downloaded': '{weights} und {config} heruntergeladen: Benennen Sie sie in einem gemeinsamen ' +
    'Verzeichnis in model.safetensors und config.json um, für blockscope --model DIR.',

  // Statuszeile
  'lab.status.waiting': 'Sobald das Labor ins Blickfeld scrollt, lädt es sein Korpus.',
  'lab.status.hidden': 'Pausiert, solange der Tab verborgen ist; es geht weiter, sobald Sie zurückkehren.',
  'lab.status.building': 'Korpus wird geladen, beide Modelle werden aufgebaut…',
  'lab.status.ready': 'Bereit: Lauf A mit {a} und Lauf B mit {b} Parametern (wasm {flavour}). Drücken Sie „Trainieren“.',
  'lab.status.training': 'Training läuft…',
  'lab.status.pausedAt': 'Pausiert bei Schritt {step}.',
  'lab.status.pausedAfter': 'Pausiert nach Schritt {a} (A) und {b} (B).',
  'lab.status.finished': 'Fertig: {a}; {b}. Zum erneuten Trainieren zurücksetzen.',
  'lab.status.stopped': 'Training abgebrochen: {message}',
  'lab.summary.diverged': '{run} ({label}) divergiert bei Schritt {step}',
  'lab.summary.validation': '{run} ({label}): Validierungsverlust {loss}',
  'lab.error.corpus': 'Das Korpus {file} konnte nicht geladen werden (HTTP {status})',
};
