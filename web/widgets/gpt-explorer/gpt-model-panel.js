// gpt-model-panel.js — <gpt-explorer>'s Model section: the trained/untrained switch (radio pair, keyboard-accessible,
// bound to the `weights` attribute), the download progress bar, fallback and retry messages, LayerNorm placement,
// the random-model settings and the checkpoint loader (URL, file picker, drop zone). Controls set the host's
// attributes or call its loadFiles()/loadUrl()/useShipped(); the panel never touches a model.
import { h } from '../kit/base.js';
import { attrField, attrSelect, seedField } from '../kit/controls.js';
import { labelsOf } from './gpt-models.js';

export const MODEL_PANEL_CSS = `
fieldset.weights { display: grid; gap: 0.3rem; margin: 0.3rem 0 0.5rem; }
fieldset.weights label.choice { display: flex; gap: 0.5rem; align-items: baseline; padding: 0.25rem 0.4rem; border-radius: 6px;
  border: 1px solid transparent; }
fieldset.weights label.choice:has(input:checked) { border-color: var(--bs-accent); background: var(--bs-panel); }
fieldset.weights input[type="radio"] { accent-color: var(--bs-accent); }
fieldset:disabled label.choice { opacity: 0.6; cursor: not-allowed; }
input.url { width: 18rem; }
.dropzone { border: 2px dashed var(--bs-border); border-radius: 8px; padding: 0.6rem; margin: 0.4rem 0; }
.dropzone.over { border-color: var(--bs-accent); background: var(--bs-panel); }
progress { width: min(100%, 22rem); accent-color: var(--bs-accent); }
.loading[hidden] { display: none; }
`;

const RANDOM_SETTINGS = ['layers', 'emb-dim', 'heads', 'context', 'tokenizer'];

export class ModelPanel {
  /** host: the widget's panel port (base.js panelPort) plus loadFiles, loadUrl, useShipped, retry. */
  constructor(host) {
    this.host = host;
    const radio = (value) => h('input', { type: 'radio', name: 'weights', value, id: `weights-${value}`,
      onchange: (e) => e.target.checked && host.set('weights', value) });
    this.radios = { trained: radio('trained'), untrained: radio('untrained') };
    // What each choice is: the shipped model's labels (describe() rewrites them for the model loaded).
    this.choiceText = { trained: h('span', { class: 'choice-text' }), untrained: h('span', { class: 'choice-text' }) };
    this.showLabels(labelsOf());
    this.switch = h('fieldset', { class: 'weights' }, h('legend', {}, 'Weights'),
      h('label', { class: 'choice', for: 'weights-trained' }, this.radios.trained, h('span', {}, h('strong', {}, 'Trained'),
        this.choiceText.trained)),
      h('label', { class: 'choice', for: 'weights-untrained' }, this.radios.untrained, h('span', {}, h('strong', {}, 'Untrained'),
        this.choiceText.untrained)));
    this.text = h('p', { class: 'model-text' });
    this.progress = h('progress', { class: 'load-progress', max: 1, 'aria-label': 'model download' });
    this.progressText = h('span', { class: 'progress-text num' });
    this.loading = h('div', { class: 'row loading', hidden: true }, this.progress, this.progressText);
    this.message = h('p', { class: 'model-message', role: 'status' });
    this.retryButton = h('button', { type: 'button', class: 'retry', hidden: true, onclick: () => host.retry() }, 'Try again');
    this.shippedButton = h('button', { type: 'button', class: 'use-shipped', hidden: true, onclick: () => host.useShipped() },
      'Back to the trained model');
    this.section = h('section', { class: 'model' }, h('h4', {}, 'Model'), this.switch,
      h('div', { class: 'row seed' }, seedField(host, 'seed', 'Blockscope seed of the random weights')), this.text, this.loading,
      this.message, h('div', { class: 'row' }, this.retryButton, this.shippedButton),
      h('div', { class: 'row' }, attrSelect(host, 'norm', 'LayerNorm placement', { pre: 'pre-norm (GPT-2)', post: 'post-norm (same weights)' })),
      this.buildSettings(), this.buildLoader());
  }

  buildSettings() {
    const fields = [
      attrField(this.host, 'layers', 'layers'),
      attrField(this.host, 'emb-dim', 'emb_dim', { step: 4 }),
      attrField(this.host, 'heads', 'heads'),
      attrField(this.host, 'context', 'context'),
      attrSelect(this.host, 'tokenizer', 'tokenizer', { byte: 'UTF-8 bytes (256)', gpt2: 'GPT-2 BPE (50,257)' }),
    ];
    // Changing a setting asks for a random model of that size (it replaces the trained model and its twin).
    for (const name of RANDOM_SETTINGS) {
      this.host.controls.get(name).addEventListener('change', () => this.host.set('weights', 'random'));
    }
    this.randomButton = h('button', { type: 'button', class: 'use-random', onclick: () => this.host.set('weights', 'random') },
      'Build this random model');
    return h('details', { class: 'settings' }, h('summary', {}, 'Random model settings'),
      h('div', { class: 'row' }, ...fields), h('div', { class: 'row' }, this.randomButton),
      h('p', { class: 'muted' }, 'A seeded random (untrained) model of any size replaces the trained model; the seed ' +
        'above sets its weights. A loaded checkpoint brings its own size.'));
  }

  buildLoader() {
    const host = this.host;
    this.urlInput = h('input', { type: 'text', id: 'model-url', class: 'url', inputmode: 'url', autocomplete: 'off',
      placeholder: 'models/gpt2-small/', spellcheck: 'false' });
    this.fileInput = h('input', { type: 'file', id: 'model-files', multiple: true, accept: '.json,.safetensors,.txt,.bpe',
      onchange: () => this.fileInput.files.length && host.loadFiles(this.fileInput.files) });
    const drop = h('div', { class: 'dropzone' },
      h('label', { for: 'model-files' }, 'Choose config.json and model.safetensors '), this.fileInput,
      h('p', { class: 'muted' }, 'or drop both files here (with the model\'s vocab.json + merges.txt, if it has its own tokenizer).'));
    drop.addEventListener('dragover', (e) => {
      e.preventDefault();
      drop.classList.add('over');
    });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      if (e.dataTransfer?.files?.length) host.loadFiles(e.dataTransfer.files);
    });
    this.loaderMessage = h('p', { class: 'loader-message', role: 'status' });
    return h('details', { class: 'loader' }, h('summary', {}, 'Load another checkpoint'),
      h('p', { class: 'muted note loader-note' }, 'A directory with config.json and model.safetensors (the book\'s or ' +
        'Hugging Face GPT-2\'s layout) replaces the trained model; its own tokenizer files (vocab.json + merges.txt) ' +
        'are used when it has them. Models too large for this tab are refused before downloading.'),
      h('div', { class: 'row' }, h('label', { for: 'model-url' }, 'Checkpoint directory URL'), this.urlInput,
        h('button', { type: 'button', class: 'load-url', onclick: () => host.loadUrl(this.urlInput.value.trim()) }, 'Load')),
      drop, this.loaderMessage);
  }

  /** Shows download progress ({loaded, total} bytes) of `label`; progress(null) hides the bar. */
  showProgress(p, label) {
    this.loading.hidden = !p;
    if (!p) return;
    const mb = (n) => (n / 1e6).toFixed(1);
    if (p.total) {
      this.progress.max = p.total;
      this.progress.value = p.loaded;
    } else this.progress.removeAttribute('value'); // indeterminate until the size is known
    this.progressText.textContent = p.total ? `Loading ${label}: ${mb(p.loaded)} of ${mb(p.total)} MB` : `Loading ${label}…`;
    this.progress.setAttribute('aria-valuetext', this.progressText.textContent);
  }

  /** Loader feedback (success or failure of a checkpoint the learner asked for). */
  loaderStatus(text, { error = false } = {}) {
    this.loaderMessage.textContent = text;
    this.loaderMessage.classList.toggle('error', error);
  }

  /** The trained/untrained choices' descriptions, from a shipped model's labels (gpt-models.js labelsOf). */
  showLabels(labels) {
    this.choiceText.trained.textContent = ` — ${labels.trained.replace(/^trained /, '')}`;
    this.choiceText.untrained.textContent = ` — ${labels.untrained.replace(/^untrained: /, '')}`;
  }

  /** Shows the chosen weights before any model is there (while the trained one loads). */
  preselect(weights) {
    for (const [w, radio] of Object.entries(this.radios)) radio.checked = w === weights;
  }

  /** Reflects the models now in use: the switch, the description, fallback message and buttons. */
  describe(models, { weights, modelAttr }) {
    const shipped = Boolean(models.pair);
    if (shipped) this.showLabels(models.pair.labels);
    const fallback = models.single?.kind === 'fallback';
    const single = models.single && !fallback;
    this.switch.disabled = Boolean(single) || (!shipped && !fallback);
    this.radios.trained.disabled = fallback;
    this.radios.untrained.disabled = shipped && !models.pair.untrained;
    this.radios.trained.checked = shipped && weights === 'trained';
    this.radios.untrained.checked = (shipped && weights === 'untrained') || fallback;
    const c = models.model?.config;
    this.text.textContent = c ? `GPT: ${c.n_layers} blocks, emb_dim ${c.emb_dim}, ${c.n_heads} heads, context ` +
      `${c.context_length}, vocabulary ${c.vocab_size.toLocaleString('en-US')} — ` +
      `${models.model.numParameters.toLocaleString('en-US')} parameters, ${models.label}.` : '';
    const twinError = shipped ? models.pair.twinError : null;
    this.message.classList.toggle('error', fallback || Boolean(twinError));
    if (fallback) {
      this.message.textContent = `The trained model could not be loaded (${models.failed?.message ?? 'unknown error'}). ` +
        'Showing an untrained model (seeded random weights) instead.';
    } else this.message.textContent = twinError ? `The untrained twin could not be built (${twinError}).` : '';
    this.retryButton.hidden = !fallback;
    this.shippedButton.hidden = !single;
    if (!this.host.isFocused(this.urlInput) && !this.urlInput.value) this.urlInput.value = modelAttr;
  }
}
