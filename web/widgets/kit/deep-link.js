// deep-link.js — the URL hash as widget state: attributes deep-linked through it (checked against each attribute's
// metadata, a URL attribute only with `allow-remote-models`) and, with `sync-url`, written back into it. The hash
// syntax itself is attrs.js hashAttributes(); <blockscope-tour> steps use the same syntax. Each write is announced on
// the window (URL_SYNC_EVENT), so a page can pass the state on: embed.html in a <blockscope-frame> sends it to the
// parent page, which keeps it in its own URL.
import { hashAttributes } from './attrs.js';

/** The event dispatched on `window` after sync-url wrote a widget's state into the hash; detail: {target, hash}. */
export const URL_SYNC_EVENT = 'blockscope-url-synced';

/**
 * Applies attributes deep-linked through the URL hash, within their controls' limits (sanitizeAttr); a URL
 * attribute (a model to download) only with the author's opt-in `allow-remote-models`.
 */
export function applyHash(el) {
  const allowRemote = el.hasAttribute('allow-remote-models');
  for (const [name, raw] of Object.entries(hashAttributes(el))) {
    const value = el.constructor.checkedValue(name, raw, { allowRemote });
    if (value !== null && value !== el.getAttribute(name)) el.setAttribute(name, value);
  }
}

/** Writes `el`'s attributes that differ from their defaults into the URL hash (sync-url). */
export function writeHash(el) {
  const prefix = el.id || el.localName;
  const params = new URLSearchParams(location.hash.slice(1));
  for (const key of [...params.keys()]) if (key.startsWith(`${prefix}.`)) params.delete(key);
  for (const [name, spec] of Object.entries(el.constructor.attrSpecs())) {
    const value = el.getAttribute(name);
    if (value === null || value === String(spec.default)) continue;
    if (spec.url && !el.hasAttribute('allow-remote-models') && !spec.names?.includes(value)) continue;
    params.set(`${prefix}.${name}`, value);
  }
  const hash = params.toString();
  const url = `${location.pathname}${location.search}${hash ? `#${hash}` : ''}`;
  if (url === `${location.pathname}${location.search}${location.hash}`) return;
  history.replaceState(history.state, '', url);
  window.dispatchEvent(new CustomEvent(URL_SYNC_EVENT, { detail: { target: prefix, hash } }));
}
