// blockscope-frame.js — <blockscope-frame widget="block-explorer" …>: one Blockscope widget in an iframe (embed.html)
// that is as tall as its content, for pages that keep Blockscope's code out of their own (another origin, a strict
// CSP). Standalone: no wasm, no widget bundle, nothing else imported. The frame posts its height (embed.html:
// {type: 'blockscope-frame-height', frame, height}) and this element sizes the iframe to it; with `sync-url` the
// frame posts the widget's state ({type: 'blockscope-frame-state', frame, widget, state}) and this element keeps it
// in the page's URL hash as #<id>.<attribute>=<value> — the deep-link syntax — so the page's address, reopened,
// brings the framed widget back as the learner left it. Messages count only from this element's own frame, from
// the origin of its src, naming its frame.
//   <script type="module" src="https://your.site/blockscope/blockscope-frame.js"></script>
//   <blockscope-frame id="block" widget="block-explorer" preset="encoder-block-lesson82" theme="light" sync-url>
//   </blockscope-frame>
// Attributes: widget (the tag), src (the embed.html to frame; default: the one next to this file), sync-url, title
// (the frame's accessible name, also the widget's heading), height (px before the frame has said its own; default
// 300); every other attribute is passed to the widget (through embed.html's query, checked there as deep links
// are). They are read when the element first enters the page.
export const FRAME_TAG = 'blockscope-frame';
export const HEIGHT_MESSAGE = 'blockscope-frame-height';
export const STATE_MESSAGE = 'blockscope-frame-state';
/** The attributes the element keeps to itself (or for the iframe); the others become the widget's. */
const OWN = ['widget', 'src', 'sync-url', 'height', 'id', 'class', 'style', 'hidden', 'slot', 'part', 'tabindex'];
/** A frame's height is taken up to this many pixels (a runaway page cannot make the lesson endless). */
const MAX_HEIGHT = 50000;
const DEFAULT_SRC = new URL('./embed.html', import.meta.url).href;

export class BlockscopeFrame extends HTMLElement {
  /** The iframe, once the element has been on the page. */
  frame = null;

  connectedCallback() {
    window.addEventListener('message', this.#onMessage);
    window.addEventListener('hashchange', this.#onHashChange);
    if (this.frame) return;
    if (!this.style.display) this.style.display = 'block';
    const src = new URL(this.getAttribute('src') || DEFAULT_SRC, document.baseURI);
    this.#origin = src.origin;
    src.searchParams.set('widget', this.getAttribute('widget') ?? '');
    for (const { name, value } of this.attributes) if (!OWN.includes(name)) src.searchParams.set(name, value);
    src.searchParams.set('frame', this.key);
    src.searchParams.set('origin', location.origin);
    if (this.hasAttribute('sync-url')) {
      src.searchParams.set('sync-url', '');
      this.#state = stateIn(location.hash, this.key);
      src.hash = prefixed(this.#state, 'widget');
    }
    const height = Number(this.getAttribute('height'));
    this.frame = Object.assign(document.createElement('iframe'), {
      src: src.href,
      title: this.getAttribute('title') || `Blockscope: ${this.getAttribute('widget')}`,
    });
    this.frame.style.cssText = `display: block; width: 100%; border: 0; height: ${height > 0 ? height : 300}px`;
    this.append(this.frame);
  }

  disconnectedCallback() {
    window.removeEventListener('message', this.#onMessage);
    window.removeEventListener('hashchange', this.#onHashChange);
  }

  /** What names this frame in messages and in the page's hash: the element's id, else the widget's tag. */
  get key() {
    return this.id || this.getAttribute('widget') || FRAME_TAG;
  }

  /** The frame's height in px as it last said it (null before it has). */
  get contentHeight() {
    return this.#height;
  }

  #origin = null;
  #state = ''; // the widget's state as this page's hash and the frame last agreed on ("x=2&derivative=true")
  #height = null;

  #onMessage = (e) => {
    const data = e.data;
    if (!this.frame || e.source !== this.frame.contentWindow || e.origin !== this.#origin) return;
    if (data === null || typeof data !== 'object' || data.frame !== this.key) return;
    if (data.type === HEIGHT_MESSAGE && Number.isFinite(data.height) && data.height >= 0) {
      this.#height = Math.min(MAX_HEIGHT, Math.ceil(data.height));
      this.frame.style.height = `${this.#height}px`;
      this.dispatchEvent(new CustomEvent('blockscope-frame-resize', { detail: { height: this.#height }, bubbles: true }));
    } else if (data.type === STATE_MESSAGE && typeof data.state === 'string' && this.hasAttribute('sync-url')) {
      this.#state = new URLSearchParams(data.state).toString();
      writeState(this.key, this.#state);
    }
  };

  /** The page's hash changed (a link, the back button): a different state for this frame goes to the frame. */
  #onHashChange = () => {
    if (!this.frame || !this.hasAttribute('sync-url')) return;
    const state = stateIn(location.hash, this.key);
    if (state === this.#state) return;
    this.#state = state;
    this.frame.contentWindow?.postMessage({ type: STATE_MESSAGE, frame: this.key, state }, this.#origin);
  };
}

/** The settings a hash holds for `key` (#key.x=2&other.y=1 → "x=2"). */
function stateIn(hash, key) {
  const state = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(hash.replace(/^#/, ''))) {
    if (name.startsWith(`${key}.`)) state.append(name.slice(key.length + 1), value);
  }
  return state.toString();
}

/** "x=2&y=1" as "key.x=2&key.y=1". */
function prefixed(state, key) {
  const out = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(state)) out.append(`${key}.${name}`, value);
  return out.toString();
}

/** Replaces `key`'s settings in this page's hash by `state` (history.replaceState: the back button is not filled). */
function writeState(key, state) {
  const params = new URLSearchParams(location.hash.slice(1));
  for (const name of [...params.keys()]) if (name.startsWith(`${key}.`)) params.delete(name);
  for (const [name, value] of new URLSearchParams(prefixed(state, key))) params.append(name, value);
  const hash = params.toString();
  const url = `${location.pathname}${location.search}${hash ? `#${hash}` : ''}`;
  if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(history.state, '', url);
}

if (typeof customElements !== 'undefined' && !customElements.get(FRAME_TAG)) customElements.define(FRAME_TAG, BlockscopeFrame);
