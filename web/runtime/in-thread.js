// in-thread.js — a stand-in for the Blockscope worker that runs the runtime host on the page's own thread,
// behind the same message interface (light first, as the worker: runtime-host.js); used by client.js only when a worker
// cannot be started.
import { createHost } from './runtime-host.js';

export function createInThreadPort() {
  const port = { onmessage: null, onerror: null };
  const handle = createHost((message) => setTimeout(() => port.onmessage?.({ data: message }), 0), { lightFirst: true });
  port.postMessage = (message) => setTimeout(() => handle(message), 0);
  return port;
}
