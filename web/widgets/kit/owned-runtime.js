// owned-runtime.js — the runtime client as a widget sees it: every runtime object the widget asks for belongs to the
// widget from the moment it is requested. The element has a lifetime number that changes whenever it leaves the page
// (base.js); an object that arrives for an earlier lifetime, or while the element is off the page, is disposed on
// arrival and the request fails with WidgetReleased, which the widget's update loop ignores. So a widget removed
// while its models are still being built frees them as they come, and widget code needs no checks of its own.
// Objects a runtime object creates (a GPT's trainer) are owned by that object and freed with it.
// Also here: the widgets on the page, told when the runtime's worker was restarted (hearRestarts), so each rebuilds.

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

// The widgets on the page, told when the runtime's worker died and a new one took its place (client.js restart):
// their runtime objects are gone with it, so each rebuilds.
export const onPage = new Set();
export const RESTART_NOTE_MS = 20000; // how long statuses mention a worker restart
const heardRestarts = new WeakSet(); // clients whose restarts onPage's widgets hear
export function hearRestarts(client) {
  if (heardRestarts.has(client) || typeof client.onRestart !== 'function') return;
  heardRestarts.add(client);
  client.onRestart(({ reason }) => {
    for (const el of onPage) el.runtimeRestarted(reason);
  });
}
