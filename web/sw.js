// sw.js — the lesson page's service worker: once a page has loaded, it keeps working offline. Every same-origin
// GET it sees is answered from the cache when possible and refreshed in the background (stale-while-revalidate),
// so a new build reaches learners on their next visit. Model checkpoints (.safetensors) are never cached: they
// can be hundreds of megabytes. Optional for authors who embed widgets: register it only if you want offline use.
const CACHE = 'blockscope-v1';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || url.pathname.endsWith('.safetensors')) return;
  event.respondWith(staleWhileRevalidate(event, request));
});

async function staleWhileRevalidate(event, request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request, { ignoreSearch: true });
  const network = fetch(request)
    .then((response) => {
      if (response.ok) return cache.put(request, response.clone()).then(() => response);
      return response;
    });
  if (cached) {
    event.waitUntil(network.catch(() => {})); // refresh quietly; offline is fine
    return cached;
  }
  return network;
}
