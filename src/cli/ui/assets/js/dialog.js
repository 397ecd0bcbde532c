// The one confirmation dialog (index.html's <dialog id="confirm">), for the changes the
// product guide says ask first: deleting a server, turning OAuth off.

/**
 * Asks; resolves `true` for the confirm button, `false` for Cancel or Escape.
 * `yes` labels the confirm button, as in "Delete server".
 */
export function confirmDialog({ title, message, yes = 'Confirm' }) {
  const dialog = document.getElementById('confirm');
  dialog.querySelector('.confirm-title').textContent = title;
  dialog.querySelector('.confirm-message').textContent = message;
  dialog.querySelector('[data-testid="confirm-yes"]').textContent = yes;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true });
    dialog.showModal();
    // Cancel has the focus, so Enter never confirms a deletion by accident.
    dialog.querySelector('[data-testid="confirm-no"]').focus();
  });
}

/** Whether a modal dialog is open (keyboard shortcuts stay out of its way). */
export function dialogOpen() {
  return document.querySelector('dialog[open]') !== null;
}
