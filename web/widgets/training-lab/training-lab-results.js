// training-lab-results.js — what <training-lab> shows of each run beyond the charts: the sample each model writes
// after the fixed prompt, the results table (step, losses, gradient norm, state) and the notes on what happened to a
// run (divergence, loss spikes, lower layers that stopped learning). A panel of the widget (it gets the element's
// panelPort plus runLabel, runName and playing); it draws what training-lab-runs.js recorded.
import { h } from '../kit/base.js';
import { renderPieces, utf8Pieces } from '../kit/tokens.js';
import { RUN_COLORS, smooth } from './training-lab-charts.js';
import { DIVERGED_STEPS, SAMPLE_PROMPT } from './training-lab-runs.js';

export const RESULTS_CSS = `
.samples { display: grid; grid-template-columns: minmax(0, 1fr); gap: 0.5rem 1rem; }
@container (min-width: 700px) { .samples { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); } }
.sample { margin: 0; border: 1px solid var(--bs-border); border-left-width: 4px; border-radius: 6px; padding: 0.35rem 0.5rem;
  background: var(--bs-panel); min-width: 0; }
.sample figcaption { font-size: 0.9rem; color: var(--bs-muted); }
.sample .text { white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.45 ui-monospace, Menlo, Consolas, monospace; margin: 0.2rem 0 0; }
.sample .prompt { color: var(--bs-muted); }
.results td.state { text-align: start; }
.run-notes { margin: 0.4rem 0; padding-left: 1.2rem; }
.results .failed { color: var(--bs-c2); font-weight: 600; }
/* Narrow: tighter cells, smaller column heads, and the run column's head and each run's name only for screen readers
   (the legend above names the runs), so the table fits 360 px in every language. */
@container (max-width: 30rem) {
  .results { font-size: 0.85rem; }
  .results th, .results td { padding-inline: 0.25rem; }
  .results thead th { font-size: 0.75rem; }
  .results .run-label, .results .run-head { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
    white-space: nowrap; }
}
`;

/** The samples (this.samples), the results table (this.table) and the notes under it (this.notes). */
export class ResultsPanel {
  #port;
  constructor(port) {
    this.#port = port;
    const t = port.t;
    const heads = ['run', 'step', 'trainLoss', 'valLoss', 'gradNorm', 'state'];
    this.samples = h('div', { class: 'samples' });
    this.table = h('table', { class: 'results' },
      h('caption', { class: 'visually-hidden' }, t('lab.results.caption')),
      h('thead', {}, h('tr', {}, ...heads.map((k) => h('th', { scope: 'col' },
        k === 'run' ? h('span', { class: 'run-head' }, t('lab.results.run')) : t(`lab.results.${k}`))))),
      h('tbody'));
    this.notes = h('ul', { class: 'run-notes', 'aria-live': 'polite' });
    this.notesKey = null;
  }

  draw(runs) {
    this.drawSamples(runs);
    this.drawTable(runs);
  }

  drawSamples(runs) {
    const { t, runName } = this.#port;
    this.samples.replaceChildren(...runs.map((run) => h('figure', { class: 'sample', 'data-run': run.key, style: `border-left-color: ${RUN_COLORS[run.key]}` },
      h('figcaption', {}, h('span', { class: 'run-name' }, runName(run)),
        run.sample ? ` ${t('lab.samples.after', { step: run.sample.step })}` : ''),
      h('p', { class: 'text' }, h('span', { class: 'prompt', translate: 'no' }, SAMPLE_PROMPT),
        h('span', { class: 'generated' }, ...(run.sample ? samplePieces(run.sample.bytes) : ['…']))))));
  }

  drawTable(runs) {
    const { t, num, runLabel } = this.#port;
    const dash = (v, digits) => (v == null ? '–' : num(v, digits));
    this.table.tBodies[0].replaceChildren(...runs.map((run) => {
      const ok = run.steps.filter((s) => s.finite);
      const avg = ok.length ? smooth(ok.map((s) => s.loss)).at(-1) : null;
      return h('tr', { 'data-run': run.key },
        h('th', { scope: 'row' }, h('span', { class: 'run-name', style: `color: ${RUN_COLORS[run.key]}` }, run.key.toUpperCase()),
          h('span', { class: 'run-label' }, ` ${runLabel(run)}`)),
        h('td', { class: 'num step' }, num(run.stepsDone)),
        h('td', { class: 'num loss' }, dash(avg, 3)),
        h('td', { class: 'num val' }, dash(run.lastVal?.valLoss, 3)),
        h('td', { class: 'num grad' }, dash(ok.at(-1)?.gradNorm, 3)),
        h('td', { class: `state${run.failed ? ' failed' : ''}` }, this.runState(run)));
    }));
    const notes = runs.flatMap((run) => this.runNotes(run).map((text) => h('li', { 'data-run': run.key },
      h('span', { class: 'run-name', style: `color: ${RUN_COLORS[run.key]}` }, `${t('lab.notes.run', { run: run.key.toUpperCase() })} `),
      text)));
    // Replaced only when the text changes, so screen readers hear each note once.
    const key = notes.map((li) => li.textContent).join('|');
    if (key !== this.notesKey) {
      this.notesKey = key;
      this.notes.replaceChildren(...notes);
    }
  }

  runState(run) {
    const { t, playing } = this.#port;
    if (run.failed) return t('lab.state.diverged', { step: run.failed.step });
    if (run.finished) return t('lab.state.done');
    if (playing()) return t('lab.state.training');
    return t(run.stepsDone ? 'lab.state.paused' : 'lab.state.ready');
  }

  /** What happened to a run beyond its numbers: divergence, loss spikes, lower layers that stopped learning. */
  runNotes(run) {
    const { t, num } = this.#port;
    const notes = [];
    if (run.failed?.reason === 'non-finite') notes.push(t('lab.notes.nonFinite', { step: run.failed.step }));
    if (run.failed?.reason === 'exploded') notes.push(t('lab.notes.exploded', { step: run.failed.step, count: DIVERGED_STEPS }));
    if (run.spikes.length) {
      const [first] = run.spikes;
      const params = { step: first.step, loss: num(first.loss, 2), count: run.spikes.length - 1 };
      notes.push(t(run.spikes.length > 1 ? 'lab.notes.spikes' : 'lab.notes.spike', params));
    }
    if (run.vanishedAt != null) notes.push(t('lab.notes.vanished', { step: run.vanishedAt }));
    return notes;
  }
}

/** A sample's text and byte chips; whitespace is made visible (␣ ↵) when there is nothing else to see. */
function samplePieces(bytes) {
  const pieces = utf8Pieces(bytes);
  const blank = pieces.every((p) => p.text != null && !p.text.trim());
  return renderPieces(pieces, { visible: blank });
}
