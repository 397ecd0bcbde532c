// Building the page without innerHTML: every text from the API (names, headers, bodies) is
// set as text, so nothing a client sends can become markup. The page's CSP forbids inline
// styles and scripts, so these helpers never write a `style` attribute either.

/** Properties set as DOM properties, not attributes. */
const PROPERTIES = new Set(['value', 'checked', 'disabled', 'hidden', 'selected', 'indeterminate']);

/**
 * An element: `h('button', { testid: 'save', on: { click } }, 'Save')`.
 * `class`, `text`, `testid`, `data` (dataset) and `on` (listeners) are shorthands; `false`,
 * `null` and `undefined` leave a property out; children may be strings, nodes, arrays or null.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key === 'testid') el.dataset.testid = value;
    else if (key === 'data') Object.assign(el.dataset, value);
    else if (key === 'on') {
      for (const [event, handler] of Object.entries(value)) el.addEventListener(event, handler);
    } else if (PROPERTIES.has(key)) el[key] = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Appends children as `h` takes them. */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replaces an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** Sets a text only when it differs, so a poll that changes nothing touches nothing. */
export function setText(el, text) {
  const value = String(text);
  if (el.textContent !== value) el.textContent = value;
}

/**
 * Brings the keyed rows under `parent` in line with `items`, in order. `make(key)` returns
 * `{ el, fill(item) }`; a row that stays keeps its element, so a poll never replaces what
 * someone is about to click.
 */
export function reconcile(rows, parent, items, key, make) {
  const keys = new Set(items.map(key));
  for (const [k, row] of rows) {
    if (!keys.has(k)) {
      row.el.remove();
      rows.delete(k);
    }
  }
  items.forEach((item, index) => {
    const k = key(item);
    let row = rows.get(k);
    if (!row) {
      row = make(k);
      rows.set(k, row);
    }
    row.fill(item);
    if (parent.children[index] !== row.el) parent.insertBefore(row.el, parent.children[index] ?? null);
  });
}

/** Copies text; the Clipboard API needs a secure context, which localhost is. */
export async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // Some browsers refuse without a user gesture they recognise; fall back to a selection.
    const area = h('textarea', { class: 'offscreen', readonly: true, value: text });
    document.body.append(area);
    area.select();
    const done = document.execCommand('copy');
    area.remove();
    return done;
  }
}

/** A button that copies what `text()` returns and says so for a moment. */
export function copyButton(text, testid, label = 'Copy') {
  const button = h('button', { type: 'button', class: 'copy', testid, title: 'Copy to the clipboard' }, label);
  button.addEventListener('click', async () => {
    const done = await copy(typeof text === 'function' ? text() : text);
    button.textContent = done ? 'Copied' : 'Copy failed';
    button.dataset.copied = done ? 'true' : 'false';
    setTimeout(() => {
      button.textContent = label;
      delete button.dataset.copied;
    }, 1200);
  });
  return button;
}

/** Calls `fn` once `ms` pass without another call. */
export function debounce(fn, ms) {
  let timer;
  const wrapped = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  wrapped.cancel = () => clearTimeout(timer);
  return wrapped;
}

/** `1 entry`, `2 entries`. */
export function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

/** A local time with milliseconds, `14:03:07.042`. */
export function clock(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n, width = 2) => String(n).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** A date and time for people, in the local zone. */
export function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

/** Whether a key press happened while typing, so shortcuts must leave it alone. */
export function typing(event) {
  const target = event.target;
  if (!(target instanceof Element)) return false;
  if (target.closest('textarea, select, [contenteditable="true"]')) return true;
  const input = target.closest('input');
  return input !== null && !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(input.type);
}
