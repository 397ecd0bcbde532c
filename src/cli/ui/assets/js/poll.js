// Live updates by polling: the sessions count, the catalog and the OAuth tokens change
// through clients and through other API callers, and the REST API has no event stream for
// them (the log has one, see logs.js). One request a second per open view is cheap for a
// local app, and a poll never overlaps the previous one.

/** Calls `fn` now and then every `ms` until the returned stop function is called. */
export function poll(fn, ms = 1000) {
  let stopped = false;
  let timer = null;
  const tick = async () => {
    if (stopped) return;
    // A hidden tab does not need fresh numbers; it catches up when shown again.
    if (document.visibilityState !== 'hidden') {
      try {
        await fn();
      } catch (error) {
        console.warn('poll failed', error);
      }
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  const wake = () => {
    if (document.visibilityState === 'visible' && !stopped) {
      clearTimeout(timer);
      tick();
    }
  };
  document.addEventListener('visibilitychange', wake);
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', wake);
  };
}
