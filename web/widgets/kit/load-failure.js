// load-failure.js — the on-screen notice for an element whose code could not be loaded (its chunk refused by a server
// without Access-Control-Allow-Origin, a file missing, the network down). The element has no code to show anything,
// so the notice goes into its light DOM, where an undefined element shows it; if the code loads later (a retry), the
// element's shadow root hides it and clearLoadFailure() removes it. Runtime failures (the wasm, the glue) reach each
// widget as the error of its computations: besides its status line, the widget shows them at its top
// (showRuntimeFailure, from base.js status()), since the widget can show nothing else.
import { LOAD_FAILURE, loadFailure, urlInImportError } from '../../runtime/load-errors.js';

const MARK = 'data-blockscope-load-error';
const STYLE = 'display: block; margin: 0.5rem 0; padding: 0.5rem 0.75rem; border: 1px solid #b3261e; border-radius: 4px; ' +
  'color: #8c1d18; background: #fdf0ef; font: 0.95rem/1.4 system-ui, sans-serif; overflow-wrap: anywhere;';

/**
 * The Error for element `tag` whose module import failed with `err`: naming the file the browser names (else
 * `fallbackUrl`, the element's module) and, for a file from another origin, the header its server must send.
 */
export function elementLoadFailure(tag, err, fallbackUrl = null) {
  const url = urlInImportError(err) ?? fallbackUrl;
  if (!url) return new Error(`the code of <${tag}> could not be loaded: ${err?.message ?? err}`, { cause: err });
  const failure = loadFailure(url, err);
  failure.message = `<${tag}>: ${failure.message}`;
  return failure;
}

/** Shows `error` in every <tag> of `doc` that is not defined (once per element; a newer message replaces it). */
export function showLoadFailure(doc, tag, error) {
  if (typeof document === 'undefined' || customElements.get(tag)) return;
  for (const el of doc.querySelectorAll(tag)) {
    let note = el.querySelector(`:scope > [${MARK}]`);
    if (!note) {
      note = Object.assign(doc.createElement('p'), { role: 'alert' });
      note.setAttribute(MARK, '');
      note.style.cssText = STYLE;
      el.prepend(note);
    }
    note.textContent = error.message;
  }
}

/** Removes the notices from <tag> elements once its code has loaded. */
export function clearLoadFailure(doc, tag) {
  if (typeof document === 'undefined') return;
  for (const note of doc.querySelectorAll(`${tag} > [${MARK}]`)) note.remove();
}

/**
 * With an error `message` that says one of Blockscope's files could not be loaded (load-errors.js), shows that part
 * at the top of the widget's shadow root `root`; any other message (or none) removes it.
 */
export function showRuntimeFailure(root, message) {
  const at = message ? message.indexOf(LOAD_FAILURE) : -1;
  // (`:scope` in a shadow root's querySelector matches nothing: its children are looked at directly.)
  let note = [...root.children].find((c) => c.hasAttribute(MARK));
  if (at < 0) {
    note?.remove();
    return;
  }
  if (!note) {
    note = Object.assign(document.createElement('p'), { role: 'alert' });
    note.setAttribute(MARK, '');
    note.setAttribute('part', 'load-error');
    note.style.cssText = STYLE;
    const first = [...root.children].find((c) => c.localName !== 'style');
    if (first) first.before(note);
    else root.append(note);
  }
  note.textContent = message.slice(at);
}
