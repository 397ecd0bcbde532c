// A client broken on purpose: its `initialize` names no clientInfo.version, then it exits.
const url = process.argv.at(-1);
const response = await fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'no-client-version' } },
  }),
});
await response.text();
