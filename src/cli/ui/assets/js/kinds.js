// The four kinds of catalog item and their forms (product guide, "Define a tool"; the REST
// API's tools, resources, resource-templates and prompts). catalog.js knows no kind: it lists
// and edits whatever a kind here describes.
//
// A field is `{ name, label, type, hint, rows, optional }`; `type` is `text` (an input;
// `optional`: empty clears it), `textarea` (optional text), `json`, `template` (JSON checked
// live), `hints` (the tool annotation checkboxes) or `body` (a resource's text or base64
// blob). Members the form does not show
// (a tool's script, responses, output schema, ...) are never sent, so a save keeps them.

/** The default template of a new tool: the arguments as JSON text (product guide). */
const TOOL_TEMPLATE = { content: [{ type: 'text', text: { $json: { $eval: 'args' } } }] };

const NAME_HINT = '1-128 letters, digits, underscores, dashes, or dots; unique on the server.';

export const KINDS = {
  tools: {
    id: 'tools',
    one: 'tool',
    label: 'Tools',
    noun: 'tool',
    owner: 'tool',
    key: (item) => item.name,
    blank: () => ({
      name: '',
      inputSchema: { type: 'object', properties: {} },
      template: TOOL_TEMPLATE,
      published: false,
    }),
    caption: (item) => item.title ?? item.description ?? '',
    fields: [
      { name: 'name', label: 'Name', type: 'text', hint: NAME_HINT },
      { name: 'title', label: 'Title', type: 'text', optional: true, hint: 'An optional display name.' },
      {
        name: 'description',
        label: 'Description',
        type: 'textarea',
        rows: 2,
        hint: 'What clients, and the models behind them, read to decide when to call the tool.',
      },
      {
        name: 'inputSchema',
        label: 'Input schema',
        type: 'json',
        rows: 7,
        hint: 'A JSON Schema with "type": "object". Call arguments are not validated against it.',
      },
      { name: 'annotations', label: 'Annotations', type: 'hints', options: ['readOnlyHint', 'destructiveHint', 'openWorldHint'] },
      {
        name: 'template',
        label: 'Response template',
        type: 'template',
        rows: 10,
        hint: 'json-e, rendered on every tools/call with `args`, the call\'s arguments; the output must be a CallToolResult.',
      },
      {
        name: 'responses',
        label: 'Responses (optional)',
        type: 'json',
        rows: 5,
        hint: 'A JSON array of responses tried in order before the template: {"when": matcher, "times": n, "result": template, "fault": ..., "delay": ...}. Errors name the entry, such as responses[0].when.',
      },
    ],
  },
  resources: {
    id: 'resources',
    one: 'resource',
    label: 'Resources',
    noun: 'resource',
    key: (item) => item.uri,
    blank: () => ({ uri: '', name: '', text: '', published: false }),
    caption: (item) => item.name,
    fields: [
      { name: 'uri', label: 'URI', type: 'text', hint: 'Unique on the server, such as memo://readme.' },
      { name: 'name', label: 'Name', type: 'text' },
      { name: 'title', label: 'Title', type: 'text', optional: true },
      { name: 'description', label: 'Description', type: 'textarea', rows: 2 },
      { name: 'mimeType', label: 'MIME type', type: 'text', optional: true, hint: 'Such as text/plain.' },
      { name: 'body', label: 'Contents', type: 'body', rows: 8 },
    ],
  },
  'resource-templates': {
    id: 'resource-templates',
    one: 'resource-template',
    label: 'Resource templates',
    noun: 'resource template',
    owner: 'resourceTemplate',
    key: (item) => item.uriTemplate,
    blank: () => ({ uriTemplate: '', name: '', template: { text: '${uri}' }, published: false }),
    caption: (item) => item.name,
    fields: [
      { name: 'uriTemplate', label: 'URI template', type: 'text', hint: 'RFC 6570, such as memo://notes/{id}.' },
      { name: 'name', label: 'Name', type: 'text' },
      { name: 'title', label: 'Title', type: 'text', optional: true },
      { name: 'description', label: 'Description', type: 'textarea', rows: 2 },
      { name: 'mimeType', label: 'MIME type', type: 'text', optional: true },
      {
        name: 'template',
        label: 'Contents template',
        type: 'template',
        rows: 8,
        hint: 'json-e over `uri` and `vars` (the URI template\'s variables): a {"text": ...} or {"blob": ...} object, or an array of them.',
      },
    ],
  },
  prompts: {
    id: 'prompts',
    one: 'prompt',
    label: 'Prompts',
    noun: 'prompt',
    owner: 'prompt',
    key: (item) => item.name,
    blank: () => ({
      name: '',
      arguments: [],
      template: [{ role: 'user', content: { type: 'text', text: { $json: { $eval: 'args' } } } }],
      published: false,
    }),
    caption: (item) => item.title ?? item.description ?? '',
    fields: [
      { name: 'name', label: 'Name', type: 'text' },
      { name: 'title', label: 'Title', type: 'text', optional: true },
      { name: 'description', label: 'Description', type: 'textarea', rows: 2 },
      {
        name: 'arguments',
        label: 'Arguments',
        type: 'json',
        rows: 5,
        hint: 'An array of {"name", "description", "required"} objects.',
      },
      {
        name: 'template',
        label: 'Messages template',
        type: 'template',
        rows: 8,
        hint: 'json-e over `args`: an array of prompt messages.',
      },
    ],
  },
};
