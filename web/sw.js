// sw.js — the lesson page's service worker: once a page has loaded, it keeps working offline. Every same-origin
// GET it sees is answered from the cache when possible and refreshed in the background (stale-while-revalidate),
// so a new build reaches learners on their next visit. Model checkpoints (.safetensors) are not cached — they can
// be hundreds of megabytes — except the small model shipped with the lesson (models/brown/, a few MB), so the GPT
// section works offline too. Optional for authors who embed widgets: register it only if you want offline use.
const CACHE = 'blockscope-v1';
/** Checkpoints under this path are the lesson's own and are cached, up to MAX_MODEL_BYTES. */
const SHIPPED_MODELS = new URL('./models/brown/', self.location.href).pathname;
const MAX_MODEL_BYTES = 64 * 1024 * 1024;

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

/** A checkpoint the learner brought (or any other large weights file): fetched from the network every time. */
function isUserCheckpoint(url) {
  return url.pathname.endsWith('.safetensors') && !url.pathname.startsWith(SHIPPED_MODELS);
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || isUserCheckpoint(url)) return;
  event.respondWith(staleWhileRevalidate(event, request, url));
});

/** Whether a response may be stored: weights only below the size limit (a replaced model could be larger). */
function storable(response, url) {
  if (!response.ok) return false;
  if (!url.pathname.endsWith('.safetensors')) return true;
  const size = Number(response.headers.get('content-length'));
  return size > 0 && size <= MAX_MODEL_BYTES;
}

async function staleWhileRevalidate(event, request, url) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request, { ignoreSearch: true });
  const network = fetch(request)
    .then((response) => {
      // Store a copy while the page reads the response as it streams in (the model's progress bar keeps moving).
      if (storable(response, url)) event.waitUntil(cache.put(request, response.clone()).catch(() => {}));
      return response;
    });
  if (cached) {
    event.waitUntil(network.catch(() => {})); // refresh quietly; offline is fine
    return cached;
  }
  return network;
}
