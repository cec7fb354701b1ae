// sw.js — the lesson page's service worker: once a page has loaded, it keeps working offline, and a page never runs
// files of two builds. Optional for authors who embed widgets: register it only if you want offline use.
//
// One build, one cache. dist/build-manifest.js (scripts/build-manifest.mjs) lists every file of the build with its
// SHA-256; a new build changes it, and the browser installs a new service worker for it. Installing fetches the
// files the lesson page needs (the manifest's `precache`) into a cache named by the build, checking each against
// its hash; one failure (a broken refresh, a server half-way through a deploy) discards that cache and the install,
// and the worker of the build before keeps serving its own, complete cache. Other files of the build are cached the
// first time a page asks for them, again only if their hash is the build's. A page is served by one worker for its
// whole life, from that worker's cache, so its files are all of one build: a file that changed in a newer build is
// refused rather than mixed in. The new worker takes over when the pages of the old build are closed, or at once on
// a reload of the only one; it then deletes the caches of older builds. Files outside the manifest (checkpoints a
// learner brings, other origins) always come from the network.
importScripts('./dist/build-manifest.js');

const BUILD = self.BLOCKSCOPE_BUILD;
const PREFIX = 'blockscope-';
const CACHE = `${PREFIX}${BUILD.id}`;
const SCOPE = new URL('./', self.location.href);

/** The manifest's name of a same-origin URL under the scope ('index.html' for the scope itself), or null. */
function manifestName(url) {
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return null;
  const name = decodeURIComponent(url.pathname.slice(SCOPE.pathname.length)) || 'index.html';
  return Object.hasOwn(BUILD.files, name) ? name : null;
}

async function sha256(response) {
  const digest = await crypto.subtle.digest('SHA-256', await response.clone().arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The network's copy of `name`, cached if it is this build's; throws if it is not (or could not be fetched). */
async function fetchOwn(cache, name) {
  const response = await fetch(new URL(name, SCOPE), { cache: 'no-store' });
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  if ((await sha256(response)) !== BUILD.files[name]) throw new Error(`${name} is not build ${BUILD.id}'s`);
  await cache.put(new URL(name, SCOPE), response.clone());
  return response;
}

self.addEventListener('install', (event) => event.waitUntil((async () => {
  const cache = await caches.open(CACHE);
  try {
    // Of the two full SIMD modules, only the one pages on this engine load (locations.js resolveFlavour 'auto').
    const { relaxedProbe, relaxed, simd } = BUILD.fullSimd;
    let hasRelaxed = false;
    try {
      hasRelaxed = WebAssembly.validate(new Uint8Array(relaxedProbe));
    } catch { /* no WebAssembly here: the pages' simd */ }
    const unused = hasRelaxed ? simd : relaxed;
    await Promise.all(BUILD.precache.filter((name) => name !== unused).map((name) => fetchOwn(cache, name)));
  } catch (err) {
    await caches.delete(CACHE); // no partial build is ever served
    throw err;
  }
  // The first install has no pages to keep consistent: it activates at once (pages load through it from the next one).
  if (!self.registration.active) await self.skipWaiting();
})()));

self.addEventListener('activate', (event) => event.waitUntil((async () => {
  for (const name of await caches.keys()) {
    if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
  }
})()));

self.addEventListener('message', (event) => {
  if (event.data === 'skip-waiting') self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const name = manifestName(new URL(request.url));
  if (name === null) return;
  event.respondWith(request.mode === 'navigate' ? navigate(event, name) : serve(name));
});

/** A file of this build: from its cache, else from the network if the network's copy is this build's. */
async function serve(name) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(new URL(name, SCOPE));
  if (cached) return cached;
  try {
    return await fetchOwn(cache, name);
  } catch (err) {
    const changed = /is not build/.test(err.message);
    return new Response(changed ? `${name} changed in a newer build of this site: reload the page` : `${name}: offline`,
      { status: changed ? 409 : 503, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
  }
}

/**
 * A page load. If a newer build's worker is waiting and this is the only page open (a reload of it), the newer build
 * takes over first and the load is redirected to it; otherwise the page is this build's.
 */
async function navigate(event, name) {
  const waiting = self.registration.waiting;
  if (waiting) {
    const pages = await self.clients.matchAll({ type: 'window' });
    if (pages.length <= 1) {
      const activated = new Promise((resolve) => {
        waiting.addEventListener('statechange', () => waiting.state === 'activated' && resolve(true));
        setTimeout(() => resolve(false), 3000);
      });
      waiting.postMessage('skip-waiting');
      if (await activated) return Response.redirect(event.request.url, 303);
    }
  }
  return serve(name);
}
