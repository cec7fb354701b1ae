// in-thread.js — a stand-in for the Blockscope worker that runs the runtime host on the page's own thread, behind the
// same message interface (light first, as the worker: runtime-host.js); used by pool.js for the light calls a page
// answers itself, and when a worker cannot be started.
// Messages are delivered as tasks of their own (setTimeout), so the page can paint between a request and a long
// answer; with `immediate` set (the page's light runtime: its calls take microseconds) they are delivered as
// microtasks instead, so a widget's first numbers are computed and drawn before the page's next frame rather than
// one frame (on a slow phone, ~100 ms) per round trip later.
import { createHost } from './runtime-host.js';

export function createInThreadPort({ immediate = false } = {}) {
  const port = { onmessage: null, onerror: null, immediate };
  const deliver = (fn) => (port.immediate ? queueMicrotask(fn) : setTimeout(fn, 0));
  const handle = createHost((message) => deliver(() => port.onmessage?.({ data: message })), { lightFirst: true });
  port.postMessage = (message) => deliver(() => handle(message));
  return port;
}
