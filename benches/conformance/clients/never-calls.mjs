// A client broken on purpose: it initializes properly and lists tools, but calls none.
const url = process.argv.at(-1);
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const post = async (body, extra = {}) => {
  const response = await fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
  await response.text();
  return response;
};
const init = await post({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'never-calls', version: '1.0.0' } },
});
const session = init.headers.get('mcp-session-id');
const more = session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : { 'mcp-protocol-version': '2025-11-25' };
await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, more);
await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, more);
