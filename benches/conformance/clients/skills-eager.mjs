// A host broken on purpose: it lists the skills, then reads every file of every skill at
// once, verifying nothing (it prefetches, and it uses tampered files).
const url = process.argv.at(-1);
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const post = async (body, extra = {}) => {
  const response = await fetch(url, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
  const text = await response.text();
  return { response, text };
};
const json = (text) => {
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  return JSON.parse(data ? data.slice(6) : text);
};
const init = await post({
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'skills-eager', version: '1.0.0' } },
});
const session = init.response.headers.get('mcp-session-id');
const more = { 'mcp-protocol-version': '2025-11-25', ...(session ? { 'mcp-session-id': session } : {}) };
await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, more);
const listed = json((await post({ jsonrpc: '2.0', id: 2, method: 'skills/list', params: {} }, more)).text);
let id = 3;
for (const skill of listed.result?.skills ?? []) {
  for (const file of skill.resources ?? []) {
    await post({ jsonrpc: '2.0', id: id++, method: 'resources/read', params: { uri: file.uri } }, more);
  }
}
