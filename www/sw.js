// The offline copy of the app (a service worker, registered by
// register-sw.js). The first visit caches every file of the build; when the
// network is off, the app is served from that cache.
//
// scripts/sw-manifest.sh (a Trunk post_build hook) rewrites the BUILD line
// below with the build's files and a hash of their contents, so a new build
// changes this file's bytes: the browser then installs the new worker on the
// next visit, which caches the new files and drops the old cache.
const BUILD = { version: 'unbuilt', files: [] };

const PREFIX = 'tarmac-lens-';
// Files cached when first fetched rather than at install: the Query pane's
// engine, which most visits never open.
const LAZY = ['sql-worker.js', 'sql/'];
const CACHE = PREFIX + BUILD.version;
const INDEX = new URL('index.html', self.registration.scope).href;

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // 'reload': the HTTP cache may hold files of the previous build.
      await cache.addAll(BUILD.files.map((f) => new Request(new URL(f, self.location.href), { cache: 'reload' })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  // Traces opened from a URL are read with range requests: never from here.
  if (request.method !== 'GET' || request.headers.has('range')) return;
  if (!request.url.startsWith(self.registration.scope)) return;
  // The network first, the cache when there is none: served from the cache
  // while online, the worker's files (whose names carry no hash) could be
  // an older build's than the page's, which speaks to them.
  const path = request.url.slice(self.registration.scope.length);
  const lazy = LAZY.some((p) => path.startsWith(p));
  event.respondWith(
    fetch(request).then((response) => {
      if (lazy && response.ok) {
        const copy = response.clone();
        event.waitUntil(caches.open(CACHE).then((cache) => cache.put(request, copy)));
      }
      return response;
    }).catch(async () => {
      const cached = await caches.match(request, { cacheName: CACHE, ignoreSearch: true });
      if (cached) return cached;
      if (request.mode === 'navigate') return (await caches.match(INDEX, { cacheName: CACHE })) ?? Response.error();
      return Response.error();
    }),
  );
});
