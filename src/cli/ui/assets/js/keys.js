// Keyboard shortcuts: `/` focuses the search box, the arrow keys move through log entries,
// Escape closes the entry's details. A view that has these registers its handlers while it is
// mounted; typing in a field or an open dialog always wins over a shortcut.

import { dialogOpen } from './dialog.js';
import { typing } from './dom.js';

let handlers = null;

/** Installs the one listener. */
export function initKeys() {
  document.addEventListener('keydown', (event) => {
    if (!handlers || dialogOpen() || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape') {
      // Even from a field: the details close (the header's panel, if open, took it first).
      if (handlers.escape?.()) event.preventDefault();
      return;
    }
    if (typing(event)) return;
    if (event.key === '/' && handlers.slash) {
      event.preventDefault();
      handlers.slash();
    } else if (event.key === 'ArrowDown' && handlers.move) {
      event.preventDefault();
      handlers.move(1);
    } else if (event.key === 'ArrowUp' && handlers.move) {
      event.preventDefault();
      handlers.move(-1);
    }
  });
}

/**
 * Makes `next` the active shortcuts (`slash()`, `move(step)`, `escape()` returning whether it
 * did something); returns a function that removes them again.
 */
export function useKeys(next) {
  handlers = next;
  return () => {
    if (handlers === next) handlers = null;
  };
}
