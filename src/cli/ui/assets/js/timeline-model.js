// What the Timeline tab draws, computed from log records: a small summary per record (the
// tab keeps these, never whole records), the sessions they belong to, and one session's rows
// in time order. A row is one arrow: a JSON-RPC message (a request, its response, a
// notification, a server-to-client request and the client's answer), an HTTP exchange that
// carried messages, the end of an event stream, or a gap in time.

import { endWords, header } from './log-format.js';

/** A pause this long between two rows shows as a gap row. */
export const GAP_MS = 1000;

/** The list kinds whose `notifications/KIND/list_changed` a client should answer. */
const LISTS = /^notifications\/(tools|prompts|resources)\/list_changed$/;

/** The summary of a log record. */
export function summarize(r) {
  const at = Date.parse(r.at);
  if (r.layer === 'http') {
    const session = header(r.requestHeaders, 'mcp-session-id') ?? header(r.responseHeaders, 'mcp-session-id') ?? null;
    return {
      id: r.id, layer: 'http', kind: r.kind, at, session, method: r.method, path: r.path,
      status: r.status ?? null, unanswered: Boolean(r.unanswered), duration: r.durationMs ?? null, streamOf: r.streamOf ?? null,
      stream: (header(r.responseHeaders, 'content-type') ?? '').startsWith('text/event-stream'),
    };
  }
  const answer = r.kind === 'response' ? r.message : r.response;
  const error = answer?.error ? `error ${answer.error.code}` : answer?.result?.isError ? 'isError' : null;
  return {
    id: r.id, layer: 'mcp', kind: r.kind, at, session: r.session ?? null,
    direction: r.direction, method: r.method ?? null, name: r.name ?? null,
    rpcId: r.message && typeof r.message === 'object' && 'id' in r.message ? r.message.id : null,
    carriedBy: r.carriedBy ?? null, duration: r.durationMs ?? null,
    answered: r.response !== undefined, error, ended: r.end && r.end !== 'answered' ? r.end : null, fault: r.fault ?? null,
    client: r.method === 'initialize' ? r.message?.params?.clientInfo ?? null : null,
  };
}

/** Whether the summary is still waiting for a change (a response, a status). */
export function pending(item) {
  if (item.layer === 'http') return item.kind === 'exchange' && item.status === null && !item.unanswered;
  return item.kind === 'request' && !item.answered && !item.ended;
}

/** The session of an item; a stream's end belongs to the exchange that opened it. */
export function sessionOf(item, items) {
  if (item.session) return item.session;
  if (item.kind === 'stream_end' && item.streamOf !== null) return items.get(item.streamOf)?.session ?? null;
  return null;
}

/**
 * The sessions of `items` (a Map by id), newest activity first: `{ id, count, first, last,
 * client }`, `count` its JSON-RPC messages; `id` is `''` for traffic outside any session.
 */
export function sessions(items) {
  const byId = new Map();
  for (const item of items.values()) {
    const id = sessionOf(item, items) ?? '';
    let s = byId.get(id);
    if (!s) {
      s = { id, count: 0, first: item.at, last: item.at, client: null };
      byId.set(id, s);
    }
    // JSON-RPC messages: a request and its response are two.
    if (item.layer === 'mcp') s.count += item.kind === 'request' && item.answered ? 2 : 1;
    s.first = Math.min(s.first, item.at);
    s.last = Math.max(s.last, item.at);
    if (item.client) s.client = item.client;
  }
  return [...byId.values()].sort((a, b) => b.last - a.last);
}

/**
 * The rows of session `id` (`''`: no session), in time order, with gap rows between pauses
 * longer than GAP_MS. `http: false` leaves the HTTP carriers and stream ends out.
 */
export function rows(items, id, { http = true } = {}) {
  const out = [];
  const mine = [];
  for (const item of items.values()) {
    if ((sessionOf(item, items) ?? '') === id) mine.push(item);
  }
  for (const item of mine) {
    if (item.layer === 'http') {
      if (http) out.push(httpRow(item));
      continue;
    }
    const first = messageRow(item);
    out.push(first);
    if (item.kind === 'request' && (item.answered || item.ended)) out.push(answerRow(item, first));
  }
  out.sort((a, b) => a.t - b.t || a.id - b.id || a.order - b.order);
  relisted(out);
  return withGaps(out);
}

const from = (direction) => (direction === 'server_to_client' ? 'server' : 'client');

function httpRow(item) {
  if (item.kind === 'stream_end') {
    const of = item.streamOf === null ? '' : ` of #${item.streamOf}`;
    return {
      id: item.id, t: item.at, order: 0, kind: 'stream-end', from: 'server', to: 'client', tone: 'muted',
      label: `event stream${of} ended`, note: `http #${item.id}${item.duration === null ? '' : ` · open ${seconds(item.duration)}`}`,
    };
  }
  const status = item.unanswered ? 'closed unanswered' : item.status === null ? '…' : String(item.status);
  return {
    id: item.id, t: item.at, order: 0, kind: 'http', from: 'client', to: 'server', method: item.method,
    tone: item.unanswered ? 'bad' : item.status === null ? 'pending' : item.status >= 400 ? 'bad' : 'muted',
    label: `${item.method} ${item.path}`,
    note: [`http #${item.id}`, status, item.stream ? 'event stream' : null, item.duration === null ? null : ms(item.duration)].filter(Boolean).join(' · '),
  };
}

function messageRow(item) {
  const sender = from(item.direction);
  const kind = item.kind === 'invalid' ? 'invalid' : item.kind;
  const tone = kind === 'invalid' || (kind === 'response' && item.error) ? 'bad' : item.fault ? 'fault' : kind;
  let label = item.method ?? (kind === 'response' ? `response ${json(item.rpcId)}` : 'invalid message');
  if (item.name) label += ` ${item.name}`;
  if (kind === 'request' && item.rpcId !== null) label += `  #${json(item.rpcId)}`;
  return {
    id: item.id, t: item.at, order: 1, kind, from: sender, to: sender === 'client' ? 'server' : 'client',
    method: item.method, tone, label, fault: item.fault, carrier: item.carriedBy,
    note: [item.carriedBy === null ? null : `via http #${item.carriedBy}`, item.fault ? `fault: ${item.fault}` : null].filter(Boolean).join(' · '),
  };
}

function answerRow(item, request) {
  const t = item.at + (item.duration ?? 0);
  if (item.ended) {
    return {
      id: item.id, t, order: 2, kind: 'ended', from: request.from, to: request.from, method: item.method, tone: 'bad',
      label: `${item.method} ${endWords(item.ended)}`, note: item.duration === null ? '' : `after ${ms(item.duration)}`, fault: item.fault,
    };
  }
  return {
    id: item.id, t, order: 2, kind: 'response', from: request.to, to: request.from, method: item.method,
    tone: item.error ? 'bad' : item.fault ? 'fault' : 'response',
    label: `${item.method} ${item.error ?? 'result'}  #${json(item.rpcId)}`,
    note: [item.duration === null ? null : ms(item.duration), item.fault ? `fault: ${item.fault}` : null].filter(Boolean).join(' · '),
    fault: item.fault,
  };
}

/**
 * Marks each `notifications/KIND/list_changed` the server sent with whether the client
 * listed KIND again afterwards (`relisted`), the question a timeline answers at a glance.
 */
function relisted(list) {
  const lastList = new Map();
  for (const row of list) {
    if (row.kind === 'request' && row.from === 'client' && /^(tools|prompts|resources)\/list$/.test(row.method ?? '')) {
      lastList.set(row.method.split('/')[0], row.t);
    }
  }
  for (const row of list) {
    const match = row.kind === 'notification' && row.from === 'server' ? LISTS.exec(row.method ?? '') : null;
    if (!match) continue;
    row.relisted = (lastList.get(match[1]) ?? -Infinity) >= row.t;
    if (!row.relisted) {
      row.tone = 'warn';
      row.note = [row.note, `the client never listed ${match[1]} again`].filter(Boolean).join(' · ');
    }
  }
}

function withGaps(list) {
  const out = [];
  let previous = null;
  for (const row of list) {
    if (previous !== null && row.t - previous > GAP_MS) {
      out.push({ id: null, t: row.t, kind: 'gap', tone: 'muted', label: `${seconds(row.t - previous)} later`, note: '' });
    }
    out.push(row);
    previous = row.t;
  }
  return out;
}

function json(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function ms(value) {
  return value < 10 ? `${value.toFixed(1)} ms` : value < 1000 ? `${Math.round(value)} ms` : seconds(value);
}

export function seconds(value) {
  const s = value / 1000;
  return s < 60 ? `${s.toFixed(s < 10 ? 2 : 1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}
