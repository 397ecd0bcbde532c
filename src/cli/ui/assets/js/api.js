// The page's only door to MCP Decoy: the public REST API under /api/v1, as any other client
// calls it. Writes send `Content-Type: application/json`, which the API's guard requires;
// errors arrive as RFC 9457 problem details and are thrown as a `Problem` whose `detail` the
// forms show verbatim, next to the `field` it names.

const BASE = '/api/v1';

/** An answer that is not a success: the API's problem, or a network failure (status 0). */
export class Problem extends Error {
  constructor(status, detail, field = null) {
    super(detail);
    this.status = status;
    this.detail = detail;
    this.field = field;
  }
}

async function request(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(BASE + path, init);
  } catch (error) {
    throw new Problem(0, `MCP Decoy does not answer (${error.message}). Is it still running?`);
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const detail = data && typeof data.detail === 'string' ? data.detail : text || response.statusText;
    throw new Problem(response.status, detail, data && typeof data.field === 'string' ? data.field : null);
  }
  return data;
}

export const api = {
  get: (path) => request('GET', path),
  post: (path, body) => request('POST', path, body),
  patch: (path, body) => request('PATCH', path, body),
  del: (path) => request('DELETE', path),
};

/** One path segment: a name, a resource URI or a URI template, percent-encoded whole. */
export const seg = encodeURIComponent;

/** `/servers/NAME`, the prefix of every route of one server. */
export function serverPath(name) {
  return `/servers/${seg(name)}`;
}

/** The URL of an API path, for links and event streams. */
export function apiUrl(path) {
  return BASE + path;
}
