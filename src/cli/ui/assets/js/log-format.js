// What the log list shows of a record (product guide, "Read the logs": the time, the
// layer, the kind, the name, the status, a short summary, the session, and how long the
// exchange took). The list keeps only these rows, never whole records: a record's bodies
// can be kilobytes each, and the details fetch the one record they show.

import { clock } from './dom.js';

/** The row of a log record. */
export function row(record) {
  return record.layer === 'http' ? httpRow(record) : mcpRow(record);
}

function httpRow(r) {
  const session = header(r.requestHeaders, 'mcp-session-id') ?? header(r.responseHeaders, 'mcp-session-id');
  const end = r.kind === 'stream_end';
  return {
    id: r.id,
    time: clock(r.at),
    layer: 'http',
    kind: end ? 'stream end' : 'exchange',
    name: r.path,
    status: r.unanswered ? 'closed' : r.status === undefined ? '…' : String(r.status),
    tone: r.unanswered ? 'bad' : r.status === undefined ? 'pending' : r.status >= 400 ? 'bad' : 'good',
    summary: end ? `event stream of #${r.streamOf} ended` : httpSummary(r),
    session: session ?? '',
    duration: duration(r.durationMs),
    // A request still waiting for its response head changes in place later.
    pending: r.status === undefined && !r.unanswered,
  };
}

function httpSummary(r) {
  const parts = [`${r.method} ${r.path}${r.query ? `?${r.query}` : ''}`];
  const body = r.requestBody;
  if (Array.isArray(body)) parts.push(`batch of ${body.length}`);
  else if (body && typeof body === 'object' && typeof body.method === 'string') parts.push(body.method);
  const type = header(r.responseHeaders, 'content-type');
  if (type?.startsWith('text/event-stream')) parts.push('event stream');
  if (r.truncated) parts.push('(truncated)');
  return parts.join(' · ');
}

/** How a request that got no response ended, in words (`RequestEnd` in the capture). */
export function endWords(end) {
  return { cancelled_by_client: 'cancelled by the client', connection_closed: 'connection closed', ended_by_server: 'ended by the server' }[end] ?? end;
}

function mcpRow(r) {
  const response = r.response;
  let status = '';
  let tone = 'neutral';
  let pending = false;
  if (r.kind === 'request') {
    if (r.end && r.end !== 'answered') [status, tone] = [endWords(r.end), 'bad'];
    else if (!response) [status, tone, pending] = ['pending', 'pending', true];
    else if (response.error) [status, tone] = ['error', 'bad'];
    else if (response.result?.isError) [status, tone] = ['isError', 'bad'];
    else [status, tone] = ['ok', 'good'];
  } else if (r.kind === 'response') {
    [status, tone] = r.message?.error ? ['error', 'bad'] : ['ok', 'good'];
  } else if (r.kind === 'invalid') {
    [status, tone] = ['invalid', 'bad'];
  }
  const arrow = r.direction === 'server_to_client' ? '←' : '→';
  return {
    id: r.id,
    time: clock(r.at),
    layer: 'mcp',
    kind: `${arrow} ${r.kind}`,
    name: r.method ?? '',
    status,
    tone,
    summary: mcpSummary(r),
    session: r.session ?? '',
    duration: duration(r.durationMs),
    pending,
  };
}

function mcpSummary(r) {
  const parts = [];
  if (r.name) parts.push(r.name);
  const params = r.message?.params;
  if (r.method === 'tools/call' && params?.arguments !== undefined) parts.push(short(JSON.stringify(params.arguments), 60));
  const response = r.kind === 'response' ? r.message : r.response;
  if (response?.error) parts.push(`error ${response.error.code}: ${response.error.message}`);
  else if (response?.result) {
    const text = response.result.content?.find?.((c) => c?.type === 'text')?.text;
    if (typeof text === 'string') parts.push(`→ ${short(text, 80)}`);
    else if (r.method === 'initialize') {
      const info = response.result.serverInfo;
      if (info) parts.push(`→ ${info.name} ${info.version}, ${response.result.protocolVersion}`);
    } else if (Array.isArray(response.result.tools)) parts.push(`→ ${response.result.tools.length} tools`);
  }
  if (r.method === 'initialize' && params?.clientInfo) parts.unshift(`${params.clientInfo.name} ${params.clientInfo.version ?? ''}`.trim());
  if (r.kind === 'invalid') parts.push(short(typeof r.message === 'string' ? r.message : JSON.stringify(r.message), 80));
  if (r.fault) parts.push(`fault: ${r.fault}`);
  if (r.argumentErrors?.length) parts.push(`${r.argumentErrors.length} argument errors`);
  if (r.truncated) parts.push('(truncated)');
  return parts.join(' · ');
}

export function header(headers, name) {
  return headers?.find(([n]) => n.toLowerCase() === name)?.[1];
}

function short(text, max) {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function duration(ms) {
  if (ms === undefined || ms === null) return '';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
}
