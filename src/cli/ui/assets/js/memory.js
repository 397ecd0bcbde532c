// The header's memory gauge (issue 49): what the app keeps against its budgets, from
// `GET /memory` every two seconds. The button shows the total held and, once any budget has
// evicted something, how many items; its panel lists each budget with its flag.

import { api } from './api.js';
import { h, replace } from './dom.js';
import { popover } from './header.js';
import { poll } from './poll.js';

/** Each part of `GET /memory`: its label and the flag that sets its budget. */
const PARTS = [
  ['capture', 'Log records', '--log-bytes'],
  ['retainedEvents', 'Retained events', '--retained-event-bytes'],
  ['tasks', 'Finished tasks', '--task-bytes'],
];

/** Starts the gauge; it runs for the page's life. */
export function initMemory() {
  const button = find('memory-button');
  const panel = find('memory-panel');
  popover(button, panel, '.memory');
  poll(async () => render(await api.get('/memory'), button, panel), 2000);
}

function render(memory, button, panel) {
  const used = PARTS.reduce((sum, [key]) => sum + memory[key].usedBytes, 0)
    + memory.sessions.handshakeBytes;
  const evicted = PARTS.reduce((sum, [key]) => sum + memory[key].evicted, 0)
    + memory.sessions.evicted;
  button.textContent = `Memory ${bytes(used)}` + (evicted > 0 ? ` · ${count(evicted)} evicted` : '');
  button.classList.toggle('warn', evicted > 0);
  const rows = PARTS.map(([key, label, flag]) => {
    const part = memory[key];
    return row(key, label, `${bytes(part.usedBytes)} of ${bytes(part.limitBytes)}`, part.evicted, flag);
  });
  const s = memory.sessions;
  rows.push(row('sessions', 'Sessions', `${count(s.live)} live (at most ${count(s.limit)} per server)`,
    s.evicted, '--max-sessions --session-bytes'));
  replace(panel,
    h('table', { class: 'memory-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Kept'), h('th', {}, 'Now'), h('th', {}, 'Evicted'), h('th', {}, 'Budget flag'))),
      h('tbody', {}, ...rows)),
    h('p', { class: 'hint' }, 'Past a budget the oldest items go first. A client that resumes a stream past an evicted event gets 410 Gone.'));
}

function row(key, label, now, evicted, flag) {
  return h('tr', { 'data-testid': `memory-${key}` },
    h('td', {}, label), h('td', {}, now), h('td', { class: evicted > 0 ? 'warn' : '' }, count(evicted)),
    h('td', {}, ...flag.split(' ').map((f) => h('code', {}, f))));
}

function bytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

function count(n) {
  return n.toLocaleString('en-US');
}

function find(testid) {
  return document.querySelector(`[data-testid="${testid}"]`);
}
