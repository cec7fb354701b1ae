// worker.js — the Web Worker that hosts Blockscope's wasm runtime for pages, so model loading, forward passes
// and generation never block the page. The protocol lives in runtime-host.js; web/client.js is the other end.
import { createHost } from './runtime-host.js';

const handle = createHost((message, transfer) => self.postMessage(message, transfer));
self.onmessage = ({ data }) => handle(data);
self.postMessage({ ready: true }); // tells client.js the script loaded (else it falls back to in-thread)
