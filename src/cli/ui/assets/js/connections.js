// The Connections tab (product guide, "Check the connection" and "Test an OAuth client"):
// the live sessions with Close; the OAuth switch, the pre-registered client's id and secret
// and its redirect URIs; the live tokens with Revoke and Revoke all. Polled every second,
// so sessions and tokens appear and go as clients connect, authorize and leave.

import { api, seg, serverPath } from './api.js';
import { confirmDialog } from './dialog.js';
import { copyButton, h, plural, reconcile, replace, setText, when } from './dom.js';
import { clearProblem, showProblem } from './editor.js';
import { poll, writeGuard } from './poll.js';

export function mountConnections(root, route) {
  const base = serverPath(route.server);
  const writes = writeGuard();
  const banner = h('p', { class: 'error-banner', role: 'alert', hidden: true });
  const fail = (problem) => {
    setText(banner, problem.detail);
    banner.hidden = false;
  };

  // Sessions
  const sessionRows = new Map();
  const sessionBody = h('tbody');
  const noSessions = h('p', { class: 'empty' }, 'No live sessions. Connect a client to ', h('code', {}, `/s/${route.server}/mcp`), '.');
  const sessionCount = h('span', { class: 'count', testid: 'session-count' });
  const sessionTable = h('table', { class: 'grid', testid: 'sessions', hidden: true },
    h('thead', {}, h('tr', {}, ['Client', 'Version', 'Session ID', 'Protocol', 'Transport', 'Since', ''].map((t) => h('th', {}, t)))),
    sessionBody);
  const sessionRow = (id) => {
    const cells = { name: h('td'), version: h('td'), protocol: h('td'), transport: h('td'), since: h('td') };
    const tr = h('tr', { testid: 'session-row', data: { session: id } },
      cells.name, cells.version,
      h('td', {}, h('div', { class: 'copy-line' }, h('code', { testid: 'session-id' }, id), copyButton(id, 'session-id-copy'))),
      cells.protocol, cells.transport, cells.since,
      h('td', { class: 'row-actions' },
        h('button', { type: 'button', testid: 'session-close', on: { click: () => closeSession(id) } }, 'Close')));
    return {
      el: tr,
      fill(session) {
        setText(cells.name, session.clientName ?? '(none)');
        setText(cells.version, session.clientVersion ?? '');
        setText(cells.protocol, session.protocolVersion);
        setText(cells.transport, session.transport + (session.streamOpen ? ', stream open' : ''));
        setText(cells.since, when(session.createdAt));
      },
    };
  };
  const closeSession = async (id) => {
    try {
      await writes.around(api.del(`${base}/sessions/${seg(id)}`));
    } catch (problem) {
      fail(problem);
    }
    refresh();
  };

  // OAuth
  const oauthSwitch = h('input', { type: 'checkbox', role: 'switch', testid: 'oauth-switch', class: 'switch' });
  const clientId = h('code', { testid: 'oauth-client-id' });
  const clientSecret = h('code', { testid: 'oauth-client-secret' });
  const redirects = h('textarea', { name: 'redirectUris', testid: 'redirect-uris', rows: 3, spellcheck: 'false', class: 'code',
    placeholder: 'http://localhost:3000/callback' });
  const redirectForm = h('form', { class: 'redirects', novalidate: true },
    h('label', { class: 'field', data: { field: 'auth' } },
      h('span', {}, 'Redirect URIs'), redirects,
      h('small', { class: 'hint' }, 'One URI per line, matched exactly. Without any, only Dynamic Client Registration works. Saving revokes every token and closes the sessions.')),
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', testid: 'save-redirect-uris' }, 'Save redirect URIs')));
  const oauthBody = h('div', { class: 'oauth-body', hidden: true },
    h('div', { class: 'stack' }, h('dl', { class: 'pairs' },
      h('dt', {}, 'Client ID'), h('dd', {}, h('div', { class: 'copy-line' }, clientId, copyButton(() => clientId.textContent, 'oauth-client-id-copy'))),
      h('dt', {}, 'Client secret'), h('dd', {}, h('div', { class: 'copy-line' }, clientSecret, copyButton(() => clientSecret.textContent, 'oauth-client-secret-copy')))),
    h('p', { class: 'hint' }, 'The pre-registered client authenticates with client_secret_post: client_id and client_secret in the body of the token request.')),
    redirectForm);
  let savedRedirects = null;

  let oauthOn = false;

  oauthSwitch.addEventListener('change', async () => {
    const on = oauthSwitch.checked;
    if (!on) {
      const yes = await confirmDialog({
        title: `Turn OAuth off for ${route.server}?`,
        message: 'The pre-registered client ID and secret are deleted, every token is revoked and the live sessions close.',
        yes: 'Turn OAuth off',
      });
      if (!yes) {
        oauthSwitch.checked = true;
        return;
      }
    }
    oauthSwitch.disabled = true;
    try {
      await writes.around(api.patch(base, { auth: on ? {} : null }));
      banner.hidden = true;
    } catch (problem) {
      oauthSwitch.checked = !on;
      fail(problem);
    } finally {
      oauthSwitch.disabled = false;
    }
    savedRedirects = null;
    refresh();
  });

  redirectForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearProblem(redirectForm);
    const uris = redirects.value.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    try {
      await writes.around(api.patch(base, { auth: { redirectUris: uris } }));
      savedRedirects = null;
      refresh();
    } catch (problem) {
      showProblem(redirectForm, problem);
    }
  });

  // Tokens
  const tokenRows = new Map();
  const tokenBody = h('tbody');
  const noTokens = h('p', { class: 'empty' }, 'No live tokens.');
  const revokeAll = h('button', { type: 'button', testid: 'tokens-revoke-all', on: { click: () => revoke(null) } }, 'Revoke all');
  const tokenTable = h('table', { class: 'grid', testid: 'tokens', hidden: true },
    h('thead', {}, h('tr', {}, ['Kind', 'Client', 'Scopes', 'Issued', 'Expires', ''].map((t) => h('th', {}, t)))),
    tokenBody);
  const tokenSection = h('section', { class: 'card', hidden: true },
    h('div', { class: 'pane-head' }, h('h2', {}, 'Tokens'), revokeAll),
    tokenTable,
    noTokens);
  const tokenRow = (id) => {
    const cells = { kind: h('td'), client: h('td'), scopes: h('td'), issued: h('td'), expires: h('td', { testid: 'token-expiry' }) };
    const tr = h('tr', { testid: 'token-row', data: { token: id } },
      cells.kind, cells.client, cells.scopes, cells.issued, cells.expires,
      h('td', { class: 'row-actions' },
        h('button', { type: 'button', testid: 'token-revoke', on: { click: () => revoke(id) } }, 'Revoke')));
    return {
      el: tr,
      fill(token) {
        setText(cells.kind, token.kind);
        setText(cells.client, token.clientId);
        setText(cells.scopes, token.scopes.length ? token.scopes.join(' ') : '(none)');
        setText(cells.issued, when(token.issuedAt));
        setText(cells.expires, token.expiresAt ? when(token.expiresAt) : 'never');
      },
    };
  };
  const revoke = async (id) => {
    try {
      await writes.around(api.del(id === null ? `${base}/oauth/tokens` : `${base}/oauth/tokens/${seg(id)}`));
    } catch (problem) {
      fail(problem);
    }
    refresh();
  };

  const refresh = async () => {
    const ticket = writes.ticket();
    let server;
    let sessions;
    try {
      [server, sessions] = await Promise.all([api.get(base), api.get(`${base}/sessions`)]);
      if (writes.stale(ticket)) return;
      banner.hidden = true;
    } catch (problem) {
      fail(problem);
      return;
    }
    reconcile(sessionRows, sessionBody, sessions, (s) => s.id, sessionRow);
    noSessions.hidden = sessions.length > 0;
    sessionTable.hidden = sessions.length === 0;
    setText(sessionCount, plural(sessions.length, 'live session', 'live sessions'));

    oauthOn = Boolean(server.auth);
    if (!oauthSwitch.disabled) oauthSwitch.checked = oauthOn;
    oauthBody.hidden = !oauthOn;
    tokenSection.hidden = !oauthOn;
    const client = server.auth?.preRegisteredClients?.[0];
    setText(clientId, client?.clientId ?? '');
    setText(clientSecret, client?.clientSecret ?? '(public client, no secret)');
    const text = (client?.redirectUris ?? []).join('\n');
    // Someone else's change shows, unless the user is typing their own.
    if (savedRedirects === null || (redirects.value === savedRedirects && document.activeElement !== redirects)) {
      redirects.value = text;
    }
    savedRedirects = text;

    if (!oauthOn) return;
    let tokens = [];
    try {
      tokens = await api.get(`${base}/oauth/tokens`);
      if (writes.stale(ticket)) return;
    } catch (problem) {
      // OAuth turned off between the two requests: the next poll sees it.
      if (problem.status !== 404) fail(problem);
    }
    reconcile(tokenRows, tokenBody, tokens, (t) => t.id, tokenRow);
    noTokens.hidden = tokens.length > 0;
    tokenTable.hidden = tokens.length === 0;
    revokeAll.disabled = tokens.length === 0;
  };

  replace(
    root,
    h('div', { class: 'connections' },
      banner,
      h('section', { class: 'card' },
        h('div', { class: 'pane-head' }, h('h2', {}, 'Sessions'), sessionCount),
        sessionTable,
        noSessions),
      h('section', { class: 'card' },
        h('div', { class: 'pane-head' },
          h('h2', {}, 'OAuth'),
          h('label', { class: 'switch-label' }, oauthSwitch, h('span', {}, 'Require OAuth 2.1'))),
        h('p', { class: 'hint' }, 'MCP Decoy acts as the resource server and the authorization server. Turning OAuth on generates a pre-registered client; turning it on or off revokes every token and closes the sessions.'),
        oauthBody),
      tokenSection),
  );
  const stop = poll(refresh, 1000);
  return { update() {}, destroy: stop };
}
