// The header (product guide, "Connect a client on another host"): the version, the MCP URL
// pattern, and "Need a public URL?", which shows the cloudflared command for this instance's
// MCP host and port and the URL form to give a remote client.

import { copy } from './dom.js';

const PLACEHOLDER = 'NAME';
let origin = '';

/** Fills the header from `GET /api/v1/`. */
export function initHeader(meta) {
  const template = meta.mcpUrlTemplate;
  // `http://HOST:PORT/s/{server}/mcp`: the tunnel points at the origin, whatever --host says.
  origin = new URL(template.replace('{server}', PLACEHOLDER)).origin;
  text('version', `v${meta.version}`);
  text('mcp-url-pattern', template.replace('{server}', PLACEHOLDER));
  text('tunnel-command', tunnelCommand());
  setServer(null);

  popover(find('tunnel-button'), find('tunnel-panel'), '.tunnel');

  const copyButton = find('tunnel-copy');
  copyButton.addEventListener('click', async () => {
    const done = await copy(tunnelCommand());
    copyButton.textContent = done ? 'Copied' : 'Copy failed';
    setTimeout(() => (copyButton.textContent = 'Copy'), 1200);
  });
}

/**
 * A header button that toggles its panel: a click elsewhere than inside `within` (a
 * selector of their container) or `Esc` closes it.
 */
export function popover(button, panel, within) {
  const show = (open) => {
    panel.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
  };
  button.addEventListener('click', () => show(panel.hidden));
  document.addEventListener('click', (event) => {
    if (!panel.hidden && !event.target.closest(within)) show(false);
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !panel.hidden) {
      show(false);
      // Registered before the shortcuts (keys.js): one Escape closes one thing.
      event.stopImmediatePropagation();
    }
  });
}

/** The URL form shows the open server's name, or `NAME` on the servers page. */
export function setServer(name) {
  text('tunnel-url', `https://TUNNEL_HOST/s/${name ?? PLACEHOLDER}/mcp`);
}

function tunnelCommand() {
  return `cloudflared tunnel --url ${origin}`;
}

function find(testid) {
  return document.querySelector(`[data-testid="${testid}"]`);
}

function text(testid, value) {
  find(testid).textContent = value;
}
