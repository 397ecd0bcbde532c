// The log list, newest at the top, virtualized: only the rows in view (and a margin) are in
// the page, each at its place in a canvas as tall as the whole list, so ten thousand entries
// cost what forty do. A row that stays in view keeps its element, and is rewritten only when
// its entry changed (rows are replaced, never mutated, so a changed row is a new object).

import { h, setText } from './dom.js';

/** Every row is this tall (app.css `.log-row` agrees). */
export const ROW_HEIGHT = 30;
/** Rows rendered beyond each edge of the view. */
const MARGIN = 15;
const COLUMNS = ['Time', 'Layer', 'Kind', 'Name', 'Status', 'Summary', 'Session', 'Duration'];

export class LogList {
  /** `onSelect(id)` on a click; `onNearEnd()` when the view nears the oldest loaded row. */
  constructor({ onSelect, onNearEnd }) {
    this.ids = [];
    this.rows = new Map();
    this.shown = new Map();
    this.selected = null;
    this.frame = 0;
    this.onNearEnd = onNearEnd;
    this.canvas = h('div', { class: 'log-canvas' });
    this.empty = h('p', { class: 'empty log-empty' }, 'No entries yet. Connect a client to this server and its traffic shows here.');
    this.scroller = h('div', { class: 'log-scroll', tabindex: '0', testid: 'log-scroll' }, this.canvas, this.empty);
    this.el = h('div', { class: 'log-list', role: 'grid', 'aria-label': 'Log entries', 'aria-rowcount': '0' },
      h('div', { class: 'log-head log-cols', role: 'row' }, COLUMNS.map((c) => h('span', { role: 'columnheader', class: `col-${c.toLowerCase()}` }, c))),
      this.scroller);
    this.scroller.addEventListener('scroll', () => this.schedule());
    this.canvas.addEventListener('click', (event) => {
      const el = event.target.closest('.log-row');
      if (el) onSelect(Number(el.dataset.id));
    });
    this.resize = new ResizeObserver(() => this.schedule());
    this.resize.observe(this.scroller);
  }

  /** The rows to show: `ids` newest first, `rows` by id. */
  set(ids, rows) {
    this.ids = ids;
    this.rows = rows;
    this.schedule();
  }

  /** `count` rows arrived above the view: keep what the reader looks at where it is. */
  shifted(count) {
    if (count > 0 && this.scroller.scrollTop > 0) this.scroller.scrollTop += count * ROW_HEIGHT;
  }

  select(id) {
    this.selected = id;
    this.schedule();
  }

  /** Scrolls just enough to show the row of `id`. */
  reveal(id) {
    const index = this.ids.indexOf(id);
    if (index < 0) return;
    const top = index * ROW_HEIGHT;
    const view = this.scroller;
    if (top < view.scrollTop) view.scrollTop = top;
    else if (top + ROW_HEIGHT > view.scrollTop + view.clientHeight) view.scrollTop = top + ROW_HEIGHT - view.clientHeight;
    this.schedule();
  }

  schedule() {
    if (!this.frame) {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.render();
      });
    }
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.resize.disconnect();
  }

  render() {
    const total = this.ids.length;
    this.canvas.style.height = `${total * ROW_HEIGHT}px`;
    this.empty.hidden = total > 0;
    this.el.setAttribute('aria-rowcount', String(total));
    const top = this.scroller.scrollTop;
    const height = this.scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - MARGIN);
    const last = Math.min(total, Math.ceil((top + height) / ROW_HEIGHT) + MARGIN);
    const keep = new Set();
    // Document order follows the list's order too, so whatever reads the rows (a screen
    // reader, a test) meets the newest first. A row already in place is not moved.
    let previous = null;
    for (let index = first; index < last; index++) {
      const id = this.ids[index];
      const row = this.rows.get(id);
      if (!row) continue;
      keep.add(id);
      let shown = this.shown.get(id);
      if (!shown) {
        shown = { el: rowElement(), row: null, index: -1 };
        this.shown.set(id, shown);
      }
      const expected = previous ? previous.nextSibling : this.canvas.firstChild;
      if (expected !== shown.el) this.canvas.insertBefore(shown.el, expected);
      previous = shown.el;
      if (shown.row !== row) {
        fill(shown.el, row);
        shown.row = row;
      }
      if (shown.index !== index) {
        shown.el.style.top = `${index * ROW_HEIGHT}px`;
        shown.el.setAttribute('aria-rowindex', String(index + 1));
        shown.index = index;
      }
      const selected = id === this.selected;
      shown.el.classList.toggle('selected', selected);
      shown.el.setAttribute('aria-selected', String(selected));
    }
    for (const [id, shown] of this.shown) {
      if (!keep.has(id)) {
        shown.el.remove();
        this.shown.delete(id);
      }
    }
    if (total > 0 && last >= total - MARGIN) this.onNearEnd();
  }
}

function rowElement() {
  return h('div', { class: 'log-row log-cols', role: 'row', testid: 'log-row' },
    ...COLUMNS.map((c) => h('span', { role: 'gridcell', class: `col-${c.toLowerCase()}` })));
}

function fill(el, row) {
  el.dataset.id = String(row.id);
  el.dataset.layer = row.layer;
  el.dataset.name = row.name;
  el.dataset.tone = row.tone;
  const cells = el.children;
  setText(cells[0], row.time);
  setText(cells[1], row.layer);
  setText(cells[2], row.kind);
  setText(cells[3], row.name);
  setText(cells[4], row.status);
  setText(cells[5], row.summary);
  setText(cells[6], row.session ? row.session.slice(0, 8) : '');
  cells[6].title = row.session;
  cells[5].title = row.summary;
  setText(cells[7], row.duration);
}
