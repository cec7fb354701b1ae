// en messages for training-lab (see ../README.md).
export default {
  // Title, introduction, settings
  'lab.title': 'Training lab: two GPTs side by side',
  'lab.description': 'Two small GPTs learn to predict the next byte of the Brown corpus (1961 American English) in this tab, ' +
    'in a worker, one step each in turn: batches of {batch} windows of {context} bytes, AdamW with a cosine schedule ' +
    'and gradient clipping at 1. They start from the same Blockscope seed (the core’s own generator, not ' +
    'torch.manual_seed) and see the same batches; only the setting you compare differs.',
  'lab.settings': 'Settings',
  'lab.label.comparison': 'compare',
  'lab.label.lr': 'learning rate',
  'lab.label.warmup': 'warmup steps',
  'lab.label.steps': 'steps',
  'lab.label.layers': 'layers',
  'lab.label.embDim': 'd_model',
  'lab.lrValue': 'learning rate {lr}',

  // The comparisons and the runs each compares
  'lab.comparison.norm': 'pre-norm vs post-norm',
  'lab.comparison.ffn': 'd_ff = 4·d_model vs 2·d_model',
  'lab.comparison.activation': 'GELU vs ReLU',
  'lab.comparison.residual': 'with vs without residual connections',
  'lab.comparison.warmup': 'post-norm: warmup vs none',
  'lab.run.norm.a': 'pre-norm',
  'lab.run.norm.b': 'post-norm',
  'lab.run.ffn.a': 'd_ff = 4·d_model',
  'lab.run.ffn.b': 'd_ff = 2·d_model',
  'lab.run.activation.a': 'GELU',
  'lab.run.activation.b': 'ReLU',
  'lab.run.residual.a': 'with residuals',
  'lab.run.residual.b': 'without residuals',
  'lab.run.warmup.a': 'post-norm, warmup',
  'lab.run.warmup.b': 'post-norm, no warmup',
  'lab.runName': '{run}: {label}',

  // Buttons and training rate
  'lab.button.train': 'Train',
  'lab.button.pause': 'Pause',
  'lab.button.resume': 'Resume',
  'lab.button.done': 'Done',
  'lab.button.reset': 'Reset',
  'lab.rate': '{rate} steps/s per run',

  // What to look for (the note above the charts)
  'lab.lookFor.norm.start': 'Both runs start from the same weights and see the same batches, without warmup; only where ' +
    'LayerNorm sits differs.',
  'lab.lookFor.norm.startWarmup': {
    one: 'Both runs start from the same weights and see the same batches, warming up over {count} step; only where ' +
      'LayerNorm sits differs.',
    other: 'Both runs start from the same weights and see the same batches, warming up over {count} steps; only where ' +
      'LayerNorm sits differs.',
  },
  'lab.lookFor.norm': 'Measured here with 6 blocks and no warmup: from a learning rate of about 0.01 up (0.013 with seed 1 — ' +
    'the edge depends a little on the seed), post-norm stops learning within its first ten or so steps. Its loss sticks ' +
    'near 3.1 nats — the level of knowing only how common each byte is — because the gradient reaching its lower layers ' +
    'collapses to almost nothing (see the gradient chart), while pre-norm goes on to about 2.4. It does not blow up ' +
    'to NaN: clipping at 1 keeps every step finite. At 0.007 both learn, post-norm as well as pre-norm (2.50 against 2.51 ' +
    'after 300 steps); with 2 blocks instead of 6, post-norm keeps up even at 0.015 — the trouble grows with depth. ' +
    'Slide the learning rate to find the edge.',
  'lab.lookFor.ffn': 'Run B\'s feed-forward layers are half as wide (d_ff = 2·d_model instead of 4·d_model): 140,640 ' +
    'parameters instead of 196,512 at the default size, and different initial weights. Measured at 0.015 after 600 ' +
    'steps: 2.38 (4×) against 2.40 (2×) — the wider network is a little better, but at this size the gap is small.',
  'lab.lookFor.activation': 'The same weights and batches; only the feed-forward activation differs. Measured at 0.015 ' +
    'after 600 steps: 2.38 (GELU) against 2.40 (ReLU) — close; at this size normalisation and residuals matter far more.',
  'lab.lookFor.residual': 'Run B has no shortcut connections: each sublayer\'s output replaces its input instead of being ' +
    'added to it. Measured here, the 6-block model without them stays near 3.1 nats (byte frequencies only) for the ' +
    'whole run at every learning rate tried (0.003 to 0.03): the gradient reaching its embeddings is 10⁵ to 10⁷ times ' +
    'smaller than the head\'s. With the + x path, the signal reaches every layer.',
  'lab.lookFor.warmup': {
    one: 'Both runs are post-norm. Run A raises the learning rate linearly over the first {count} step; run B starts at ' +
      'full strength. Measured at 0.015: with 60 warmup steps post-norm learns (2.47 after 600 steps) where the run ' +
      'without warmup stalls at 3.1; at 0.02 and above, warmup over 60 steps no longer saves it.',
    other: 'Both runs are post-norm. Run A raises the learning rate linearly over the first {count} steps; run B starts ' +
      'at full strength. Measured at 0.015: with 60 warmup steps post-norm learns (2.47 after 600 steps) where the run ' +
      'without warmup stalls at 3.1; at 0.02 and above, warmup over 60 steps no longer saves it.',
  },

  // Loss chart
  'lab.loss.heading': 'Loss',
  'lab.loss.explain': 'Thin line: the training loss of each step; thick: its average over the last steps (up to 25); ' +
    'dotted with points: the validation loss, on documents neither model trains on. Run B\'s lines are dashed. A ' +
    'triangle on the top edge marks a loss spike; a cross, a run that diverged.',
  'lab.loss.xLabel': 'training step',
  'lab.loss.yLabel': 'loss (nats per byte)',
  'lab.loss.title': 'Training and validation loss of both runs',
  'lab.loss.description': 'Loss against training step for run A ({a}) and run B ({b}). The latest numbers are in the ' +
    'results table below.',
  'lab.loss.uniform': 'uniform guess, ln 256 = {loss}',
  'lab.loss.diverged': '{run} diverged at step {step}',
  'lab.loss.lrChange': 'lr → {lr}',
  'lab.loss.lrChangeTitle': 'After step {step}: learning rate {lr}, {warmup} warmup steps, {steps} steps in all; the runs went on from where they were',
  'lab.status.rescheduled': 'After step {step} both runs train with learning rate {lr} ({warmup} warmup steps, {steps} steps in all): they go on from where they were.',
  'lab.confirm.text': 'Changing {setting} to {value} means new models: both runs would start again from step 0 (they are at step {step}).',
  'lab.confirm.fewerSteps': 'The runs are already at step {step}: {value} steps in all means starting both again from step 0.',
  'lab.confirm.restart': 'Restart both runs',
  'lab.confirm.keep': 'Keep training',
  'lab.loss.spike': '{run}: loss spike at step {step} ({loss} nats)',

  // Gradient chart
  'lab.grad.heading': 'Gradient norm of each layer',
  'lab.grad.explain': 'How much training signal reaches each layer, from the embeddings (left) to the output head ' +
    '(right): thick lines now (averaged over recent steps), thin dotted ones at step 1. A line that drops by orders of ' +
    'magnitude towards the embeddings means the lower layers have stopped learning.',
  'lab.grad.xLabel': 'layer (input side → output side)',
  'lab.grad.yLabel': 'gradient norm (log scale)',
  'lab.grad.title': 'Gradient norm of every layer for both runs',
  'lab.grad.description': 'The norm of each layer\'s gradient before clipping, for run A ({a}) and run B ({b}): thick ' +
    'lines now (averaged over recent steps), thin dotted lines at step 1. A line that falls steeply towards the ' +
    'embeddings means the lower layers hardly receive any training signal.',
  'lab.grad.tickEmbeddings': 'emb',
  'lab.grad.tickHead': 'head',

  // Samples
  'lab.samples.heading': 'What each model writes after “{prompt}”',
  'lab.samples.explain': '{bytes} bytes sampled at temperature {temperature}, with the same random draws for both ' +
    'models, renewed every few dozen steps. Bytes that are not a whole UTF-8 character are shown as <0xNN>.',
  'lab.samples.after': '— after step {step}',

  // Results
  'lab.results.heading': 'Results',
  'lab.results.caption': 'Latest numbers of both runs',
  'lab.results.run': 'run',
  'lab.results.step': 'step',
  'lab.results.trainLoss': 'train loss (avg.)',
  'lab.results.valLoss': 'val. loss',
  'lab.results.gradNorm': 'grad. norm',
  'lab.results.state': 'state',
  'lab.results.pytorch': 'The same two runs in PyTorch (the core’s seeded weights and batches, ported): its printed ' +
    'losses are the ones above.',
  'lab.state.diverged': 'diverged at step {step}',
  'lab.state.done': 'done',
  'lab.state.training': 'training',
  'lab.state.paused': 'paused',
  'lab.state.ready': 'ready',
  'lab.notes.run': '{run}:',
  'lab.notes.nonFinite': 'diverged at step {step}: the loss or a gradient was not finite, so training stopped.',
  'lab.notes.exploded': {
    one: 'diverged at step {step}: from there on the loss stayed above a uniform guess (ln 256) for {count} step, so ' +
      'training stopped.',
    other: 'diverged at step {step}: from there on the loss stayed above a uniform guess (ln 256) for {count} steps, so ' +
      'training stopped.',
  },
  'lab.notes.spike': 'loss spike at step {step} ({loss} nats, worse than a uniform guess).',
  'lab.notes.spikes': {
    one: 'loss spike at step {step} ({loss} nats, worse than a uniform guess) and {count} more.',
    other: 'loss spike at step {step} ({loss} nats, worse than a uniform guess) and {count} more.',
  },
  'lab.notes.vanished': 'since step {step} the gradient reaching the embeddings is below 1/100,000 of the head\'s: the ' +
    'lower layers have stopped learning.',

  // Checkpoints
  'lab.checkpoints.heading': 'The models you trained',
  'lab.checkpoints.explain': {
    one: 'Each run keeps its weights every {count} step (from step 0). Hand a run to the GPT explorer on this page to ' +
      'look inside it — scrub through its checkpoints to watch attention and the LayerNorm statistics form — or ' +
      'download one as config.json + model.safetensors for the CLI or PyTorch.',
    other: 'Each run keeps its weights every {count} steps (from step 0). Hand a run to the GPT explorer on this page to ' +
      'look inside it — scrub through its checkpoints to watch attention and the LayerNorm statistics form — or ' +
      'download one as config.json + model.safetensors for the CLI or PyTorch.',
  },
  'lab.checkpoints.label': '{run}: {label}, step',
  'lab.checkpoints.select': 'checkpoint of run {run}',
  'lab.checkpoints.inspect': 'Inspect run {run} in the GPT explorer',
  'lab.checkpoints.download': 'Download',
  'lab.checkpoints.noExplorer': 'There is no <gpt-explorer> on this page: download the checkpoint instead.',
  'lab.checkpoints.explorerLabel': 'training lab run {run} ({label})',
  'lab.checkpoints.inExplorer': 'Run {run} at step {step} is in the GPT explorer.',
  'lab.checkpoints.downloaded': 'Downloaded {weights} and {config}: rename them to model.safetensors and config.json in ' +
    'one directory for blockscope --model DIR.',

  // Status line
  'lab.status.waiting': 'The lab loads its corpus when it scrolls into view.',
  'lab.status.hidden': 'Paused while the tab is hidden; it continues when you come back.',
  'lab.status.building': 'Loading the corpus and building both models…',
  'lab.status.ready': 'Ready: run A {a} and run B {b} parameters (wasm {flavour}). Press Train.',
  'lab.status.training': 'Training…',
  'lab.status.pausedAt': 'Paused at step {step}.',
  'lab.status.pausedAfter': 'Paused after step {a} (A) and {b} (B).',
  'lab.status.finished': 'Finished: {a}; {b}. Reset to train again.',
  'lab.status.stopped': 'Training stopped: {message}',
  'lab.summary.diverged': '{run} ({label}) diverged at step {step}',
  'lab.summary.validation': '{run} ({label}) validation loss {loss}',
  'lab.error.corpus': 'could not load the corpus {file} (HTTP {status})',
};
