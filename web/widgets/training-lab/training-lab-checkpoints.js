// training-lab-checkpoints.js — the models the lab trains do not vanish: each run keeps small checkpoints (its
// weights every CHECKPOINT_EVERY steps, as the core saves them: safetensors in the book's layout, with config.json),
// thinned to at most MAX_CHECKPOINTS so a long run stays within a few dozen MB. The panel hands a run's checkpoints
// to a <gpt-explorer> on the page (which can then scrub through them, watching attention and LayerNorm statistics
// form) and downloads any of them as the two files the CLI and PyTorch load. Its select and buttons are the widget's
// control group `checkpoints` (this.rows; lock="checkpoints" disables them).
import { h } from '../kit/base.js';
import { CHECKPOINT_EVERY } from './training-lab-runs.js';

export const CHECKPOINTS_CSS = `
.checkpoints .ck-row { display: flex; flex-wrap: wrap; gap: 0.3rem 0.6rem; align-items: center; margin: 0.3rem 0; }
.checkpoints .ck-note { margin: 0.2rem 0; }
`;

/** The lab's "Inspect or download a run's checkpoints" section. port: the element's panelPort plus explorer(), runLabel(run). */
export class CheckpointPanel {
  #port;
  constructor(port) {
    this.#port = port;
    const { t } = port;
    this.rows = h('div', { class: 'ck-rows' });
    this.note = h('p', { class: 'ck-note', 'aria-live': 'polite' });
    this.section = h('section', { class: 'checkpoints', part: 'checkpoints' }, h('h4', {}, t('lab.checkpoints.heading')),
      h('p', { class: 'muted' }, t('lab.checkpoints.explain', { count: CHECKPOINT_EVERY })),
      this.rows, this.note);
    this.selects = new Map();
  }

  draw(runs) {
    const { t, num, runLabel, locked } = this.#port;
    for (const run of runs) {
      let row = this.selects.get(run.key);
      if (!row || row.run !== run) {
        const name = run.key.toUpperCase();
        const select = h('select', { id: `ck-${run.key}`, 'aria-label': t('lab.checkpoints.select', { run: name }) });
        const inspect = h('button', { type: 'button', part: 'inspect-checkpoint', class: 'inspect', 'data-run': run.key,
          onclick: () => !locked('checkpoints') && this.inspect(run, Number(select.value)) }, t('lab.checkpoints.inspect', { run: name }));
        const download = h('button', { type: 'button', part: 'download-checkpoint', class: 'download', 'data-run': run.key,
          onclick: () => !locked('checkpoints') && this.download(run, Number(select.value)) }, t('lab.checkpoints.download'));
        row = { run, select, inspect, download, el: h('div', { class: 'ck-row', 'data-run': run.key },
          h('label', { for: `ck-${run.key}` }, `${t('lab.checkpoints.label', { run: name, label: runLabel(run) })} `), select, inspect,
          download) };
        this.selects.set(run.key, row);
      }
      const steps = run.checkpoints.map((c) => String(c.step));
      const current = [...row.select.options].map((o) => o.value);
      if (steps.join() !== current.join()) {
        const keep = row.select.value;
        const follow = !keep || keep === current.at(-1); // on the latest: stay on the latest
        row.select.replaceChildren(...steps.map((s) => h('option', { value: s }, num(Number(s)))));
        row.select.value = follow || !steps.includes(keep) ? steps.at(-1) ?? '' : keep;
      }
      row.inspect.disabled = row.download.disabled = steps.length === 0 || locked('checkpoints');
    }
    this.rows.replaceChildren(...runs.map((r) => this.selects.get(r.key).el));
  }

  inspect(run, step) {
    const { t, runLabel } = this.#port;
    const explorer = this.#port.explorer();
    if (!explorer || typeof explorer.inspectCheckpoints !== 'function') {
      this.note.textContent = t('lab.checkpoints.noExplorer');
      return;
    }
    const name = run.key.toUpperCase();
    explorer.inspectCheckpoints({ label: t('lab.checkpoints.explorerLabel', { run: name, label: runLabel(run) }), step,
      checkpoints: run.checkpoints.map(({ step: s, config, weights }) => ({ step: s, config, weights })) });
    this.note.textContent = t('lab.checkpoints.inExplorer', { run: name, step });
    explorer.scrollIntoView?.({ block: 'start', behavior: 'smooth' });
  }

  download(run, step) {
    const ck = run.checkpoints.find((c) => c.step === step);
    if (!ck) return;
    const save = (bytes, name, type) => {
      const url = URL.createObjectURL(new Blob([bytes], { type }));
      const a = h('a', { href: url, download: name });
      this.section.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    };
    const base = `run-${run.key}-step-${step}`;
    save(ck.weights, `${base}-model.safetensors`, 'application/octet-stream');
    save(ck.config, `${base}-config.json`, 'application/json');
    this.note.textContent = this.#port.t('lab.checkpoints.downloaded', { weights: `${base}-model.safetensors`,
      config: `${base}-config.json` });
  }
}
