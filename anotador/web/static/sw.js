// Anotador's service worker: the page's shell (its HTML, scripts, styles and
// icons) stays on the phone, so the page opens with no network. The API is
// never cached here: the sheet always comes from the server when there is
// one, and turns tapped offline wait in the page's outbox, not in this cache.

const VERSION = __VERSION__;
const ROOT = __ROOT__;
const ASSETS = __ASSETS__;
const CACHE = `anotador-shell-${VERSION}`;
const SHELL = `${ROOT}/`;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll([SHELL, ...ASSETS])).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith("anotador-shell-") && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const path = url.pathname.slice(ROOT.length);
  if (path.startsWith("/api/") || path === "/openapi.yaml" || path === "/healthz" || path === "/readyz") return;
  if (request.mode === "navigate") {
    // The page itself: fresh from the server, or the kept shell when offline
    // (the same shell serves "/", every "/g/<id>" and every "/m/<id>").
    event.respondWith(fetch(request).catch(() => caches.match(SHELL)));
    return;
  }
  if (path.startsWith("/static/")) {
    // Files: from the cache, refreshed in the background.
    event.respondWith(caches.open(CACHE).then(async (cache) => {
      const kept = await cache.match(request);
      const fresh = fetch(request).then((res) => {
        if (res.ok) cache.put(request, res.clone());
        return res;
      }).catch(() => kept);
      return kept || fresh;
    }));
  }
});
