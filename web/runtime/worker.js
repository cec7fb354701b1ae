// worker.js — the Web Worker that hosts Blockscope's wasm runtime for pages, so model loading, forward passes
// and generation never block the page. The protocol lives in runtime-host.js; web/runtime/client.js is the other end.
// The host starts on the flavour's light module and loads the full one when a call needs it (runtime-host.js). When the
// page names the flavour in the worker URL's hash (#flavour=simd, as client.js does), loading the light module starts
// right away; the page's 'init' then finds it loading or loaded. With &module=page the page compiles the (light) wasm
// itself while this thread starts and posts {wasmModule: {url, module}} (or {wasmModule: null}: load it here); a
// module is used for the file at its URL only. &files= carries every file's URL (locations.js fileUrls).
import { loadBlockscope } from './blockscope.js';
import { FLAVOURS, useFiles } from './locations.js';
import { mark } from './marks.js';
import { createHost } from './runtime-host.js';

mark('worker-started');
const params = new URLSearchParams(self.location.hash.slice(1));
// The wasm files' URLs as the page knows them (pool.js): in an app's bundle they are not next to this script.
try {
  if (params.has('files')) useFiles(JSON.parse(params.get('files')));
} catch {
  // a page of another version: the files next to this script
}
const flavour = params.get('flavour');
let receiveModule = null;
const compiled = params.get('module') === 'page' ? new Promise((resolve) => { receiveModule = resolve; }) : null;
// A pool's first worker starts light; the workers it adds for heavy objects start on the full module (&first=full).
const module = params.get('first') === 'full' ? 'full' : 'light';
if (FLAVOURS.includes(flavour)) loadBlockscope({ flavour, compiled, module }).catch(() => {}); // reported by 'init'
const handle = createHost((message, transfer) => self.postMessage(message, transfer), { lightFirst: module === 'light' });
self.onmessage = ({ data }) => {
  if (data && 'wasmModule' in data && receiveModule) {
    receiveModule(data.wasmModule);
    receiveModule = null;
  } else handle(data);
};
self.postMessage({ ready: true }); // tells client.js the script loaded (else it falls back to in-thread)
// A sign of life for the page's watchdog (transport.js): a worker that stops sending these is restarted. The host
// yields between the pieces of long jobs, so these keep coming while it works.
setInterval(() => self.postMessage({ alive: true }), 1000);
