// en messages for residual-flow-explorer (see ../README.md).
export default {
  // Numbers in a list (a locale with a decimal comma separates them with "; ").
  'residual.sep': ', ',

  'residual.title': 'Residual gradient flow: with vs without',
  'residual.description': 'Two stacks of Linear({dim}, {dim}) layers with an activation, one with shortcuts and one without, run on the same batch of 4 inputs. The loss is the sum of the output (y.sum()); the chart shows how large each layer’s weight gradient is after the core’s backward pass. Layer 1 is the farthest from the loss.',
  'residual.loading': 'Loading the core…',

  // Controls
  'residual.depth': 'depth',
  'residual.depthValue': { one: '{count} layer', other: '{count} layers' },
  'residual.std': 'init std',
  'residual.stdValue': 'standard deviation {std}',
  'residual.activation': 'activation',
  'residual.act.tanh': 'tanh',
  'residual.act.gelu': 'GELU (tanh approx.)',
  'residual.act.relu': 'ReLU',
  'residual.layernorm': 'LayerNorm inside each layer: f(x) = act(W·LN(x) + b)',
  'residual.sameStd': 'residual net uses the same N(0, std) init',
  'residual.stdHelp': 'The std sets the plain net’s weights, N(0, std) as in the lesson. The residual net keeps PyTorch’s default Linear init (uniform ±1/√16, std ≈ 0.14), also as in the lesson, unless you tick “same N(0, std) init”: then both nets draw from the same distribution and only the shortcut differs.',
  'residual.lowStd': 'Std 0.1: watch the plain net vanish',
  'residual.reseed': 'Re-seed',
  'residual.reseedTo': 'Re-seed (Blockscope seed {seed})',
  'residual.backToLesson': 'Back to the lesson’s weights',

  // What is computed, and the status
  'residual.setup.net': { one: '{count} layer, d = {dim}, {act}', other: '{count} layers, d = {dim}, {act}' },
  'residual.setup.netLayerNorm': {
    one: '{count} layer, d = {dim}, {act}, LayerNorm inside',
    other: '{count} layers, d = {dim}, {act}, LayerNorm inside',
  },
  'residual.setup.lesson': 'the lesson’s own PyTorch weights and input (exactly the lesson’s experiment).',
  'residual.setup.seededSame': 'both nets’ weights ~ N(0, {std}); weights from Blockscope seed {seed} (the core’s generator, not PyTorch’s), input: the lesson’s batch x.',
  'residual.setup.seededDefault': 'plain net’s weights ~ N(0, {std}), residual net PyTorch’s default init; weights from Blockscope seed {seed} (the core’s generator, not PyTorch’s), input: the lesson’s batch x.',
  'residual.status.computed': 'Computed by the core (wasm {flavour}).',
  'residual.status.notes': '{notes}. Computed by the core (wasm {flavour}).',
  'residual.note.notNumber': '{name} “{raw}” is not a number, using {value}',
  'residual.note.outside': '{name} {raw} is outside {lo}–{hi}, using {value}',
  'residual.note.outsideSeed': '{name} {raw} is outside {lo}–2⁵³ − 1, using {value}',
  'residual.note.notWhole': '{name} {raw} is not a whole number, using {value}',
  'residual.note.activation': 'activation “{raw}” is not one of {options}, using tanh',
  'residual.note.zeros': {
    one: '{count} gradient norm is exactly 0 (below float32’s range), drawn as hollow marks on the bottom edge',
    other: '{count} gradient norms are exactly 0 (below float32’s range), drawn as hollow marks on the bottom edge',
  },
  'residual.note.overflows': {
    one: '{count} gradient norm is not finite, drawn on the top edge',
    other: '{count} gradient norms are not finite, drawn on the top edge',
  },
  'residual.presetFailed': 'The lesson’s weights could not be loaded ({detail}).',
  'residual.presetIncomplete': 'The lesson’s weights have no {detail}.',

  // The results: chart, ratios, table
  'residual.net.without': 'without residual: x = f(x)',
  'residual.net.with': 'with residual: x = x + f(x)',
  'residual.net.withoutShort': 'without residual',
  'residual.net.withShort': 'with residual',
  'residual.chart.xLabel': 'layer (1 = nearest the input)',
  'residual.chart.yLabel': '‖∂loss/∂W‖ (log scale)',
  'residual.chart.title': 'Weight-gradient norm per layer, {L} layers, with and without residual connections',
  'residual.chart.series': '{net}: layer 1 {first}, layer {L} {last}',
  'residual.chart.description': '{series}. All values are in the table below.',
  'residual.ratio': '{net}: layer 1 / layer {L}',
  'residual.undefined': 'undefined',
  'residual.torch': 'PyTorch printed “{plain}” and “{residual}”; the core’s norms differ from PyTorch’s by at most {rel} (relative).',
  'residual.tableSummary': 'The numbers as a table',
  'residual.table.caption': 'Weight-gradient norm of each layer, computed by the core, for {L} layers',
  'residual.table.layer': 'layer',

  // Why the shortcut carries the gradient
  'residual.why.title': 'Why the shortcut carries the gradient',
  'residual.why.text': 'A residual layer computes x + f(x), so by the chain rule {math}. The “1” is a path that skips the layer: multiplied down the stack, the gradient reaching layer 1 always contains the loss’s gradient unchanged, plus correction terms, however small each f′ is. Without the shortcut the factor is f′(x) alone (the layer’s weights times the activation’s slope), and layer 1 receives a product of depth − 1 such factors: it shrinks geometrically when they are below 1 and grows when they are above.',
  'residual.why.noteTitle': 'What the lesson’s numbers show — and what they do not.',
  'residual.why.note': 'At the lesson’s std 0.3 the plain net does not have vanishing gradients: layer 1 gets 15.07, more than layer 8’s 9.79. Each tanh layer scales the gradient by about std·√d = 0.3·√16 = 1.2 (less where tanh saturates), so eight layers neither shrink nor grow it much. At std 0.1 the gain is about 0.4 per layer: the plain net’s layer-1 gradient collapses by orders of magnitude while the residual net’s stays close to its layer-8 value. Deeper stacks make both effects stronger; a std near 1 makes the plain net’s gradient explode instead.',

  // The compounding toy
  'residual.toy.title': 'Compounding: one factor per layer',
  'residual.toy.intro': 'An illustration, not a network: each backward step multiplies the gradient by the same factor, so after L steps it is factor^L. Real layers multiply by different numbers, but depth compounds them the same way.',
  'residual.toy.factor': 'factor per layer',
  'residual.toy.layers': 'layers',
  'residual.toy.preset': '{factor} per layer, {layers} layers',
  'residual.toy.explodes': '{f}^{L} = {product}: the gradient reaching the first layer is {product} times what left the last — it explodes.',
  'residual.toy.vanishes': '{f}^{L} = {product}: the first layer gets {product} of it — it vanishes.',
  'residual.toy.same': '{f}^{L} = {product}: it stays the same.',
  'residual.toy.realNet': '{net}: layer 1 / layer {L} = {ratio}, as if each layer multiplied by {per}',
  'residual.toy.real': 'The real networks above (the core’s backward pass): {nets}.',
  'residual.toy.xLabel': 'layers multiplied',
  'residual.toy.yLabel': 'factor^L (log)',
  'residual.toy.chartTitle': '{f} multiplied over {L} layers',
};
