// One catalog tab (tools, resources, resource templates, prompts): the list and the editor
// (product guide, "Define a tool"). An item is a draft or published: Save draft and Publish
// on a draft, Save changes and Unpublish on a published one. Every kind works so; a new one
// starts as a draft here, though the API's own default is published for all but tools.
//
// The list follows edits made through the API by anyone else (polled every second). An
// open editor takes those edits only while it has no unsaved changes of its own; otherwise
// it says the item changed and offers to reload it.

import { api, seg, serverPath } from './api.js';
import { h, reconcile, replace, setText } from './dom.js';
import { clearProblem, showProblem } from './editor.js';
import { itemForm } from './item-form.js';
import { KINDS } from './kinds.js';
import { poll, writeGuard } from './poll.js';

export function mountCatalog(root, route) {
  const kind = KINDS[route.tab];
  const base = `${serverPath(route.server)}/${kind.id}`;
  const link = (key) => `#/servers/${seg(route.server)}/${kind.id}${key === null ? '' : `/${seg(key)}`}`;
  const rows = new Map();
  const list = h('ul', { class: 'items', testid: `${kind.one}-list` });
  const empty = h('p', { class: 'empty', hidden: true }, `No ${kind.noun}s yet.`);
  const banner = h('p', { class: 'error-banner', role: 'alert', hidden: true });
  const notice = h('div', { class: 'notice', role: 'status', hidden: true });
  const pane = h('div', { class: 'editor-pane' });
  const editor = itemForm(kind);
  editor.form.addEventListener('submit', (event) => event.preventDefault());

  const writes = writeGuard();
  let items = [];
  // The item the editor shows as the API last gave it; null for a new, unsaved one.
  let current = null;
  let open = false;
  let wanted = route.item;

  const placeholder = () =>
    replace(pane, h('div', { class: 'placeholder' }, h('p', {}, `Select a ${kind.noun}, or click New ${kind.noun}.`)));

  const refresh = async () => {
    const ticket = writes.ticket();
    try {
      const fresh = await api.get(base);
      if (writes.stale(ticket)) return;
      items = fresh;
      banner.hidden = true;
    } catch (problem) {
      setText(banner, problem.detail);
      banner.hidden = false;
      return;
    }
    reconcile(rows, list, items, kind.key, makeRow);
    empty.hidden = items.length > 0;
    if (wanted !== null) {
      const item = items.find((i) => kind.key(i) === wanted);
      wanted = null;
      if (item) show(item);
    } else if (open && current) followChanges();
    markSelected();
  };

  const makeRow = (key) => {
    const caption = h('small', {});
    const badge = h('span', { class: 'state', testid: `${kind.one}-state` });
    const li = h('li', { data: { [camel(kind.one)]: key } },
      h('a', { href: link(key) }, h('span', { class: 'item-name' }, key), badge, caption));
    return {
      el: li,
      fill(item) {
        setText(caption, kind.caption(item) ?? '');
        setText(badge, item.published ? 'published' : 'draft');
        badge.classList.toggle('published', Boolean(item.published));
      },
    };
  };

  const markSelected = () => {
    const key = open && current ? kind.key(current) : null;
    for (const [k, row] of rows) row.el.classList.toggle('selected', k === key);
  };

  // Someone else changed or deleted the open item.
  const followChanges = () => {
    const key = kind.key(current);
    const fresh = items.find((i) => kind.key(i) === key);
    if (!fresh) {
      showNotice(`This ${kind.noun} was deleted elsewhere. Saving creates it again.`, null);
      current = null;
      renderButtons();
      return;
    }
    if (JSON.stringify(fresh) === JSON.stringify(current)) return;
    if (!editor.dirty()) {
      show(fresh);
    } else {
      showNotice(`This ${kind.noun} was changed elsewhere.`, () => show(fresh));
    }
  };

  const showNotice = (text, reload) => {
    replace(notice, text, reload ? h('button', { type: 'button', testid: 'reload-item', on: { click: reload } }, 'Load their version') : null);
    notice.hidden = false;
  };

  const show = (item) => {
    current = item;
    open = true;
    notice.hidden = true;
    clearProblem(editor.form);
    editor.load(item ?? kind.blank());
    // Moving the form would take the focus out of the field the user is in.
    if (editor.form.parentNode !== pane) replace(pane, notice, editor.form);
    renderButtons();
    markSelected();
  };

  // Rebuilt only when the item's state changes, so a button stays the same element while
  // the item is edited and saved.
  let shape = null;
  const renderButtons = () => {
    const published = Boolean(current?.published);
    setText(editor.title, current ? kind.key(current) : `New ${kind.noun}`);
    const next = `${current ? 'saved' : 'new'} ${published}`;
    if (next === shape) return;
    shape = next;
    const buttons = [];
    const button = (testid, label, action, primary = false) =>
      h('button', { type: 'button', testid, class: primary ? 'primary' : null, on: { click: () => run(action) } }, label);
    setText(editor.state, current ? (published ? 'Published: clients list it.' : 'Draft: clients don\'t see it.') : `New ${kind.noun}s start as drafts.`);
    editor.state.classList.toggle('published', published);
    if (published) {
      buttons.push(button('save-changes', 'Save changes', () => save({}), true));
      buttons.push(button('unpublish', 'Unpublish', () => save({ published: false }, true)));
    } else {
      buttons.push(button('save-draft', 'Save draft', () => save({ published: false })));
      buttons.push(button('publish', `Publish ${kind.noun}`, () => save({ published: true }), true));
    }
    if (current) buttons.push(h('span', { class: 'spacer' }), button(`delete-${kind.one}`, 'Delete', remove));
    replace(editor.actions, buttons);
  };

  // One action at a time: the buttons wait for the API's answer.
  const run = async (action) => {
    for (const b of editor.actions.querySelectorAll('button')) b.disabled = true;
    clearProblem(editor.form);
    try {
      await action();
    } catch (problem) {
      showProblem(editor.form, problem);
    } finally {
      for (const b of editor.actions.querySelectorAll('button')) b.disabled = false;
    }
  };

  // `extra` joins the form's members (`published`). `only` sends it alone: Unpublish hides
  // the tool as it is saved and leaves any unsaved edits in the form, still unsaved.
  const save = async (extra, only = false) => {
    const body = only ? extra : { ...editor.body(current), ...extra };
    const saved = await writes.around(current
      ? api.patch(`${base}/${seg(kind.key(current))}`, body)
      : api.post(base, body));
    if (only && editor.dirty()) {
      current = saved;
      renderButtons();
    } else {
      show(saved);
    }
    if (location.hash !== link(kind.key(saved))) location.hash = link(kind.key(saved));
    await refresh();
  };

  const remove = async () => {
    await writes.around(api.del(`${base}/${seg(kind.key(current))}`));
    current = null;
    open = false;
    placeholder();
    location.hash = link(null);
    await refresh();
  };

  const newItem = () => {
    if (location.hash !== link(null)) location.hash = link(null);
    show(null);
    editor.form.querySelector('input, textarea')?.focus();
  };

  replace(
    root,
    h('div', { class: 'catalog' },
      h('aside', { class: 'card list-pane' },
        h('div', { class: 'pane-head' },
          h('h2', {}, kind.label),
          h('button', { type: 'button', class: 'primary', testid: `new-${kind.one}`, on: { click: newItem } }, `New ${kind.noun}`)),
        banner, list, empty),
      pane),
  );
  placeholder();
  const stop = poll(refresh, 1000);

  return {
    update(next) {
      const key = next.item;
      if (key === null) return;
      if (open && current && kind.key(current) === key) return;
      const item = items.find((i) => kind.key(i) === key);
      if (item) show(item);
      else {
        wanted = key;
        refresh();
      }
    },
    destroy() {
      stop();
      editor.stop();
    },
  };
}

/** `resource-template` → `resourceTemplate`, the dataset name of `data-resource-template`. */
function camel(text) {
  return text.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
}
