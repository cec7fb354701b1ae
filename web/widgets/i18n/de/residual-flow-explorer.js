// de messages for residual-flow-explorer (see ../README.md).
export default {
  // Zahlen in einer Liste (das Dezimalkomma verlangt ein anderes Trennzeichen).
  'residual.sep': '; ',

  'residual.title': 'Gradientenfluss mit Residualverbindungen: mit und ohne',
  'residual.description': 'Zwei Stapel aus Linear({dim}, {dim})-Schichten mit einer Aktivierungsfunktion, einer mit Abkürzungen (Shortcuts) und einer ohne, laufen auf demselben Batch aus 4 Eingaben. Der Verlust ist die Summe der Ausgabe (y.sum()); das Diagramm zeigt, wie groß der Gradient der Gewichte jeder Schicht nach dem Backward-Pass des Kerns ist. Schicht 1 ist am weitesten vom Verlust entfernt.',
  'residual.loading': 'Der Kern wird geladen…',

  // Bedienelemente
  'residual.depth': 'Tiefe',
  'residual.depthValue': { one: '{count} Schicht', other: '{count} Schichten' },
  'residual.std': 'Init-Std',
  'residual.stdValue': 'Standardabweichung {std}',
  'residual.activation': 'Aktivierung',
  'residual.act.tanh': 'tanh',
  'residual.act.gelu': 'GELU (tanh-Näherung)',
  'residual.act.relu': 'ReLU',
  'residual.layernorm': 'LayerNorm in jeder Schicht: f(x) = act(W·LN(x) + b)',
  'residual.sameStd': 'Residualnetz mit derselben N(0, std)-Initialisierung',
  'residual.stdHelp': 'Die Std bestimmt die Gewichte des einfachen Netzes, N(0, std) wie in der Lektion. Das Residualnetz behält PyTorchs Standardinitialisierung von Linear (gleichverteilt ±1/√16, Std ≈ 0,14), ebenfalls wie in der Lektion, es sei denn, Sie aktivieren „dieselbe N(0, std)-Initialisierung“: Dann ziehen beide Netze aus derselben Verteilung, und nur die Abkürzung unterscheidet sie.',
  'residual.lowStd': 'Std 0,1: den Gradienten des einfachen Netzes verschwinden sehen',
  'residual.reseed': 'Neuer Seed',
  'residual.reseedTo': 'Neuer Seed (Blockscope-Seed {seed})',
  'residual.backToLesson': 'Zurück zu den Gewichten der Lektion',

  // Was berechnet wird, und der Status
  'residual.setup.net': { one: '{count} Schicht, d = {dim}, {act}', other: '{count} Schichten, d = {dim}, {act}' },
  'residual.setup.netLayerNorm': {
    one: '{count} Schicht, d = {dim}, {act}, mit LayerNorm',
    other: '{count} Schichten, d = {dim}, {act}, mit LayerNorm',
  },
  'residual.setup.lesson': 'die eigenen PyTorch-Gewichte und die Eingabe der Lektion (genau das Experiment der Lektion).',
  'residual.setup.seededSame': 'Gewichte beider Netze ~ N(0, {std}); Gewichte aus Blockscope-Seed {seed} (dem Zufallsgenerator des Kerns, nicht dem von PyTorch), Eingabe: der Batch x der Lektion.',
  'residual.setup.seededDefault': 'Gewichte des einfachen Netzes ~ N(0, {std}), Residualnetz mit PyTorchs Standardinitialisierung; Gewichte aus Blockscope-Seed {seed} (dem Zufallsgenerator des Kerns, nicht dem von PyTorch), Eingabe: der Batch x der Lektion.',
  'residual.status.computed': 'Vom Kern berechnet (wasm {flavour}).',
  'residual.status.notes': '{notes}. Vom Kern berechnet (wasm {flavour}).',
  'residual.note.notNumber': '{name} „{raw}“ ist keine Zahl, verwendet wird {value}',
  'residual.note.outside': '{name} {raw} liegt außerhalb von {lo}–{hi}, verwendet wird {value}',
  'residual.note.outsideSeed': '{name} {raw} liegt außerhalb von {lo}–2⁵³ − 1, verwendet wird {value}',
  'residual.note.notWhole': '{name} {raw} ist keine ganze Zahl, verwendet wird {value}',
  'residual.note.activation': 'activation „{raw}“ ist keine von {options}, verwendet wird tanh',
  'residual.note.zeros': {
    one: '{count} Gradientennorm ist genau 0 (unterhalb des Wertebereichs von float32), als hohle Markierung am unteren Rand gezeichnet',
    other: '{count} Gradientennormen sind genau 0 (unterhalb des Wertebereichs von float32), als hohle Markierungen am unteren Rand gezeichnet',
  },
  'residual.note.overflows': {
    one: '{count} Gradientennorm ist nicht endlich, am oberen Rand gezeichnet',
    other: '{count} Gradientennormen sind nicht endlich, am oberen Rand gezeichnet',
  },
  'residual.presetFailed': 'Die Gewichte der Lektion konnten nicht geladen werden ({detail}).',
  'residual.presetIncomplete': 'In den Gewichten der Lektion fehlt {detail}.',

  // Die Ergebnisse: Diagramm, Verhältnisse, Tabelle
  'residual.net.without': 'ohne Residualverbindung: x = f(x)',
  'residual.net.with': 'mit Residualverbindung: x = x + f(x)',
  'residual.net.withoutShort': 'ohne Residualverbindung',
  'residual.net.withShort': 'mit Residualverbindung',
  'residual.chart.xLabel': 'Schicht (1 = am nächsten an der Eingabe)',
  'residual.chart.yLabel': '‖∂loss/∂W‖ (logarithmisch)',
  'residual.chart.title': 'Norm des Gewichtsgradienten pro Schicht, {L} Schichten, mit und ohne Residualverbindungen',
  'residual.chart.series': '{net}: Schicht 1 {first}, Schicht {L} {last}',
  'residual.chart.description': '{series}. Alle Werte stehen in der Tabelle unten.',
  'residual.ratio': '{net}: Schicht 1 / Schicht {L}',
  'residual.undefined': 'undefiniert',
  'residual.torch': 'PyTorch gab „{plain}“ und „{residual}“ aus; die Normen des Kerns weichen von denen PyTorchs um höchstens {rel} (relativ) ab.',
  'residual.tableSummary': 'Die Zahlen als Tabelle',
  'residual.table.caption': 'Norm des Gewichtsgradienten jeder Schicht, vom Kern berechnet, für {L} Schichten',
  'residual.table.layer': 'Schicht',

  // Warum die Abkürzung den Gradienten trägt
  'residual.why.title': 'Warum die Abkürzung den Gradienten trägt',
  'residual.why.text': 'Eine Residualschicht berechnet x + f(x), nach der Kettenregel gilt also {math}. Die „1“ ist ein Pfad, der die Schicht überspringt: Den Stapel hinab multipliziert, enthält der Gradient, der Schicht 1 erreicht, stets den Gradienten des Verlusts unverändert, plus Korrekturterme, wie klein jedes f′ auch sein mag. Ohne die Abkürzung ist der Faktor allein f′(x) (die Gewichte der Schicht mal die Steigung der Aktivierung), und Schicht 1 erhält ein Produkt aus Tiefe − 1 solchen Faktoren: Es schrumpft geometrisch, wenn sie kleiner als 1 sind, und wächst, wenn sie größer sind.',
  'residual.why.noteTitle': 'Was die Zahlen der Lektion zeigen — und was nicht.',
  'residual.why.note': 'Bei der Std 0,3 der Lektion hat das einfache Netz keine verschwindenden Gradienten: Schicht 1 bekommt 15,07, mehr als die 9,79 von Schicht 8. Jede tanh-Schicht skaliert den Gradienten um etwa std·√d = 0,3·√16 = 1,2 (weniger, wo tanh sättigt), sodass acht Schichten ihn weder stark schrumpfen noch stark wachsen lassen. Bei Std 0,1 beträgt der Faktor etwa 0,4 pro Schicht: Der Gradient von Schicht 1 des einfachen Netzes bricht um Größenordnungen ein, während der des Residualnetzes nahe an seinem Wert in Schicht 8 bleibt. Tiefere Stapel verstärken beide Effekte; eine Std nahe 1 lässt den Gradienten des einfachen Netzes stattdessen explodieren.',

  // Der Zinseszinseffekt
  'residual.toy.title': 'Zinseszinseffekt: ein Faktor pro Schicht',
  'residual.toy.intro': 'Eine Veranschaulichung, kein Netz: Jeder Rückwärtsschritt multipliziert den Gradienten mit demselben Faktor, nach L Schritten also mit Faktor^L. Echte Schichten multiplizieren mit verschiedenen Zahlen, aber die Tiefe multipliziert sie genauso auf.',
  'residual.toy.factor': 'Faktor pro Schicht',
  'residual.toy.layers': 'Schichten',
  'residual.toy.preset': '{factor} pro Schicht, {layers} Schichten',
  'residual.toy.explodes': '{f}^{L} = {product}: Der Gradient, der die erste Schicht erreicht, ist {product}-mal so groß wie der, der die letzte verließ — er explodiert.',
  'residual.toy.vanishes': '{f}^{L} = {product}: Die erste Schicht erhält das {product}-Fache davon — er verschwindet.',
  'residual.toy.same': '{f}^{L} = {product}: Er bleibt gleich.',
  'residual.toy.realNet': '{net}: Schicht 1 / Schicht {L} = {ratio}, als multiplizierte jede Schicht mit {per}',
  'residual.toy.real': 'Die echten Netze oben (Backward-Pass des Kerns): {nets}.',
  'residual.toy.xLabel': 'multiplizierte Schichten',
  'residual.toy.yLabel': 'Faktor^L (log)',
  'residual.toy.chartTitle': '{f} multipliziert über {L} Schichten',
};
