// One server's view: its name and URL, and the tabs (tools, resources, resource templates,
// prompts, logs, timeline, connections). Switching tabs mounts the tab anew; moving within a
// tab (another tool, another log entry, another session) lets the tab update itself.

import { seg } from './api.js';
import { copyButton, h, replace } from './dom.js';
import { mountCatalog } from './catalog.js';
import { mountConnections } from './connections.js';
import { mountLogs } from './logs.js';
import { mountTimeline } from './timeline.js';

export const TABS = [
  { id: 'tools', label: 'Tools', mount: mountCatalog },
  { id: 'resources', label: 'Resources', mount: mountCatalog },
  { id: 'resource-templates', label: 'Resource templates', mount: mountCatalog },
  { id: 'prompts', label: 'Prompts', mount: mountCatalog },
  { id: 'logs', label: 'Logs', mount: mountLogs },
  { id: 'timeline', label: 'Timeline', mount: mountTimeline },
  { id: 'connections', label: 'Connections', mount: mountConnections },
];

export function mountServerView(root, route) {
  const name = route.server;
  const url = h('code', { testid: 'view-server-url' });
  const tabs = TABS.map((tab) =>
    h('a', { class: 'tab', testid: `tab-${tab.id}`, href: `#/servers/${seg(name)}/${tab.id}`, data: { tab: tab.id } }, tab.label),
  );
  const body = h('div', { class: 'tab-body' });
  replace(
    root,
    h('section', { class: 'page server-page' },
      h('div', { class: 'page-head' },
        h('nav', { class: 'crumbs' }, h('a', { href: '#/servers', testid: 'back-to-servers' }, 'Servers'), ' / ', h('h1', {}, name)),
        h('div', { class: 'copy-line' }, url, copyButton(() => url.textContent, 'view-server-url-copy'))),
      h('nav', { class: 'tabs', 'aria-label': 'Server sections' }, tabs),
      body),
  );
  // The URL pattern is the app's: the same for every server, known from the header.
  const pattern = document.querySelector('[data-testid="mcp-url-pattern"]').textContent;
  url.textContent = pattern.replace('/s/NAME/', `/s/${name}/`);

  let tab = null;
  let mounted = null;
  const open = (next) => {
    if (tab === next.tab && mounted) {
      mounted.update(next);
      return;
    }
    mounted?.destroy();
    tab = next.tab;
    for (const a of tabs) {
      const active = a.dataset.tab === tab;
      a.classList.toggle('active', active);
      if (active) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    replace(body);
    mounted = TABS.find((t) => t.id === tab).mount(body, next);
  };
  open(route);
  return {
    update: open,
    destroy: () => mounted?.destroy(),
  };
}
