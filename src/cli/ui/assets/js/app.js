// The page's entry: reads the instance from `GET /api/v1/`, fills the header, and routes
// with the URL hash, so every view has a link and the binary serves one page:
//
//   #/servers                         the servers page (also the empty hash)
//   #/servers/NAME                    the server's tools tab
//   #/servers/NAME/TAB                tools, resources, resource-templates, prompts, logs, timeline, connections
//   #/servers/NAME/TAB/ITEM           one tool (resource URI, ...) open, one log entry by id, or
//                                     the timeline's session (`-`: the traffic outside any session)
//
// A view is `{ update(route), destroy() }`; moving within one server's view updates it, so
// an open log stream or a half-typed form survives switching the selected entry.

import { api } from './api.js';
import { h, replace } from './dom.js';
import { initHeader, setServer } from './header.js';
import { initMemory } from './memory.js';
import { initKeys } from './keys.js';
import { mountServers } from './servers.js';
import { mountServerView, TABS } from './server-view.js';

const view = document.getElementById('view');
let current = null;

/** The route of a hash; names and keys are percent-encoded segments. */
export function parseRoute(hash) {
  const parts = hash.replace(/^#\/?/, '').split('/').filter((p) => p !== '');
  const decode = (p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  };
  if (parts[0] !== 'servers' || parts.length < 2) return { page: 'servers' };
  const tab = TABS.some((t) => t.id === parts[2]) ? parts[2] : 'tools';
  // An item key is one segment, but a hand-typed URI may hold slashes: keep them.
  const item = parts.length > 3 ? decode(parts.slice(3).join('/')) : null;
  return { page: 'server', server: decode(parts[1]), tab, item };
}

function render() {
  const route = parseRoute(location.hash);
  if (current && current.page === 'server' && route.page === 'server' && current.server === route.server) {
    current.view.update(route);
    return;
  }
  current?.view.destroy();
  replace(view);
  setServer(route.page === 'server' ? route.server : null);
  const mounted = route.page === 'server' ? mountServerView(view, route) : mountServers(view);
  current = { page: route.page, server: route.server, view: mounted };
}

async function start() {
  try {
    initHeader(await api.get('/'));
    initMemory();
  } catch (problem) {
    replace(view, h('p', { class: 'error-banner', role: 'alert' }, problem.detail ?? String(problem)));
    return;
  }
  initKeys();
  window.addEventListener('hashchange', render);
  render();
}

start();
