// The Timeline tab: one session's traffic as a sequence picture (client and server lanes,
// an arrow per JSON-RPC message, the HTTP exchanges that carried them and the ends of event
// streams, faults marked, a time axis), so a reader sees at a glance what went out and what
// never came back: a `notifications/tools/list_changed` the client never answered with a
// `tools/list` is marked. A click on an arrow opens its entry in the Logs tab.
//
// Built from the log API only: pages of `GET /logs` (the newest MAX_RECORDS records, kept
// as small summaries), then `GET /logs/stream` from the newest one, reopened with `after`
// like the Logs tab when it closes. The picture is virtualized (timeline-draw.js).

import { api, apiUrl, seg, serverPath } from './api.js';
import { clock, h, plural, replace, setText } from './dom.js';
import { TimelineView } from './timeline-draw.js';
import { pending, rows, sessions, summarize } from './timeline-model.js';

/** Records per page while loading. */
const PAGE = 1000;
/** The most records the tab holds (the app's default `--log-limit` for all servers). */
const MAX_RECORDS = 10000;
/** How far back a reopened stream looks for entries still waiting for their response. */
const RESUME_WINDOW = 2000;
/** The URL's name for the traffic outside any session. */
const NO_SESSION = '-';

export function mountTimeline(root, route) {
  const server = route.server;
  const base = `${serverPath(server)}/logs`;
  const items = new Map();
  let chosen = route.item === null ? null : route.item === NO_SESSION ? '' : route.item;
  let source = null;
  let retry = 0;
  let generation = 0;
  let destroyed = false;
  let frame = 0;
  let incoming = [];
  let signature = '';

  const picker = h('select', { testid: 'timeline-session', 'aria-label': 'Session' });
  const count = h('span', { class: 'count', testid: 'timeline-count', 'aria-live': 'polite' });
  const state = h('span', { class: 'live-state', testid: 'timeline-state' });
  const httpToggle = h('input', { type: 'checkbox', testid: 'timeline-http', checked: true });
  const newest = h('button', { type: 'button', testid: 'timeline-newest', title: 'Scroll to the newest message' }, 'Newest');
  const banner = h('p', { class: 'error-banner', role: 'alert', hidden: true });
  const limit = h('p', { class: 'notice', testid: 'timeline-limit', hidden: true },
    `The log holds more than ${MAX_RECORDS.toLocaleString()} records for this server: the timeline draws the newest ones.`);
  const view = new TimelineView({ onOpen: (id) => (location.hash = `#/servers/${seg(server)}/logs/${id}`) });
  const key = (tone, text) => h('span', { class: `tl-key tl-key-${tone}` }, text);

  replace(root, h('div', { class: 'timeline', testid: 'timeline' },
    h('div', { class: 'log-toolbar' },
      h('label', { class: 'tl-pick' }, 'Session', picker), count, state, h('span', { class: 'spacer' }),
      h('label', { class: 'check', title: 'The HTTP exchanges that carried the messages, and the ends of event streams' }, httpToggle, 'HTTP carriers'),
      newest),
    banner, limit, view.el,
    h('div', { class: 'tl-legend', 'aria-label': 'Legend' },
      key('request', 'request'), key('response', 'response'), key('notification', 'notification'), key('muted', 'HTTP exchange or stream end'),
      key('fault', '⚡ fault fired'), key('bad', 'error, invalid, ended unanswered, HTTP 4xx/5xx'), key('warn', 'list_changed the client never answered'),
      h('span', { class: 'hint' }, 'Click an arrow to open its log entry.'))));

  picker.addEventListener('change', () => {
    chosen = picker.value;
    const hash = `#/servers/${seg(server)}/timeline/${chosen === '' ? NO_SESSION : seg(chosen)}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
    draw();
    view.toEnd();
  });
  httpToggle.addEventListener('change', draw);
  newest.addEventListener('click', () => view.toEnd());

  function fail(problem) {
    setText(banner, problem.detail);
    banner.hidden = false;
  }

  function showState(name) {
    setText(state, { live: 'Live', reconnecting: 'Reconnecting…', stopped: 'Stopped' }[name]);
    state.dataset.state = name;
  }

  async function load() {
    const mine = ++generation;
    closeStream();
    items.clear();
    let cursor = null;
    try {
      do {
        const page = await api.get(`${base}?limit=${PAGE}${cursor === null ? '' : `&cursor=${cursor}`}`);
        if (mine !== generation || destroyed) return;
        for (const r of page.records) items.set(r.id, summarize(r));
        cursor = page.nextCursor ?? null;
      } while (cursor !== null && items.size < MAX_RECORDS);
      banner.hidden = true;
    } catch (problem) {
      if (mine !== generation) return;
      fail(problem);
      retry = setTimeout(load, 2000);
      return;
    }
    limit.hidden = cursor === null;
    draw();
    view.toEnd();
    openStream();
  }

  /** The newest id held, or just before the oldest recent one still waiting for a change. */
  function resumePoint() {
    const ids = [...items.keys()].sort((a, b) => b - a);
    let after = ids[0] ?? 0;
    for (const id of ids.slice(0, RESUME_WINDOW)) if (pending(items.get(id))) after = Math.min(after, id - 1);
    return Math.max(after, 0);
  }

  function openStream() {
    if (destroyed || source) return;
    const stream = new EventSource(apiUrl(`${base}/stream?after=${resumePoint()}`));
    source = stream;
    const take = (event) => {
      if (source !== stream) return;
      try {
        incoming.push(JSON.parse(event.data));
      } catch {
        return;
      }
      if (!frame) frame = requestAnimationFrame(flush);
    };
    stream.addEventListener('message', take);
    stream.addEventListener('update', take);
    stream.addEventListener('clear', () => {
      if (source !== stream) return;
      items.clear();
      incoming = [];
      draw();
    });
    stream.addEventListener('open', () => showState('live'));
    stream.addEventListener('error', () => {
      if (source !== stream) return;
      // Reopened by us with our own `after`, for the reason logs.js gives.
      stream.close();
      source = null;
      showState('reconnecting');
      clearTimeout(retry);
      retry = setTimeout(reconnect, 1000);
    });
  }

  async function reconnect() {
    if (destroyed || source) return;
    try {
      await api.get(serverPath(server));
    } catch (problem) {
      if (problem.status === 404) {
        fail(problem);
        showState('stopped');
        return;
      }
      retry = setTimeout(reconnect, 2000);
      return;
    }
    openStream();
  }

  function closeStream() {
    clearTimeout(retry);
    source?.close();
    source = null;
  }

  function flush() {
    cancelAnimationFrame(frame);
    frame = 0;
    if (incoming.length === 0) return;
    for (const record of incoming) items.set(record.id, summarize(record));
    incoming = [];
    if (items.size > MAX_RECORDS * 1.1) {
      const ids = [...items.keys()].sort((a, b) => a - b);
      for (const id of ids.slice(0, items.size - MAX_RECORDS)) items.delete(id);
      limit.hidden = false;
    }
    draw();
  }

  /** The picker's options: rebuilt when sessions come or go, else relabelled in place. */
  function fillPicker(list) {
    if (chosen === null) chosen = (list.find((s) => s.id !== '') ?? list[0])?.id ?? null;
    const options = list.map((s) => ({ id: s.id, label: sessionLabel(s) }));
    if (chosen !== null && !list.some((s) => s.id === chosen)) options.unshift({ id: chosen, label: `${chosen.slice(0, 8)} · no records` });
    const ids = options.map((o) => o.id).join('\n');
    if (ids !== signature) {
      signature = ids;
      picker.replaceChildren(...options.map((o) => h('option', { value: o.id, data: { session: o.id } }, o.label)));
    } else {
      options.forEach((o, i) => setText(picker.options[i], o.label));
    }
    picker.disabled = options.length === 0;
    if (chosen !== null) picker.value = chosen;
  }

  function draw() {
    const list = sessions(items);
    fillPicker(list);
    const session = list.find((s) => s.id === chosen);
    const shown = chosen === null ? [] : rows(items, chosen, { http: httpToggle.checked });
    const messages = shown.filter((r) => ['request', 'response', 'notification', 'invalid', 'ended'].includes(r.kind)).length;
    const exchanges = shown.filter((r) => r.kind === 'http').length;
    setText(count, `${plural(messages, 'message', 'messages')}${httpToggle.checked ? `, ${plural(exchanges, 'HTTP exchange', 'HTTP exchanges')}` : ''}`);
    count.dataset.count = String(messages);
    view.set(shown, session?.client ?? null);
  }

  showState('reconnecting');
  load();

  return {
    update(next) {
      const wanted = next.item === null ? null : next.item === NO_SESSION ? '' : next.item;
      if (wanted !== null && wanted !== chosen) {
        chosen = wanted;
        draw();
        view.toEnd();
      }
    },
    destroy() {
      destroyed = true;
      closeStream();
      cancelAnimationFrame(frame);
      view.destroy();
    },
  };
}

function sessionLabel(s) {
  const who = s.client ? `${s.client.name}${s.client.version ? ` ${s.client.version}` : ''}` : s.id === '' ? 'outside any session' : 'client';
  const id = s.id === '' ? '' : ` · ${s.id.slice(0, 8)}`;
  return `${who}${id} · ${plural(s.count, 'message', 'messages')} · since ${clock(new Date(s.first).toISOString()).slice(0, 8)}`;
}
