// The details of one log entry (product guide, "Read the logs"): the headers, the query
// parameters and the pretty-printed JSON of each message with a button that copies it; an
// `mcp` entry links to the `http` entry that carried it, an `http` entry to the messages it
// carried; an `http` entry copies as a curl command, its secrets masked unless asked.

import { copy, copyButton, h, when } from './dom.js';
import { endWords, header } from './log-format.js';

/** Headers and form fields (OAuth's token and revocation requests) whose values a curl
 * command masks by default. JSON-RPC bodies carry none of OAuth's secrets, and a tool's own
 * `token` argument is the user's test data, so JSON is never masked. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key', 'api-key']);
const SECRET_FIELDS = new Set(['client_secret', 'code', 'code_verifier', 'refresh_token', 'access_token', 'password', 'client_assertion', 'token']);
/** Headers that curl sets itself, or that would make it misbehave (a compressed answer). */
const CURL_SKIPS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding']);
const MASK = '********';

/**
 * The panel's content for `record`. `link(id)` is the hash of another entry; `carried(id)`
 * resolves to the `mcp` records an `http` record carried.
 */
export function details(record, { link, carried }) {
  const http = record.layer === 'http';
  const title = http ? `${record.method} ${record.path}` : record.method ?? record.kind;
  return h('div', { class: 'details-body' },
    h('h2', {}, h('span', { class: `layer layer-${record.layer}` }, record.layer), ` #${record.id} `, title),
    record.truncated ? h('p', { class: 'notice' }, 'The log keeps a cut copy of this entry: a body or message over 8 KiB has its long strings shortened. The client got it whole.') : null,
    http ? httpDetails(record, link, carried) : mcpDetails(record, link));
}

function httpDetails(r, link, carried) {
  const carriedList = h('ul', { class: 'links' }, h('li', { class: 'hint' }, 'Loading…'));
  carried(r.id).then(
    (records) => {
      carriedList.replaceChildren(
        ...(records.length === 0
          ? [h('li', { class: 'hint' }, 'None.')]
          : records.map((m) => h('li', {},
            h('a', { href: link(m.id), testid: 'carried-link', data: { id: String(m.id) } }, `mcp #${m.id} ${m.method ?? m.kind}`),
            ` ${m.kind}, ${m.direction === 'server_to_client' ? 'server → client' : 'client → server'}`))),
      );
    },
    (problem) => carriedList.replaceChildren(h('li', { class: 'form-error' }, problem.detail)),
  );
  const query = [...new URLSearchParams(r.query ?? '')];
  return [
    pairs([
      ['Time', when(r.at)],
      ['Status', r.status ?? (r.unanswered ? 'none: the connection closed before the answer' : 'waiting for the response')],
      ['Duration', r.durationMs === undefined ? '' : `${r.durationMs.toFixed(1)} ms`],
      ['Kind', r.kind === 'stream_end' ? 'end of an event stream' : 'exchange'],
      r.streamOf !== undefined ? ['Stream of', h('a', { href: link(r.streamOf), testid: 'stream-link' }, `http #${r.streamOf}`)] : null,
    ]),
    curlSection(r),
    section('Carried messages', carriedList),
    section('Query parameters', query.length ? table(query, 'query') : h('p', { class: 'hint' }, 'None.')),
    section('Request headers', table(r.requestHeaders, 'request-headers')),
    r.kind === 'exchange' ? section('Response headers', table(r.responseHeaders, 'response-headers')) : null,
    r.requestBody !== undefined ? json('Request body', r.requestBody) : null,
    r.responseBody !== undefined ? json('Response body', r.responseBody) : null,
  ];
}

function mcpDetails(r, link) {
  const sent = r.direction === 'server_to_client' ? 'server → client' : 'client → server';
  return [
    pairs([
      ['Time', when(r.at)],
      ['Kind', `${r.kind}, ${sent}`],
      r.name ? ['Name', r.name] : null,
      ['Session', r.session ? h('code', {}, r.session) : 'none'],
      r.protocolVersion ? ['Protocol', `${r.protocolVersion}${r.era ? ` (${r.era})` : ''}`] : null,
      ['Transport', r.transport],
      r.durationMs !== undefined ? ['Duration', `${r.durationMs.toFixed(1)} ms`] : null,
      r.end && r.end !== 'answered' ? ['Ended', `${endWords(r.end)}; no response was sent`] : null,
      r.fault ? ['Faults', r.fault] : null,
      r.responseIndex !== undefined ? ['Answered by', `responses[${r.responseIndex}]`] : null,
      r.carriedBy !== undefined
        ? ['Carried by', h('a', { href: link(r.carriedBy), testid: 'carrier-link', data: { id: String(r.carriedBy) } }, `http #${r.carriedBy}`)]
        : null,
    ]),
    r.argumentErrors?.length
      ? section('Argument errors', h('ul', {}, r.argumentErrors.map((e) => h('li', {}, h('code', {}, e.pointer), ` ${e.reason}`))))
      : null,
    json(r.kind === 'response' ? 'Response' : 'Message', r.message),
    r.response !== undefined ? json('Response', r.response) : null,
  ];
}

function section(title, ...content) {
  return h('section', { class: 'detail-section' }, h('h3', {}, title), ...content);
}

function pairs(list) {
  return h('dl', { class: 'pairs' }, list.filter(Boolean).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

function table(rows, testid) {
  if (!rows?.length) return h('p', { class: 'hint' }, 'None.');
  return h('table', { class: 'kv', testid },
    h('tbody', {}, rows.map(([name, value]) => h('tr', {}, h('th', {}, name), h('td', {}, value)))));
}

/** A message, pretty-printed and highlighted, with its copy button. */
function json(title, value) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return h('section', { class: 'detail-section' },
    h('div', { class: 'section-head' }, h('h3', {}, title), copyButton(text, 'copy-json', 'Copy JSON')),
    h('pre', { class: 'json', testid: 'json' }, typeof value === 'string' ? text : highlight(text)));
}

/** Spans for keys, strings, numbers and literals, built as text nodes (never markup). */
function highlight(text) {
  const out = [];
  const token = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
  let at = 0;
  for (const m of text.matchAll(token)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    if (m[1]) {
      out.push(h('span', { class: m[2] ? 'j-key' : 'j-str' }, m[1]));
      if (m[2]) out.push(m[2]);
    } else if (m[3]) out.push(h('span', { class: 'j-lit' }, m[3]));
    else out.push(h('span', { class: 'j-num' }, m[4]));
    at = m.index + m[0].length;
  }
  out.push(text.slice(at));
  return out;
}

function curlSection(r) {
  if (r.kind !== 'exchange') return null;
  const reveal = h('input', { type: 'checkbox', testid: 'curl-secrets' });
  const button = h('button', { type: 'button', testid: 'copy-curl' }, 'Copy as curl');
  const preview = h('pre', { class: 'curl', testid: 'curl-preview' });
  const render = () => (preview.textContent = curl(r, reveal.checked));
  reveal.addEventListener('change', render);
  button.addEventListener('click', async () => {
    const done = await copy(curl(r, reveal.checked));
    button.textContent = done ? 'Copied' : 'Copy failed';
    setTimeout(() => (button.textContent = 'Copy as curl'), 1200);
  });
  render();
  return h('div', { class: 'detail-section' },
    h('div', { class: 'actions' }, button,
      h('label', { class: 'check', title: 'Authorization, cookies, API keys, OAuth codes and secrets' }, reveal, 'Include secrets')),
    h('details', {}, h('summary', {}, 'Show the command'), preview));
}

/** The exchange's request as a curl command; secrets masked unless `secrets`. */
export function curl(r, secrets) {
  const proto = header(r.requestHeaders, 'x-forwarded-proto') === 'https' ? 'https' : 'http';
  const host = header(r.requestHeaders, 'host') ?? 'localhost';
  const query = r.query ? `?${secrets ? r.query : maskForm(r.query)}` : '';
  const lines = [`curl -X ${r.method} ${quote(`${proto}://${host}${r.path}${query}`)}`];
  for (const [name, value] of r.requestHeaders) {
    if (CURL_SKIPS.has(name)) continue;
    const shown = !secrets && SECRET_HEADERS.has(name) ? maskHeader(name, value) : value;
    lines.push(`-H ${quote(`${name}: ${shown}`)}`);
  }
  if (r.requestBody !== undefined) {
    let body = typeof r.requestBody === 'string' ? r.requestBody : JSON.stringify(r.requestBody);
    const type = header(r.requestHeaders, 'content-type') ?? '';
    if (!secrets && type.startsWith('application/x-www-form-urlencoded')) body = maskForm(body);
    lines.push(`--data-raw ${quote(body)}`);
  }
  return lines.join(' \\\n  ');
}

/** `Bearer abc` keeps its scheme: what kind of credential it was is not the secret. A cookie
 * or an API key is masked whole. (The HAR export, logs/har.rs, masks the same way.) */
function maskHeader(name, value) {
  const space = value.indexOf(' ');
  return name.endsWith('authorization') && space > 0 ? `${value.slice(0, space)} ${MASK}` : MASK;
}

function maskForm(text) {
  return text
    .split('&')
    .map((pair) => {
      const [name] = pair.split('=');
      let field = name;
      try {
        field = decodeURIComponent(name.replaceAll('+', ' '));
      } catch {
        // A malformed escape is not one of the secret names anyway.
      }
      return SECRET_FIELDS.has(field) ? `${name}=${MASK}` : pair;
    })
    .join('&');
}

/** One shell word in single quotes. */
function quote(text) {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
