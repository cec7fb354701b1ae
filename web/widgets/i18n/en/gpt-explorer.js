// en messages for gpt-explorer (see ../README.md).
export default {
  // The widget's frame and status line
  'gpt.title': 'A GPT forward pass in this tab',
  'gpt.description': 'The book\'s GPTModel runs in the Blockscope core (WebAssembly, in a worker). Type a prompt: ' +
    'the model reads every token and predicts the next one; below are the numbers it computed on the way.',
  'gpt.status.loadingCore': 'Loading the core…',
  'gpt.status.loadsInView': 'The model loads when this widget scrolls into view.',
  'gpt.status.building': 'Building the model…',
  'gpt.status.running': 'Running the forward pass…',
  'gpt.status.done': {
    one: '{count} token through {layers} blocks in {ms} ms (wasm {flavour}, in a worker).',
    other: '{count} tokens through {layers} blocks in {ms} ms (wasm {flavour}, in a worker).',
  },
  'gpt.status.doneOneBlock': {
    one: '{count} token through {layers} block in {ms} ms (wasm {flavour}, in a worker).',
    other: '{count} tokens through {layers} block in {ms} ms (wasm {flavour}, in a worker).',
  },
  'gpt.percent': '{value} %',

  // The models: a shipped model (by its name in SHIPPED_MODELS), its untrained twin, a random model, the fallback
  'gpt.model.brown.trained': 'trained on the Brown corpus (the book\'s chapter 5)',
  'gpt.model.brown.about': 'on the Brown corpus (the book\'s chapter 5)',
  'gpt.model.brown.short': 'Brown corpus',
  'gpt.model.brown-bpe.trained': 'trained on the Brown corpus, reading its own BPE tokens (models/brown-bpe/)',
  'gpt.model.brown-bpe.about': 'on the Brown corpus, reading its own BPE tokens (models/brown-bpe/)',
  'gpt.model.brown-bpe.short': 'Brown corpus, BPE',
  'gpt.model.sort.trained': 'trained to sort 8 numbers from 0 to 15 (models/sort/)',
  'gpt.model.sort.about': 'to sort 8 numbers from 0 to 15 (models/sort/)',
  'gpt.model.sort.short': 'sorting numbers',
  'gpt.model.untrained': 'untrained: seeded random weights, same architecture (chapter 4)',
  'gpt.model.untrainedAbout': 'seeded random weights, same architecture (chapter 4)',
  'gpt.model.random': 'seeded random weights (seed {seed}), untrained as in the book\'s chapter 4',
  'gpt.model.fallback': 'untrained: seeded random weights (seed {seed}), chapter 4 — the trained model could not be loaded',
  'gpt.model.trainedShort': 'the trained model ({short})',

  // The Model section
  'gpt.model.heading': 'Model',
  'gpt.weights.legend': 'Weights',
  'gpt.weights.trained': 'Trained',
  'gpt.weights.untrained': 'Untrained',
  'gpt.weights.about': '— {about}',
  'gpt.model.seed': 'Blockscope seed of the random weights',
  'gpt.model.retry': 'Try again',
  'gpt.model.backToTrained': 'Back to the trained model',
  'gpt.model.summary': 'GPT: {layers} blocks, emb_dim {embDim}, {heads} heads, context {context}, vocabulary {vocab} — ' +
    '{parameters} parameters, {label}.',
  'gpt.model.fallbackMessage': 'The trained model could not be loaded ({error}). Showing an untrained model (seeded random ' +
    'weights) instead.',
  'gpt.model.unknownError': 'unknown error',
  'gpt.model.twinError': 'The untrained twin could not be built ({error}).',
  'gpt.progress.label': 'model download',
  'gpt.progress.bytes': 'Loading {label}: {loaded} of {total} MB',
  'gpt.norm.label': 'LayerNorm placement',
  'gpt.norm.pre': 'pre-norm (GPT-2)',
  'gpt.norm.post': 'post-norm (same weights)',
  'gpt.size.heading': 'Random model settings',
  'gpt.size.layers': 'layers',
  'gpt.size.heads': 'heads',
  'gpt.size.context': 'context',
  'gpt.size.tokenizer': 'tokenizer',
  'gpt.size.bytes': 'UTF-8 bytes ({vocab})',
  'gpt.size.gpt2': 'GPT-2 BPE ({vocab})',
  'gpt.size.build': 'Build this random model',
  'gpt.size.note': 'A seeded random (untrained) model of any size replaces the trained model; the seed above sets its ' +
    'weights. A loaded checkpoint brings its own size.',
  'gpt.loader.heading': 'Load another checkpoint',
  'gpt.loader.note': 'A directory with config.json and model.safetensors (the book\'s or Hugging Face GPT-2\'s layout) ' +
    'replaces the trained model; its own tokenizer files (vocab.json + merges.txt) are used when it has them. Models too ' +
    'large for this tab are refused before downloading.',
  'gpt.loader.url': 'Checkpoint directory URL',
  'gpt.loader.load': 'Load',
  'gpt.loader.choose': 'Choose config.json and model.safetensors',
  'gpt.loader.drop': 'or drop both files here (with the model\'s vocab.json + merges.txt, if it has its own tokenizer).',
  'gpt.loader.enterUrl': 'Enter the URL of a directory holding config.json and model.safetensors.',
  'gpt.loader.loading': 'Loading {label}…',
  'gpt.loader.loaded': 'Loaded {label}.',
  'gpt.loader.failed': 'Could not load the model: {error}',

  // A training lab's run, scrubbed through its checkpoints
  'gpt.lab.scrub': 'Scrub through its checkpoints:',
  'gpt.lab.defaultLabel': 'a training lab run',
  'gpt.lab.step': 'step {step}',
  'gpt.lab.atStep': '{label} at step {step}',
  'gpt.lab.label': {
    one: '{label}: {count} checkpoint, steps {first}–{last}.',
    other: '{label}: {count} checkpoints, steps {first}–{last}.',
  },

  // The prompt and its tokens
  'gpt.prompt.heading': 'Prompt',
  'gpt.prompt.tokensLabel': 'prompt tokens',
  'gpt.prompt.chips': { one: '{count} prompt token', other: '{count} prompt tokens' },
  'gpt.prompt.chipsCropped': { one: '{count} prompt token, {cropped} cropped', other: '{count} prompt tokens, {cropped} cropped' },
  'gpt.chip.cropped': 'cropped: outside the context',
  'gpt.chip.title': 'position {position}, id {id}',
  'gpt.prompt.empty': 'Type at least one character: the model needs a token to predict from.',
  'gpt.prompt.tooLong': {
    one: 'The prompt has {count} token but the context length is {context}: shorten it (nothing was run).',
    other: 'The prompt has {count} tokens but the context length is {context}: shorten it (nothing was run).',
  },
  'gpt.prompt.cropped': {
    one: 'The prompt has {tokens} tokens; the model reads the last {context} (its context length), so the first {count} is cropped.',
    other: 'The prompt has {tokens} tokens; the model reads the last {context} (its context length), so the first {count} are cropped.',
  },
  'gpt.tokens.byte': 'Tokens are UTF-8 bytes (vocabulary 256), from the core\'s byte tokenizer. A byte that is only part of ' +
    'a character is shown as <0xNN>.',
  'gpt.tokens.gpt2': 'Tokens come from the GPT-2 BPE tokenizer in the core (vocabulary {vocab}).',
  'gpt.tokens.own': 'Tokens come from the model\'s own byte-level BPE ({source}; vocabulary {vocab}), read by the core\'s ' +
    'GPT-2 tokenizer code. A byte that is only part of a character is shown as <0xNN>.',
  'gpt.tokens.symbols': 'Tokens are the model\'s own {count} symbols ({symbols}; {source}), separated by spaces: each word ' +
    'of the prompt is one token, and a word that is not a symbol is refused.',

  // Next-token prediction
  'gpt.next.heading': 'Next-token prediction',
  'gpt.copy.downloadWeights': 'Download the weights',
  'gpt.table.trained': 'Trained',
  'gpt.table.untrained': 'Untrained',
  'gpt.table.random': 'Random weights',
  'gpt.table.loaded': 'Loaded checkpoint',
  'gpt.table.shownBelow': '{label} — shown in the charts below',
  'gpt.cand.caption': {
    one: 'After “{after}”, the most likely next token. Logits come from the core\'s forward pass and probabilities from ' +
      'the core\'s softmax over the whole vocabulary (at temperature 1).',
    other: 'After “{after}”, the {count} most likely next tokens. Logits come from the core\'s forward pass and ' +
      'probabilities from the core\'s softmax over the whole vocabulary (at temperature 1).',
  },
  'gpt.cand.uniform': 'uniform 1/{vocab} = {percent} %',
  'gpt.cand.uniformNote': '— every token equally likely: what a model that has learned nothing would predict. Bars share ' +
    'one log scale ({low} % to 100 %); “× uniform” is the probability divided by 1/{vocab}.',
  'gpt.cand.token': 'token (id)',
  'gpt.cand.logit': 'logit',
  'gpt.cand.prob': 'prob.',
  'gpt.cand.scale': 'probability, log scale (%)',
  'gpt.cand.timesUniform': '× uniform',
  'gpt.cand.rowTitle': 'token id {id}, logit {logit}',

  // Which layer, head and token? (logit lens, head ablation, attribution)
  'gpt.interpret.heading': 'Which layer, head and token?',
  'gpt.lens.heading': 'Logit lens: when does the prediction appear?',
  'gpt.lens.intro': 'Each layer’s residual stream at the last position, read through the model’s final LayerNorm and ' +
    'output head as if the model stopped there. Layer 0 is the embeddings; the last row is the model’s own prediction.',
  'gpt.lens.caption': 'Logit lens: the top tokens and the tracked token’s probability at each layer',
  'gpt.lens.layer': 'layer',
  'gpt.lens.top': 'top token',
  'gpt.lens.then': 'then',
  'gpt.lens.bar': 'bar',
  'gpt.lens.embeddings': 'embeddings',
  'gpt.ablate.heading': 'Head ablation: which head matters?',
  'gpt.ablate.intro': 'Switch heads off and the next-token table above shows what the model predicts without them.',
  'gpt.ablate.groupLabel': 'attention heads to ablate',
  'gpt.ablate.headShort': 'h{head}',
  'gpt.ablate.mode': 'Ablation:',
  'gpt.ablate.zero': 'zero the head’s output',
  'gpt.ablate.mean': 'mean over the positions so far',
  'gpt.ablate.restore': 'Restore every head',
  'gpt.ablate.allOn': 'Every head is on.',
  'gpt.ablate.note.zero': {
    one: '{count} head zeroed: the top prediction is now “{token}” ({percent}); with every head on it was “{before}” ({beforePercent}).',
    other: '{count} heads zeroed: the top prediction is now “{token}” ({percent}); with every head on it was “{before}” ({beforePercent}).',
  },
  'gpt.ablate.note.mean': {
    one: '{count} head mean-replaced: the top prediction is now “{token}” ({percent}); with every head on it was “{before}” ({beforePercent}).',
    other: '{count} heads mean-replaced: the top prediction is now “{token}” ({percent}); with every head on it was “{before}” ({beforePercent}).',
  },
  'gpt.ablate.noteAlone.zero': {
    one: '{count} head zeroed: the top prediction is now “{token}” ({percent}).',
    other: '{count} heads zeroed: the top prediction is now “{token}” ({percent}).',
  },
  'gpt.ablate.noteAlone.mean': {
    one: '{count} head mean-replaced: the top prediction is now “{token}” ({percent}).',
    other: '{count} heads mean-replaced: the top prediction is now “{token}” ({percent}).',
  },
  'gpt.attr.heading': 'Attribution: which prompt token drives the prediction?',
  'gpt.attr.method': 'Method:',
  'gpt.attr.gradXInput': 'gradient × input',
  'gpt.attr.integrated': 'integrated gradients',
  'gpt.attr.integratedSteps': 'integrated gradients ({steps} steps)',
  'gpt.attr.listLabel': 'prompt tokens shaded by attribution',
  'gpt.attr.title': 'position {position}: {value}',
  'gpt.attr.note': 'Shaded by {method} of the logit of “{token}” (id {id}) at the last position: blue pushes it up, ' +
    'orange down; strongest: position {position}.',
  'gpt.attr.int8': 'Attribution needs gradients, which int8 weights do not have.',

  // Inside one block: attention weights and feed-forward activations
  'gpt.heatmap.role': 'heatmap',
  'gpt.chart.block': 'block {block}',
  'gpt.chart.position': 'position {position}',
  'gpt.block.heading': 'Inside one block',
  'gpt.block.select': 'block',
  'gpt.block.head': 'head',
  'gpt.att.heading': 'Attention weights',
  'gpt.att.intro': 'Row: the token that attends (query); column: the token attended to (key). The causal mask hides ' +
    'later tokens (blank), and each row sums to 1. Untrained heads spread their weight almost evenly over the earlier ' +
    'tokens; trained heads pick out a few (the previous token, the start of a word, a space).',
  'gpt.att.what': 'block {block}, head {head}',
  'gpt.att.xLabel': 'key: token attended to',
  'gpt.att.yLabel': 'query: token attending',
  'gpt.att.chartTitle': 'Attention weights, {what}',
  'gpt.att.chartDescription': 'Causal attention weights of {what}: {size} × {size}, each row sums to 1; later tokens are masked.',
  'gpt.att.boxLabel': 'Attention weights of {what}, query by key. Arrow keys move between cells.',
  'gpt.att.legend': 'attention weight',
  'gpt.att.readout': 'Query “{query}” (position {queryPosition}) attends to “{key}” (position {keyPosition}) with weight {weight}.',
  'gpt.ffn.heading': 'Feed-forward activations before and after GELU',
  'gpt.ffn.intro': 'Every hidden value of the feed-forward network (ffn_hidden per token: 4 × emb_dim unless the config ' +
    'says) after the first Linear layer, and after GELU. GELU keeps positive values, squashes negative ones towards 0 and ' +
    'dips slightly below it (minimum ≈ −0.17 near x ≈ −0.75). Values from the core, binned in the page.',
  'gpt.ffn.before': 'before GELU',
  'gpt.ffn.after': 'after GELU',
  'gpt.ffn.tableSummary': 'Summary of the activations',
  'gpt.ffn.xLabel': 'hidden value (before / after GELU)',
  'gpt.ffn.yLabel': 'count (tokens × hidden units)',
  'gpt.ffn.chartTitle': 'Block {block}: feed-forward hidden values before and after GELU',
  'gpt.ffn.chartDescription': { one: '{count} value per histogram.', other: '{count} values per histogram.' },
  'gpt.ffn.min': 'min {value}',
  'gpt.ffn.text': 'Block {block}: {count} hidden values. Before GELU they range from {from} to {to} and {negative} are ' +
    'negative; after GELU the smallest is {smallest} (GELU\'s dip is ≈ {dip}) — the negative values are squashed into ' +
    '[{smallest}, 0] while positive values pass almost unchanged.',
  'gpt.ffn.minimum': 'minimum',
  'gpt.ffn.maximum': 'maximum',
  'gpt.ffn.negative': 'negative',

  // LayerNorm statistics
  'gpt.ln.heading': 'LayerNorm statistics: layer × token',
  'gpt.ln.intro': 'Each LayerNorm rescales every token\'s vector to mean 0 and variance 1 over its features; here is what ' +
    'it received (input) or produced (output) in this forward pass. Focus the heatmap and use the arrow keys, or hover, ' +
    'to read a cell.',
  'gpt.ln.intro.touch': 'Each LayerNorm rescales every token\'s vector to mean 0 and variance 1 over its features; here is ' +
    'what it received (input) or produced (output) in this forward pass. Tap a cell, or drag a finger across the ' +
    'heatmap, to read it.',
  'gpt.ln.select': 'LayerNorm',
  'gpt.ln.side': 'of its',
  'gpt.ln.input': 'input',
  'gpt.ln.output': 'output',
  'gpt.ln.stat': 'statistic',
  'gpt.stat.mean': 'mean',
  'gpt.stat.var': 'variance',
  'gpt.ln.tableSummary': 'The heatmap\'s numbers as a table',
  'gpt.ln.norm1': 'norm1 (before attention)',
  'gpt.ln.norm2': 'norm2 (before the feed-forward network)',
  'gpt.ln.final': 'final_norm (before the output head)',
  'gpt.ln.norm1Post': 'norm1 (after attention + shortcut)',
  'gpt.ln.norm2Post': 'norm2 (after feed-forward + shortcut)',
  'gpt.ln.whatIn': '{stat} of the input of {norm}',
  'gpt.ln.whatOut': '{stat} of the output of {norm}',
  'gpt.ln.finalRow': 'final',
  'gpt.ln.xLabel': 'token (prompt position)',
  'gpt.ln.yLabel': 'block (layer)',
  'gpt.ln.chartTitle': 'LayerNorm statistics: {what}, per block and token',
  'gpt.ln.chartDescription': '{rows} × {cols} values from {from} to {to}.',
  'gpt.ln.boxLabel': {
    one: 'Heatmap of the {what}, {rows} rows by {count} token. Arrow keys move between cells.',
    other: 'Heatmap of the {what}, {rows} rows by {count} tokens. Arrow keys move between cells.',
  },
  'gpt.ln.legend': '{stat} (colour scale)',
  'gpt.ln.caption': 'The {what}, from the core',
  'gpt.ln.blockColumn': 'block',
  'gpt.ln.readout': '{row}, token “{token}” (position {position}): {value}',

  // Generate
  'gpt.gen.heading': 'Generate',
  'gpt.gen.intro': 'Each new token is sampled from the core\'s next-token logits (divided by the temperature; top-k and ' +
    'top-p keep only the most likely tokens), appended, and fed back in. Temperature 0 always takes the most likely ' +
    'token (greedy). The untrained model gives gibberish — that is what training fixes.',
  'gpt.gen.with.trained': 'Generating with the trained model ({short}).',
  'gpt.gen.with.untrained': 'Generating with the untrained model (seeded random weights, same architecture).',
  'gpt.gen.with.fallback': 'Generating with the untrained model (seeded random weights).',
  'gpt.gen.with.random': 'Generating with the random model (seeded weights).',
  'gpt.gen.with.loaded': 'Generating with the loaded checkpoint.',
  'gpt.gen.temperature': 'temperature',
  'gpt.gen.greedy': '0 (greedy)',
  'gpt.gen.off': 'off',
  'gpt.gen.offOne': 'off (1)',
  'gpt.gen.newTokens': 'new tokens',
  'gpt.gen.seed': 'Blockscope sampling seed',
  'gpt.gen.button': 'Generate',
  'gpt.gen.stop': 'Stop',
  'gpt.gen.reuse': 'Use as prompt',
  'gpt.gen.outputLabel': 'generated text',
  'gpt.gen.running': 'Generating…',
  'gpt.gen.emptyPrompt': 'type a prompt first: generation continues it',
  'gpt.gen.failed': 'Generation failed: {error}',
  'gpt.gen.done': { one: '{count} new token in {seconds} s ({reason}).', other: '{count} new tokens in {seconds} s ({reason}).' },
  'gpt.gen.stop.limit': 'reached the token limit',
  'gpt.gen.stop.token': 'the model emitted <|endoftext|>',
  'gpt.gen.stop.context': 'the context is full',
  'gpt.gen.stop.cancelled': 'stopped',
  'gpt.gen.droppedBytes': {
    one: '{count} byte that is not text on its own was left out of the prompt.',
    other: '{count} bytes that are not text on their own were left out of the prompt.',
  },
};
