// worker.js — the Web Worker that hosts Blockscope's wasm runtime for pages, so model loading, forward passes
// and generation never block the page. The protocol lives in runtime-host.js; web/client.js is the other end.
// When the page names the flavour in the worker URL's hash (#flavour=simd, as client.js does), the wasm download,
// compilation and instantiation start right away; the page's 'init' then finds the runtime loading or loaded.
import { loadBlockscope } from './blockscope.js';
import { mark } from './marks.js';
import { createHost } from './runtime-host.js';

mark('worker-started');
const flavour = new URLSearchParams(self.location.hash.slice(1)).get('flavour');
if (flavour === 'simd' || flavour === 'baseline') loadBlockscope({ flavour }).catch(() => {}); // reported by 'init'
const handle = createHost((message, transfer) => self.postMessage(message, transfer));
self.onmessage = ({ data }) => handle(data);
self.postMessage({ ready: true }); // tells client.js the script loaded (else it falls back to in-thread)
