// tour-view.js — what <blockscope-tour> shows: in its place on the page, the tour's title, the author's intro (any
// children that are not steps) and a Start button; while it runs, a panel with the step counter, the step's caption
// (the author's <blockscope-step>, slotted), Back / Next / Close and a progress bar — floating at the bottom of the
// window (dock="bottom", the default) or in place (dock="none"). The look is the widgets' (kit/theme.js), dark theme
// included. A helper of the element, not an element.
import { BASE_CSS, DARK_VARS, pageTheme } from '../kit/theme.js';

const UA_DEFAULT_FONT = /^("?Times New Roman"?|Times|serif)$/i;
const SYSTEM_FONT = 'system-ui, -apple-system, "Segoe UI", sans-serif';

const CSS = `
:host { container-type: normal; } /* BASE_CSS makes hosts size containers, which would hold the docked panel */
[hidden] { display: none !important; }
.title { margin: 0 0 0.25rem; }
.intro-slot::slotted(*) { margin: 0.25rem 0 0.5rem; }
.summary { margin: 0.25rem 0 0.5rem; }
.start { font-weight: 600; }
.panel { margin-top: 0.5rem; }
.panel:focus { outline: none; }
.panel.docked { position: fixed; z-index: 2147483000; left: 0; right: 0; margin: 0 auto;
  bottom: max(0.5rem, env(safe-area-inset-bottom)); width: min(46rem, calc(100vw - 1rem));
  max-height: min(50vh, 24rem); overflow: auto; overscroll-behavior: contain;
  background: var(--bs-bg); color: var(--bs-fg); border: 1px solid var(--bs-border);
  border-radius: var(--bs-radius, 8px); padding: 0.5rem 0.8rem 0.6rem;
  box-shadow: 0 10px 30px rgb(0 0 0 / 0.28), 0 2px 6px rgb(0 0 0 / 0.18); }
.bar { display: flex; align-items: center; gap: 0.3rem 0.75rem; flex-wrap: wrap; }
.panel-title { font-weight: 600; margin: 0; }
.counter { color: var(--bs-muted); font-variant-numeric: tabular-nums; white-space: nowrap; }
.nav { display: flex; align-items: center; gap: 0.4rem; margin-left: auto; }
.nav .next { font-weight: 600; background: var(--bs-accent); color: var(--bs-bg); border-color: var(--bs-accent); min-width: 5.5rem; }
.close { padding: 0.2rem 0.55rem; background: transparent; border-color: transparent; }
.close:hover { border-color: var(--bs-border); }
.progress { height: 3px; margin: 0.45rem 0 0.4rem; background: var(--bs-panel); border-radius: 2px; overflow: hidden; }
.progress > div { height: 100%; width: 0; background: var(--bs-accent); }
@media (prefers-reduced-motion: no-preference) { .progress > div { transition: width 200ms ease-out; } }
.caption { min-height: 1.45em; }
.step-slot::slotted(*) { display: block; }
@media (max-width: 30rem) { /* a phone: the panel leaves more of the page in view */
  .panel.docked { max-height: 45vh; font-size: 0.92em; padding: 0.4rem 0.6rem 0.5rem; }
  .panel.docked .panel-title { display: none; }
}
@media (forced-colors: active) { .progress > div { background: Highlight; } .panel.docked { border: 2px solid CanvasText; } }
`;

const TEMPLATE = `
<div class="intro">
  <h3 class="title" part="title"></h3>
  <slot class="intro-slot"></slot>
  <p class="summary muted" part="summary"></p>
  <button type="button" class="start" part="start"></button>
</div>
<section class="panel" part="panel" tabindex="-1" aria-keyshortcuts="ArrowLeft ArrowRight PageUp PageDown Home End Escape" hidden>
  <div class="bar">
    <p class="panel-title"></p>
    <span class="counter" part="counter"></span>
    <span class="nav" part="nav">
      <button type="button" class="back"></button>
      <button type="button" class="next"></button>
      <button type="button" class="close"><span aria-hidden="true">✕</span></button>
    </span>
  </div>
  <div class="progress" aria-hidden="true"><div></div></div>
  <div class="caption" part="caption" aria-live="polite"><slot class="step-slot"></slot></div>
</section>
`;

/**
 * The tour's shadow DOM. `actions` are the element's: {start(), back(), next(), close()}; render(view) draws a
 * {label, step, total, docked, messages, stepElement, introNodes} snapshot.
 */
export class TourView {
  constructor(host, actions) {
    this.host = host;
    const root = host.attachShadow({ mode: 'open', slotAssignment: 'manual' });
    this.themeStyle = document.createElement('style');
    root.innerHTML = TEMPLATE;
    root.prepend(Object.assign(document.createElement('style'), { textContent: BASE_CSS + CSS }), this.themeStyle);
    const $ = (selector) => root.querySelector(selector);
    Object.assign(this, {
      root, title: $('.title'), introSlot: $('.intro-slot'), summary: $('.summary'), startButton: $('.start'),
      panel: $('.panel'), panelTitle: $('.panel-title'), counter: $('.counter'), closeButton: $('.close'),
      fill: $('.progress > div'), caption: $('.caption'), stepSlot: $('.step-slot'), backButton: $('.back'),
      nextButton: $('.next'),
    });
    this.startButton.addEventListener('click', () => actions.start());
    this.backButton.addEventListener('click', () => actions.back());
    this.nextButton.addEventListener('click', () => actions.next());
    this.closeButton.addEventListener('click', () => actions.close());
  }

  render({ label, step, total, docked, messages: m, stepElement, introNodes }) {
    const running = step > 0;
    this.title.textContent = label;
    this.panelTitle.textContent = label;
    this.panelTitle.hidden = !docked;
    this.panel.setAttribute('aria-label', label);
    this.introSlot.assign(...introNodes);
    this.stepSlot.assign(...(stepElement ? [stepElement] : []));
    this.summary.textContent = total === 0 ? m.t('tour.empty')
      : running && docked ? m.t('tour.running', { step, total }) : running ? ''
        : `${m.t('tour.steps', { count: total })} · ${m.t('tour.keys')}`;
    this.summary.hidden = this.summary.textContent === '';
    this.startButton.textContent = m.t('tour.start');
    this.startButton.hidden = running;
    this.startButton.disabled = total === 0;
    this.panel.hidden = !running;
    this.panel.classList.toggle('docked', running && docked);
    this.counter.textContent = running ? m.t('tour.counter', { step, total }) : '';
    this.fill.style.width = total ? `${(100 * step) / total}%` : '0';
    this.closeButton.setAttribute('aria-label', m.t('tour.close'));
    this.closeButton.title = `${m.t('tour.close')} (Esc)`;
    this.backButton.title = m.t('tour.backHint');
    this.backButton.textContent = `◀ ${m.t('tour.back')}`;
    // A button that is disabled while it has the focus would drop it (and with it the tour's keys): Next takes it.
    if (step <= 1 && this.root.activeElement === this.backButton) this.nextButton.focus({ preventScroll: true });
    this.backButton.disabled = step <= 1;
    const last = step >= total;
    this.nextButton.title = last ? m.t('tour.close') : m.t('tour.nextHint');
    this.nextButton.textContent = last ? m.t('tour.finish') : `${m.t('tour.next')} ▶`;
  }

  /** Moves the focus into the panel (its Next button), without scrolling the page to it. */
  focusPanel() {
    this.nextButton.focus({ preventScroll: true });
  }

  /** Whether the focus is inside the panel. */
  panelHasFocus() {
    return this.panel.contains(this.root.activeElement);
  }

  focusStart() {
    this.startButton.focus({ preventScroll: true });
  }

  /** The widgets' palette: theme="light" | "dark", else the page's background decides (kit/theme.js), and their font. */
  applyTheme() {
    const asked = this.host.getAttribute('theme');
    const theme = asked === 'light' || asked === 'dark' ? asked : pageTheme(this.host);
    const family = getComputedStyle(this.host.parentElement ?? document.body).fontFamily.trim();
    const font = UA_DEFAULT_FONT.test(family) ? `--bs-font: var(--bs-font-fallback, ${SYSTEM_FONT});` : '';
    const dark = theme === 'dark' ? DARK_VARS : '';
    const css = dark || font ? `:host { ${dark} ${font} }` : '';
    if (this.themeStyle.textContent !== css) this.themeStyle.textContent = css;
    this.resolvedTheme = theme;
  }
}
