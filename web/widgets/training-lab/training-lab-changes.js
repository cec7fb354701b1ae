// training-lab-changes.js — how a change of <training-lab>'s settings reaches runs that have trained: the schedule
// (lr, warmup, steps) applies live, from the next step on (RunPair.reschedule), and a change that means new models
// (comparison, layers, d_model, or fewer steps than done) is only made by the learner's controls once the learner
// confirms, in a prompt under the settings that says what would be lost. Before the first step every change simply
// rebuilds the runs; a script's or deep link's change always applies. No model work here.
import { h } from '../kit/base.js';

/** Settings the trainers take from their next step on: the runs go on. */
export const SCHEDULE = ['lr', 'warmup', 'steps'];

export const CHANGES_CSS = `
.restart-prompt { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem 0.6rem; margin: 0.5rem 0;
  padding: 0.5rem 0.7rem; border: 1px solid var(--bs-c2); border-radius: 6px; background: var(--bs-panel); }
.restart-prompt[hidden] { display: none; }
.restart-prompt p { margin: 0; flex: 1 1 16rem; }
`;

/** The most steps either run has done (0 without runs). */
export function stepsDone(pair) {
  return pair ? Math.max(...pair.runs.map((r) => r.stepsDone)) : 0;
}

/**
 * Whether the learner's change of `name` to `value` would throw away training (it has begun, and the change needs new
 * models): then the widget asks first. `st`: the settings now.
 */
export function needsConfirmation(pair, name, value, st) {
  const done = stepsDone(pair);
  if (done === 0) return false;
  if (name === 'steps') return Number(value) <= done;
  if (SCHEDULE.includes(name) || name === 'eval-every' || name === 'sample-every') return false;
  return String(value) !== String({ comparison: st.comparison, layers: st.shared.layers, 'emb-dim': st.shared.embDim,
    seed: st.shared.seed }[name] ?? value);
}

/** The prompt asking whether to restart both runs for a change (port: the element's panel port). */
export class RestartPrompt {
  constructor(port) {
    this.port = port;
    this.text = h('p', {});
    this.restartButton = h('button', { type: 'button', class: 'restart' }, port.t('lab.confirm.restart'));
    this.keepButton = h('button', { type: 'button', class: 'keep' }, port.t('lab.confirm.keep'));
    this.element = h('div', { class: 'restart-prompt', role: 'alertdialog', 'aria-live': 'assertive', part: 'restart-prompt',
      hidden: true }, this.text, this.restartButton, this.keepButton);
    this.restartButton.addEventListener('click', () => this.answer(true));
    this.keepButton.addEventListener('click', () => this.answer(false));
    this.pending = null;
  }

  /**
   * Asks about changing `name` to `value` (label: the setting's name, shown: the value as the widget shows it) at step
   * `step`; `restart()` runs if the learner confirms. A newer question replaces an open one.
   */
  ask({ name, value, label, shown, step, restart, control }) {
    const { t } = this.port;
    this.pending = { restart, control };
    this.text.textContent = name === 'steps' ? t('lab.confirm.fewerSteps', { step, value: shown })
      : t('lab.confirm.text', { setting: label, value: shown, step });
    this.element.hidden = false;
    this.restartButton.focus();
  }

  answer(restart) {
    const pending = this.pending;
    this.close();
    if (restart) pending?.restart();
    else pending?.control?.focus();
  }

  close() {
    this.pending = null;
    this.element.hidden = true;
  }
}
