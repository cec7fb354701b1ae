// owned-runtime.js — the runtime client as a widget sees it: every runtime object the widget asks for belongs to the
// widget from the moment it is requested. The element has a lifetime number that changes whenever it leaves the page
// (base.js); an object that arrives for an earlier lifetime, or while the element is off the page, is disposed on
// arrival and the request fails with WidgetReleased, which the widget's update loop ignores. So a widget removed
// while its models are still being built frees them as they come, and widget code needs no checks of its own.
// Objects a runtime object creates (a GPT's trainer) are owned by that object and freed with it.

/** The request of a widget that has left the page since it asked (not an error to show). */
export class WidgetReleased extends Error {
  constructor(tag) {
    super(`<${tag}> left the page before the runtime answered`);
    this.name = 'WidgetReleased';
  }
}

const isRuntimeObject = (v) => v != null && typeof v === 'object' && 'handle' in v && typeof v.dispose === 'function';

/**
 * The client seen through `owner` ({tag, lifetime(), onPage()}): the same methods and properties, with every
 * runtime object that a call resolves to adopted by the owner (or disposed if the owner's lifetime has moved on).
 */
export function ownedClient(client, owner) {
  const adopt = (value, lifetime) => {
    if (!isRuntimeObject(value) || (owner.lifetime() === lifetime && owner.onPage())) return value;
    value.dispose().catch(() => {});
    throw new WidgetReleased(owner.tag);
  };
  return new Proxy(client, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function' || prop === 'constructor') return value;
      return (...args) => {
        const lifetime = owner.lifetime();
        const result = value.apply(target, args);
        return result instanceof Promise ? result.then((v) => adopt(v, lifetime)) : result;
      };
    },
  });
}
