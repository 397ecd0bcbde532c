// The servers page, what the UI's root URL opens (product guide, "Check the connection"):
// every server with its URL and a Sessions column (`N live`) that follows clients as they
// connect and leave; create, rename and delete, and the authentication choice.

import { api, serverPath } from './api.js';
import { confirmDialog } from './dialog.js';
import { copyButton, h, plural, reconcile, replace, setText } from './dom.js';
import { codeArea, parseJson, pretty, showProblem, clearProblem } from './editor.js';
import { poll, writeGuard } from './poll.js';

export function mountServers(root) {
  const rows = new Map();
  const body = h('tbody');
  const empty = h('p', { class: 'empty', hidden: true }, 'No servers yet. Click New server to add one.');
  const formSlot = h('div');
  const banner = h('p', { class: 'error-banner', role: 'alert', hidden: true });
  let latest = [];
  const writes = writeGuard();

  const refresh = async () => {
    const ticket = writes.ticket();
    try {
      const fresh = await api.get('/servers');
      if (writes.stale(ticket)) return;
      latest = fresh;
      banner.hidden = true;
    } catch (problem) {
      setText(banner, problem.detail);
      banner.hidden = false;
      return;
    }
    reconcile(rows, body, latest, (s) => s.name, makeRow);
    empty.hidden = latest.length > 0;
  };

  const makeRow = (name) => {
    const open = h('a', { testid: 'server-open', href: `#/servers/${encodeURIComponent(name)}/tools` }, name);
    const url = h('code', { testid: 'server-url' });
    const sessions = h('span', { testid: 'server-sessions', class: 'sessions' });
    const tools = h('span');
    const auth = h('span', { class: 'badge' });
    let current = null;
    const tr = h(
      'tr',
      { data: { server: name } },
      h('td', { class: 'name' }, open),
      h('td', { class: 'url' }, h('div', { class: 'copy-line' }, url, copyButton(() => current.url, 'server-url-copy'))),
      h('td', {}, sessions),
      h('td', {}, tools),
      h('td', {}, auth),
      h(
        'td',
        { class: 'row-actions' },
        h('button', { type: 'button', testid: 'server-rename', on: { click: () => openForm(current) } }, 'Edit'),
        h('button', { type: 'button', class: 'danger-text', testid: 'server-delete', on: { click: () => remove(current) } }, 'Delete'),
      ),
    );
    const fill = (server) => {
      current = server;
      setText(url, server.url);
      setText(sessions, `${server.sessions} live`);
      sessions.classList.toggle('live', server.sessions > 0);
      setText(tools, `${server.publishedTools} of ${plural(server.tools, 'tool', 'tools')} published`);
      setText(auth, server.oauth ? 'OAuth 2.1' : 'None');
      auth.classList.toggle('on', server.oauth);
    };
    return { el: tr, fill };
  };

  const remove = async (server) => {
    const yes = await confirmDialog({
      title: `Delete server ${server.name}?`,
      message: `Its tools, resources and prompts are deleted from servers.json, its ${plural(server.sessions, 'live session closes', 'live sessions close')}, and ${server.url} answers 404.`,
      yes: 'Delete server',
    });
    if (!yes) return;
    try {
      await writes.around(api.del(serverPath(server.name)));
    } catch (problem) {
      setText(banner, problem.detail);
      banner.hidden = false;
    }
    refresh();
  };

  // One form for both: a new server, or the name and authentication of one (`server` given).
  const openForm = async (server) => {
    let detail = null;
    if (server) {
      try {
        detail = await api.get(serverPath(server.name));
      } catch (problem) {
        setText(banner, problem.detail);
        banner.hidden = false;
        return;
      }
    }
    const wasOauth = Boolean(detail?.auth);
    const name = h('input', { name: 'name', autocomplete: 'off', spellcheck: 'false', value: detail?.name ?? '' });
    const auth = h(
      'select',
      { name: 'auth' },
      h('option', { value: 'none', selected: !wasOauth }, 'None'),
      h('option', { value: 'oauth', selected: wasOauth }, 'OAuth 2.1'),
    );
    // A relay forwards to a real server; empty makes a mock.
    const upstream = h('input', {
      name: 'upstream', type: 'url', autocomplete: 'off', spellcheck: 'false',
      placeholder: 'https://mcp.example.com/mcp', testid: 'server-upstream', value: detail?.upstream ?? '',
    });
    // Fault rules are the server's (they can name a tool); edited as JSON, checked by the API.
    const faults = detail ? codeArea('faults', 5) : null;
    if (faults) faults.value = pretty(detail.faults ?? []);
    const form = h(
      'form',
      { class: 'card server-form', testid: 'server-form', novalidate: true },
      h('h2', {}, detail ? `Edit server ${detail.name}` : 'New server'),
      h('label', { class: 'field', data: { field: 'name' } }, h('span', {}, 'Name'), name,
        h('small', { class: 'hint' }, detail
          ? 'Renaming moves the server to /s/NEW_NAME/mcp and closes its sessions.'
          : 'Clients connect to /s/NAME/mcp.')),
      h('label', { class: 'field', data: { field: 'auth' } }, h('span', {}, 'Authentication'), auth,
        h('small', { class: 'hint' }, 'OAuth 2.1 makes clients authorize first. Turning it on or off revokes every token and closes the sessions.')),
      h('label', { class: 'field', data: { field: 'upstream' } }, h('span', {}, 'Upstream'), upstream,
        h('small', { class: 'hint' }, 'Relay to a real MCP server at this URL: every request is forwarded and both sides are logged. Empty for a mock.')),
      faults
        ? h('label', { class: 'field', data: { field: 'faults' } }, h('span', {}, 'Fault rules'), faults,
          h('small', { class: 'hint' }, 'A JSON array: {"method"?, "tool"?, "when"?, "skip"?, "times"?, "fault": {...}}. Errors name the rule, such as faults[0].fault.status.'))
        : null,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', class: 'primary', testid: 'server-save' }, detail ? 'Save' : 'Create server'),
        h('button', { type: 'button', testid: 'server-cancel', on: { click: () => replace(formSlot) } }, 'Cancel'),
      ),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      clearProblem(form);
      const wantOauth = auth.value === 'oauth';
      try {
        if (!detail) {
          const body = { name: name.value };
          if (wantOauth) body.auth = {};
          if (upstream.value.trim() !== '') body.upstream = upstream.value.trim();
          await writes.around(api.post('/servers', body));
        } else {
          const patch = {};
          if (name.value !== detail.name) patch.name = name.value;
          const rules = faults.value.trim() === '' ? [] : parseJson('faults', 'Fault rules', faults.value);
          if (JSON.stringify(rules) !== JSON.stringify(detail.faults ?? [])) patch.faults = rules;
          const wantUpstream = upstream.value.trim() === '' ? null : upstream.value.trim();
          if (wantUpstream !== (detail.upstream ?? null)) patch.upstream = wantUpstream;
          if (wantOauth !== wasOauth) {
            if (!wantOauth) {
              const yes = await confirmDialog({
                title: `Turn OAuth off for ${detail.name}?`,
                message: 'The pre-registered client ID and secret are deleted, every token is revoked and the sessions close.',
                yes: 'Turn OAuth off',
              });
              if (!yes) return;
            }
            patch.auth = wantOauth ? {} : null;
          }
          if (Object.keys(patch).length > 0) await writes.around(api.patch(serverPath(detail.name), patch));
        }
        replace(formSlot);
        refresh();
      } catch (problem) {
        showProblem(form, problem);
      }
    });
    replace(formSlot, form);
    name.focus();
  };

  replace(
    root,
    h(
      'section',
      { class: 'page servers-page' },
      h('div', { class: 'page-head' },
        h('h1', {}, 'Servers'),
        h('button', { type: 'button', class: 'primary', testid: 'new-server', on: { click: () => openForm(null) } }, 'New server')),
      banner,
      formSlot,
      h(
        'table',
        { class: 'grid', testid: 'servers' },
        h('thead', {}, h('tr', {}, ['Name', 'MCP URL', 'Sessions', 'Tools', 'Authentication', ''].map((t) => h('th', {}, t)))),
        body,
      ),
      empty,
    ),
  );
  const stop = poll(refresh, 1000);
  return { update() {}, destroy: stop };
}
