// Registers the offline copy of the app (sw.js). A file of its own, not an
// inline script, so the page's Content-Security-Policy needs no exception.
// Pages opened from file:// (the single-file build) have no service worker,
// nor the page `tarmac-lens serve` serves (`?serve=1`): without its server
// it answers nothing, and each run's token would leave a copy behind.
if (
  'serviceWorker' in navigator &&
  /^https?:$/.test(location.protocol) &&
  !new URLSearchParams(location.search).has('serve')
) {
  // After load: installing caches every file, which must not compete with
  // the page's own start.
  addEventListener('load', () => {
    navigator.serviceWorker.register('./sw.js').catch((e) => console.warn('offline copy unavailable:', e));
  });
}
