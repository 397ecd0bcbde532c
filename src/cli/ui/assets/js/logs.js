// The Logs tab (product guide, "Read the logs"): the live list, newest at the top; the
// search box, which filters with the API's own `q`; Pause, Resume, Clear, Export JSONL,
// Export HAR, Save cassette and Convert to mock; an entry's details; and the keyboard (`/`,
// the arrow keys, Escape).
//
// The list loads a page of `GET /logs`, then follows `GET /logs/stream`. A stream that closes
// (Pause, a lost connection, a new search) reopens with `after`, so nothing is lost: `after` is
// the newest entry held, or just before the oldest one still waiting for its response, whose
// response then arrives as the replayed entry. Replays are upserts by id, so an entry seen
// twice counts once.

import { api, apiUrl, seg, serverPath } from './api.js';
import { debounce, h, plural, replace, setText } from './dom.js';
import { useKeys } from './keys.js';
import { details } from './log-details.js';
import { row } from './log-format.js';
import { LogList } from './log-list.js';

/** Entries per page of the list; older pages load as the list scrolls down. */
const PAGE = 500;
/** How far back a resume looks for entries still waiting for their response. */
const RESUME_WINDOW = 2000;

export function mountLogs(root, route) {
  const server = route.server;
  const base = `${serverPath(server)}/logs`;
  const hash = (id) => `#/servers/${seg(server)}/logs${id === null ? '' : `/${id}`}`;

  let q = '';
  let ids = [];
  const rows = new Map();
  let total = 0;
  let cursor = null;
  let loadingMore = false;
  let incoming = [];
  let flushing = 0;
  let paused = false;
  let source = null;
  let retry = 0;
  let generation = 0;
  let destroyed = false;
  let selected = null;
  let detailTurn = 0;

  const search = h('input', { type: 'search', testid: 'log-search', placeholder: 'Search   ( / )', title: 'Case-insensitive, over the method, the URL, the headers and the bodies', 'aria-label': 'Search the log', spellcheck: 'false' });
  const count = h('span', { class: 'count', testid: 'log-count', 'aria-live': 'polite' });
  const state = h('span', { class: 'live-state', testid: 'log-state' });
  const pause = h('button', { type: 'button', testid: 'log-pause', on: { click: () => setPaused(!paused) } }, 'Pause');
  const clear = h('button', { type: 'button', testid: 'log-clear', on: { click: clearAll } }, 'Clear');
  const exportLink = h('a', { class: 'button', testid: 'log-export', href: apiUrl(`${base}/export`), download: `${server}-logs.jsonl` }, 'Export JSONL');
  // HAR: the server builds it (GET /logs/export.har), masking secrets unless asked not to.
  const harLink = h('a', { class: 'button', testid: 'export-har', href: apiUrl(`${base}/export.har`), download: `${server}.har`,
    title: 'The HTTP exchanges as a HAR 1.2 file, for a browser\'s network panel or a HAR viewer' }, 'Export HAR');
  const harSecrets = h('input', { type: 'checkbox', testid: 'har-secrets',
    on: { change: () => (harLink.href = apiUrl(`${base}/export.har${harSecrets.checked ? '?secrets=true' : ''}`)) } });
  // A cassette: the JSON-RPC exchanges, replayable (GET /cassette), or a new server made of
  // them to edit (POST /cassette/convert), which the page then opens.
  const cassetteLink = h('a', { class: 'button', testid: 'save-cassette', href: apiUrl(`${serverPath(server)}/cassette`), download: `${server}.cassette.json`,
    title: 'The JSON-RPC exchanges as a cassette, to replay with MockMcpServer::from_cassette or a server\'s "replay"' }, 'Save cassette');
  const convert = h('button', { type: 'button', testid: 'cassette-convert', on: { click: convertToMock },
    title: 'A new server with the recorded tools, resources and prompts, answering as recorded, to edit' }, 'Convert to mock');
  const banner = h('p', { class: 'error-banner', role: 'alert', hidden: true });
  const detailBody = h('div', { class: 'details-scroll' });
  const panel = h('aside', { class: 'card log-details', testid: 'log-details', hidden: true, 'aria-label': 'Entry details' },
    h('button', { type: 'button', class: 'close', testid: 'log-details-close', title: 'Close (Esc)', on: { click: closeDetails } }, '×'),
    detailBody);
  const list = new LogList({ onSelect: (id) => select(id, true), onNearEnd: loadMore });
  const main = h('div', { class: 'log-main' }, list.el, panel);

  replace(root, h('div', { class: 'logs' },
    h('div', { class: 'log-toolbar' }, search, count, state, h('span', { class: 'spacer' }), pause, clear, exportLink, harLink,
      h('label', { class: 'check', title: 'In the HAR file: Authorization, cookies, API keys, OAuth codes and secrets' }, harSecrets, 'Include secrets'),
      cassetteLink, convert),
    banner, main));

  search.addEventListener('input', debounce(() => {
    if (search.value === q) return;
    q = search.value;
    reload();
  }, 250));

  const releaseKeys = useKeys({
    slash: () => {
      search.focus();
      search.select();
    },
    move,
    escape: () => {
      if (selected === null) return false;
      closeDetails();
      return true;
    },
  });

  function query(prefix) {
    return q === '' ? '' : `${prefix}q=${encodeURIComponent(q)}`;
  }

  function showCount() {
    // With a search, the count is of the matching entries (the API's `total` for `q`).
    setText(count, plural(total, 'entry', 'entries'));
    count.classList.toggle('filtered', q !== '');
    count.dataset.count = String(total);
  }

  async function convertToMock() {
    const name = `${server}-recorded`;
    try {
      await api.post(`${serverPath(server)}/cassette/convert`, { name });
      location.hash = `#/servers/${seg(name)}/tools`;
    } catch (problem) {
      fail(problem);
    }
  }

  function fail(problem) {
    setText(banner, problem.detail);
    banner.hidden = false;
  }

  async function reload() {
    const mine = ++generation;
    closeStream();
    let page;
    try {
      page = await api.get(`${base}?limit=${PAGE}${query('&')}`);
      banner.hidden = true;
    } catch (problem) {
      if (mine === generation) fail(problem);
      return;
    }
    if (mine !== generation || destroyed) return;
    ids = page.records.map((r) => r.id);
    rows.clear();
    for (const r of page.records) rows.set(r.id, row(r));
    incoming = [];
    total = page.total;
    cursor = page.nextCursor ?? null;
    list.set(ids, rows);
    showCount();
    if (!paused) openStream();
  }

  async function loadMore() {
    if (cursor === null || loadingMore) return;
    loadingMore = true;
    const mine = generation;
    try {
      const page = await api.get(`${base}?limit=${PAGE}&cursor=${cursor}${query('&')}`);
      if (mine !== generation) return;
      const older = page.records.filter((r) => !rows.has(r.id));
      for (const r of older) rows.set(r.id, row(r));
      ids = ids.concat(older.map((r) => r.id));
      cursor = page.nextCursor ?? null;
      list.set(ids, rows);
    } catch (problem) {
      fail(problem);
    } finally {
      loadingMore = false;
    }
  }

  function resumePoint() {
    flush();
    let after = ids.length > 0 ? ids[0] : 0;
    const span = Math.min(ids.length, RESUME_WINDOW);
    for (let i = 0; i < span; i++) {
      if (rows.get(ids[i])?.pending) after = Math.min(after, ids[i] - 1);
    }
    return Math.max(after, 0);
  }

  function openStream() {
    if (destroyed || paused || source) return;
    const stream = new EventSource(apiUrl(`${base}/stream?after=${resumePoint()}${query('&')}`));
    source = stream;
    const mine = generation;
    const take = (event) => {
      if (source !== stream || mine !== generation) return;
      try {
        incoming.push(JSON.parse(event.data));
      } catch {
        return;
      }
      if (!flushing) flushing = requestAnimationFrame(flush);
    };
    stream.addEventListener('message', take);
    stream.addEventListener('update', take);
    stream.addEventListener('clear', () => {
      if (source === stream) forget();
    });
    stream.addEventListener('open', () => showState('live'));
    stream.addEventListener('error', () => {
      if (source !== stream) return;
      // Reopened by us, with our own `after`: the browser's retry would resume from the
      // last event's id, which an update of an older entry makes too late.
      stream.close();
      source = null;
      showState('reconnecting');
      clearTimeout(retry);
      retry = setTimeout(reconnect, 1000);
    });
  }

  async function reconnect() {
    if (destroyed || paused || source) return;
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

  function showState(name) {
    const text = { live: 'Live', reconnecting: 'Reconnecting…', paused: 'Paused: new entries wait', stopped: 'Stopped' }[name];
    setText(state, text);
    state.dataset.state = name;
  }

  function flush() {
    cancelAnimationFrame(flushing);
    flushing = 0;
    if (incoming.length === 0) return;
    const batch = incoming;
    incoming = [];
    const added = new Set();
    let selectedRecord = null;
    for (const record of batch) {
      if (!rows.has(record.id)) added.add(record.id);
      rows.set(record.id, row(record));
      if (record.id === selected) selectedRecord = record;
    }
    if (added.size > 0) {
      const fresh = [...added].sort((a, b) => b - a);
      ids = ids.length === 0 || fresh[fresh.length - 1] > ids[0] ? fresh.concat(ids) : ids.concat(fresh).sort((a, b) => b - a);
      total += fresh.length;
      list.shifted(fresh.length);
      showCount();
    }
    list.set(ids, rows);
    if (selectedRecord) showDetails(selectedRecord);
  }

  function forget() {
    ids = [];
    rows.clear();
    incoming = [];
    total = 0;
    cursor = null;
    list.set(ids, rows);
    showCount();
    if (selected !== null) closeDetails();
  }

  function setPaused(on) {
    paused = on;
    setText(pause, on ? 'Resume' : 'Pause');
    pause.setAttribute('aria-pressed', String(on));
    if (on) {
      closeStream();
      flush();
      showState('paused');
    } else {
      showState('reconnecting');
      openStream();
    }
  }

  async function clearAll() {
    try {
      await api.del(base);
      forget();
    } catch (problem) {
      fail(problem);
    }
  }

  function select(id, fromList) {
    if (!Number.isFinite(id)) return;
    selected = id;
    list.select(id);
    list.reveal(id);
    if (fromList && location.hash !== hash(id)) history.replaceState(null, '', hash(id));
    panel.hidden = false;
    main.classList.add('with-details');
    const mine = ++detailTurn;
    api.get(`${base}/${id}`).then(
      (record) => mine === detailTurn && showDetails(record),
      (problem) => {
        if (mine !== detailTurn) return;
        replace(detailBody, h('p', { class: 'form-error' }, problem.status === 404
          ? `Entry #${id} is no longer in the log: it was cleared, or the newest records pushed it out.`
          : problem.detail));
      },
    );
  }

  function showDetails(record) {
    const top = detailBody.scrollTop;
    replace(detailBody, details(record, {
      link: hash,
      carried: (id) => api.get(`${base}?carriedBy=${id}&limit=1000`).then((page) => page.records.reverse()),
    }));
    detailBody.scrollTop = top;
  }

  function closeDetails() {
    selected = null;
    detailTurn++;
    list.select(null);
    panel.hidden = true;
    main.classList.remove('with-details');
    if (location.hash !== hash(null)) history.replaceState(null, '', hash(null));
  }

  function move(step) {
    if (ids.length === 0) return;
    const index = selected === null ? -1 : ids.indexOf(selected);
    const next = Math.min(ids.length - 1, Math.max(0, index + step));
    select(ids[next], true);
  }

  showCount();
  showState('reconnecting');
  reload();
  if (route.item !== null) select(Number(route.item), false);

  return {
    update(next) {
      if (next.item === null) {
        if (selected !== null) closeDetails();
      } else if (Number(next.item) !== selected) select(Number(next.item), false);
    },
    destroy() {
      destroyed = true;
      closeStream();
      cancelAnimationFrame(flushing);
      list.destroy();
      releaseKeys();
    },
  };
}
