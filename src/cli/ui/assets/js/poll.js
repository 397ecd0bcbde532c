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

/**
 * Tells a poll's answer that started before a write ended from one that started after: a
 * write calls `around(promise)`, a poll takes `ticket()` before its request and drops the
 * answer if `stale(ticket)`. Without it, a poll sent just before a save could answer after
 * it and show the old state for a second.
 */
export function writeGuard() {
  let writes = 0;
  return {
    ticket: () => writes,
    stale: (ticket) => ticket !== writes,
    async around(promise) {
      writes++;
      try {
        return await promise;
      } finally {
        writes++;
      }
    },
  };
}
