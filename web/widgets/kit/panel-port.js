// panel-port.js — the narrow interface a widget's panels (helper classes that draw part of it) get instead of the
// element (base.js BlockscopeElement.panelPort): what they depend on is written down here, once. Not a custom element.

/**
 * What a panel may use of element `host`: read and set attributes, their specs and bound controls, focus and pending
 * edits, messages, events, the runtime — plus `extra`, the element's own offers to that panel (functions).
 */
export function panelPort(host, extra = {}) {
  const port = {
    tag: host.tag,
    boundControls: host.boundControls,
    attr: (name) => host.attr(name),
    numAttr: (name) => host.numAttr(name),
    boolAttr: (name) => host.boolAttr(name),
    set: (name, value) => host.set(name, value),
    specs: () => host.specs(),
    isFocused: (field) => host.isFocused(field),
    isEditing: (field) => host.isEditing(field),
    debounce: (key, fn, options) => host.debounce(key, fn, options),
    report: (message, options) => host.report(message, options),
    t: (key, params) => host.t(key, params),
    num: (value, digits) => host.num(value, digits),
    messages: () => host.messages,
    locked: (name) => host.locked(name),
    emit: (name, detail) => host.emit(name, detail),
    runtime: () => host.runtime(),
  };
  for (const [name, fn] of Object.entries(extra)) {
    if (name in port) throw new Error(`panelPort: ${name} is already part of the port`);
    if (typeof fn !== 'function') throw new Error(`panelPort: ${name} must be a function`);
    port[name] = fn;
  }
  return Object.freeze(port);
}
