// wasm-module.js — the error boundary between web/runtime/blockscope.js and the Emscripten module.
// No binding throws into JavaScript: a JS exception unwinding wasm frames would skip the stack-pointer
// restore and embind's argument clean-up, losing a little wasm stack and heap on every failed call until the
// module dies. Instead a failing binding returns an empty value and records its message; checkedModule()
// wraps every registered function, constructor and method so that the message is fetched (takeError()) and thrown as a
// BlockscopeError here, outside any wasm frame.
//
// Strings cross into wasm as UTF-8. A lone UTF-16 surrogate has no UTF-8 form (Emscripten's encoder would
// swallow the character after it), so every string argument is made well-formed first: lone surrogates become
// U+FFFD, as TextEncoder does.

/** An error reported by the Blockscope core (bad input, a model that does not fit, ...). */
export class BlockscopeError extends Error {
  constructor(message) {
    super(message);
    this.name = 'BlockscopeError';
  }
}

/** `text` with every lone surrogate replaced by U+FFFD. */
export function wellFormed(text) {
  if (typeof text.isWellFormed === 'function') return text.isWellFormed() ? text : text.toWellFormed();
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

// embind's own handle methods, which never enter the core.
const HANDLE_METHODS = new Set(['constructor', 'delete', 'clone', 'isDeleted', 'deleteLater', 'isAliasOf']);

/** The module's bindings, each throwing a BlockscopeError when the core reports a failure. */
export function checkedModule(m) {
  if (typeof m.takeError !== 'function' || typeof m.bindingNames !== 'function') {
    throw new Error('this Blockscope wasm build has no takeError() or bindingNames(): rebuild it');
  }
  // The bindings as registered (wasm/marshal.hpp bind_function / bind_class): no list to keep here.
  const { functions, classes } = m.bindingNames();
  const check = () => {
    const message = m.takeError();
    if (message !== null) throw new BlockscopeError(message);
  };
  const clean = (args) => args.map((a) => (typeof a === 'string' ? wellFormed(a) : a));
  const wrap = (fn) => function checked(...args) {
    const result = fn.apply(this, clean(args));
    check();
    return result;
  };
  const out = {};
  for (const name of functions) {
    if (typeof m[name] !== 'function') throw new Error(`the Blockscope wasm build lacks ${name}(): rebuild it`);
    out[name] = wrap(m[name]);
  }
  for (const name of classes) {
    const Class = m[name];
    if (typeof Class !== 'function') throw new Error(`the Blockscope wasm build lacks class ${name}: rebuild it`);
    const proto = Class.prototype;
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (!HANDLE_METHODS.has(key) && typeof proto[key] === 'function') proto[key] = wrap(proto[key]);
    }
    // A failed constructor returns an empty object (the core freed what it had allocated): throw instead.
    out[name] = function construct(...args) {
      const handle = new Class(...clean(args));
      check();
      return handle;
    };
  }
  return out;
}
