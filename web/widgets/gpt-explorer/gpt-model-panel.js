// gpt-model-panel.js — <gpt-explorer>'s Model section: the trained/untrained switch (radio pair, keyboard-accessible,
// bound to the `weights` attribute), the download progress bar, fallback and retry messages, LayerNorm placement,
// the random-model settings and the checkpoint loader (URL, file picker, drop zone). Controls set the host's
// attributes or call its loadFiles()/loadUrl()/useShipped(); the panel never touches a model.
import { h } from '../kit/base.js';
import { attrField, attrSelect, headChecks, seedField } from '../kit/controls.js';
import { labelsOf } from './gpt-models.js';

export const MODEL_PANEL_CSS = `
fieldset.weights { display: grid; gap: 0.3rem; margin: 0.3rem 0 0.5rem; }
fieldset.weights label.choice { display: flex; gap: 0.5rem; align-items: baseline; margin: 0; padding: 0.25rem 0.4rem; border-radius: 6px;
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
    const { t } = host;
    const radio = (value) => h('input', { type: 'radio', name: 'weights', value, id: `weights-${value}`,
      onchange: (e) => e.target.checked && host.set('weights', value) });
    this.radios = { trained: radio('trained'), untrained: radio('untrained') };
    // What each choice is: the shipped model's labels (describe() rewrites them for the model loaded).
    this.choiceText = { trained: h('span', { class: 'choice-text' }), untrained: h('span', { class: 'choice-text' }) };
    this.showLabels(labelsOf(undefined, t));
    this.switch = h('fieldset', { class: 'weights' }, h('legend', {}, t('gpt.weights.legend')),
      h('label', { class: 'choice', for: 'weights-trained' }, this.radios.trained, h('span', {}, h('strong', {}, t('gpt.weights.trained')),
        ' ', this.choiceText.trained)),
      h('label', { class: 'choice', for: 'weights-untrained' }, this.radios.untrained, h('span', {}, h('strong', {}, t('gpt.weights.untrained')),
        ' ', this.choiceText.untrained)));
    this.text = h('p', { class: 'model-text' });
    this.progress = h('progress', { class: 'load-progress', max: 1, 'aria-label': t('gpt.progress.label') });
    this.progressText = h('span', { class: 'progress-text num' });
    this.loading = h('div', { class: 'row loading', hidden: true }, this.progress, this.progressText);
    this.message = h('p', { class: 'model-message', role: 'status' });
    this.retryButton = h('button', { type: 'button', class: 'retry', hidden: true, onclick: () => host.retry() }, t('gpt.model.retry'));
    this.shippedButton = h('button', { type: 'button', class: 'use-shipped', hidden: true, onclick: () => host.useShipped() },
      t('gpt.model.backToTrained'));
    host.boundControls.addGroup('weights', this.switch, this.retryButton, this.shippedButton);
    this.section = h('section', { class: 'model', part: 'model' }, h('h4', {}, t('gpt.model.heading')), this.switch,
      h('div', { class: 'row seed', part: 'controls' }, seedField(host, 'seed', t('gpt.model.seed'))), this.text, this.loading,
      this.message, h('div', { class: 'row', part: 'controls' }, this.retryButton, this.shippedButton),
      h('div', { class: 'row', part: 'controls' },
        attrSelect(host, 'norm', t('gpt.norm.label'), { pre: t('gpt.norm.pre'), post: t('gpt.norm.post') })),
      this.buildSettings(), this.buildLoader());
  }

  buildSettings() {
    const { t, num } = this.host;
    const heads = headChecks(this.host);
    const fields = [
      attrField(this.host, 'layers', t('gpt.size.layers')),
      attrField(this.host, 'emb-dim', 'emb_dim', { step: 4 }, { check: heads.width }),
      attrField(this.host, 'heads', t('gpt.size.heads'), {}, { check: heads.heads }),
      attrField(this.host, 'context', t('gpt.size.context')),
      attrSelect(this.host, 'tokenizer', t('gpt.size.tokenizer'),
        { byte: t('gpt.size.bytes', { vocab: num(256) }), gpt2: t('gpt.size.gpt2', { vocab: num(50257) }) }),
    ];
    // Changing a setting asks for a random model of that size (it replaces the trained model and its twin); a value the
    // field refuses (its message under it) changes nothing.
    for (const name of RANDOM_SETTINGS) {
      const input = this.host.boundControls.get(name);
      input.addEventListener('change', () => input.getAttribute('aria-invalid') !== 'true' && this.host.set('weights', 'random'));
    }
    this.randomButton = h('button', { type: 'button', class: 'use-random', onclick: () => this.host.set('weights', 'random') },
      t('gpt.size.build'));
    const settings = h('details', { class: 'settings' }, h('summary', {}, t('gpt.size.heading')),
      h('div', { class: 'row' }, ...fields), h('div', { class: 'row' }, this.randomButton),
      h('p', { class: 'muted' }, t('gpt.size.note')));
    return this.host.boundControls.addGroup('size', settings);
  }

  buildLoader() {
    const host = this.host;
    const { t } = host;
    this.urlInput = h('input', { type: 'text', id: 'model-url', class: 'url', inputmode: 'url', autocomplete: 'off',
      placeholder: 'models/gpt2-small/', spellcheck: 'false' });
    this.fileInput = h('input', { type: 'file', id: 'model-files', multiple: true, accept: '.json,.safetensors,.txt,.bpe',
      onchange: () => this.fileInput.files.length && host.loadFiles(this.fileInput.files) });
    const drop = h('div', { class: 'dropzone' },
      h('label', { for: 'model-files' }, t('gpt.loader.choose'), ' '), this.fileInput,
      h('p', { class: 'muted' }, t('gpt.loader.drop')));
    drop.addEventListener('dragover', (e) => {
      e.preventDefault();
      drop.classList.add('over');
    });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      if (e.dataTransfer?.files?.length && !host.locked('model')) host.loadFiles(e.dataTransfer.files);
    });
    this.loaderMessage = h('p', { class: 'loader-message', role: 'status' });
    const loader = h('details', { class: 'loader' }, h('summary', {}, t('gpt.loader.heading')),
      h('p', { class: 'muted note loader-note' }, t('gpt.loader.note')),
      h('div', { class: 'row' }, h('label', { for: 'model-url' }, t('gpt.loader.url')), this.urlInput,
        h('button', { type: 'button', class: 'load-url', onclick: () => host.loadUrl(this.urlInput.value.trim()) }, t('gpt.loader.load'))),
      drop, this.loaderMessage);
    return host.boundControls.addGroup('checkpoint', loader);
  }

  /** Shows download progress ({loaded, total} bytes) of `label`; progress(null) hides the bar. */
  showProgress(p, label) {
    this.loading.hidden = !p;
    if (!p) return;
    const { t, num } = this.host;
    const mb = (n) => num(n / 1e6, 1);
    if (p.total) {
      this.progress.max = p.total;
      this.progress.value = p.loaded;
    } else this.progress.removeAttribute('value'); // indeterminate until the size is known
    this.progressText.textContent = p.total ? t('gpt.progress.bytes', { label, loaded: mb(p.loaded), total: mb(p.total) })
      : t('gpt.loader.loading', { label });
    this.progress.setAttribute('aria-valuetext', this.progressText.textContent);
  }

  /** Loader feedback (success or failure of a checkpoint the learner asked for). */
  loaderStatus(text, { error = false } = {}) {
    this.loaderMessage.textContent = text;
    this.loaderMessage.classList.toggle('error', error);
  }

  /** The trained/untrained choices' descriptions, from a shipped model's labels (gpt-models.js labelsOf). */
  showLabels(labels) {
    const { t } = this.host;
    this.choiceText.trained.textContent = t('gpt.weights.about', { about: labels.trainedAbout });
    this.choiceText.untrained.textContent = t('gpt.weights.about', { about: labels.untrainedAbout });
  }

  /** Shows the chosen weights before any model is there (while the trained one loads). */
  preselect(weights) {
    for (const [w, radio] of Object.entries(this.radios)) radio.checked = w === weights;
  }

  /** Reflects the models now in use: the switch, the description, fallback message and buttons. */
  describe(models, { weights, modelAttr }) {
    const { t } = this.host;
    const shipped = Boolean(models.pair);
    if (shipped) this.showLabels(models.pairLabels(t));
    const fallback = models.single?.kind === 'fallback';
    const single = models.single && !fallback;
    this.switch.disabled = Boolean(single) || (!shipped && !fallback);
    this.radios.trained.disabled = fallback;
    this.radios.untrained.disabled = shipped && !models.pair.untrained;
    this.radios.trained.checked = shipped && weights === 'trained';
    this.radios.untrained.checked = (shipped && weights === 'untrained') || fallback;
    const c = models.model?.config;
    this.text.textContent = c ? t('gpt.model.summary', { layers: c.n_layers, embDim: c.emb_dim, heads: c.n_heads,
      context: c.context_length, vocab: c.vocab_size, parameters: models.model.numParameters, label: models.labelIn(t) }) : '';
    const twinError = shipped ? models.pair.twinError : null;
    this.message.classList.toggle('error', fallback || Boolean(twinError));
    if (fallback) {
      this.message.textContent = t('gpt.model.fallbackMessage', { error: models.failed?.message ?? t('gpt.model.unknownError') });
    } else this.message.textContent = twinError ? t('gpt.model.twinError', { error: twinError }) : '';
    this.retryButton.hidden = !fallback;
    this.shippedButton.hidden = !single;
    if (!this.host.isFocused(this.urlInput) && !this.urlInput.value) this.urlInput.value = modelAttr;
  }
}
