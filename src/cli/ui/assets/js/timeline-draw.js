// The Timeline's picture: a time axis over the whole session (how busy each moment was,
// faults in red, the part in view outlined; a click jumps there), the client and server
// lanes, and one row per arrow. Rows are virtualized as in the log list: only those in view
// and a margin are in the page, so a session of ten thousand messages costs what forty do.
// SVG attributes and element positions are set from here; the page's CSP allows no inline
// style in HTML, and app.css has the rest.

import { h, setText } from './dom.js';
import { seconds } from './timeline-model.js';

/** Every row is this tall (app.css `.tl-row` agrees). */
export const ROW_HEIGHT = 30;
/** Rows rendered beyond each edge of the view. */
const MARGIN = 20;
/** Where the lanes are, from the diagram's edges (app.css places the lane heads there). */
const LANE_INSET = 90;
const AXIS_HEIGHT = 34;
const NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) el.setAttribute(key, String(value));
  }
  for (const child of children) el.append(child);
  return el;
}

export class TimelineView {
  /** `onOpen(id)` when a row is clicked (the log entry behind it). */
  constructor({ onOpen }) {
    this.rows = [];
    this.shown = new Map();
    this.frame = 0;
    this.width = 0;
    this.clientName = 'Client';
    this.axis = svg('svg', { class: 'tl-axis', 'data-testid': 'timeline-axis', height: AXIS_HEIGHT, role: 'img' });
    this.clientHead = h('span', { class: 'tl-lane-head', testid: 'timeline-client' }, 'Client');
    this.serverHead = h('span', { class: 'tl-lane-head', testid: 'timeline-server' }, 'Server');
    this.lanes = h('span', { class: 'tl-diagram tl-head-lanes' }, this.clientHead, this.serverHead);
    this.canvas = h('div', { class: 'tl-canvas' });
    this.empty = h('p', { class: 'empty tl-empty' }, 'No messages in this session yet.');
    this.scroller = h('div', { class: 'tl-scroll', tabindex: '0', testid: 'timeline-scroll' }, this.canvas, this.empty);
    this.el = h('div', { class: 'tl-view' },
      this.axis,
      h('div', { class: 'tl-heads tl-cols' }, h('span', { class: 'tl-time' }, 'Time'),
        this.lanes, h('span', { class: 'tl-note' }, 'Carrier, timing, faults')),
      this.scroller);
    this.scroller.addEventListener('scroll', () => this.schedule());
    this.canvas.addEventListener('click', (event) => {
      const el = event.target.closest('.tl-row');
      if (el?.dataset.id) onOpen(Number(el.dataset.id));
    });
    this.axis.addEventListener('click', (event) => this.jump(event));
    this.resize = new ResizeObserver(() => {
      this.width = 0;
      this.schedule();
    });
    this.resize.observe(this.scroller);
  }

  /** The rows to draw, in time order; `client` names the client lane. */
  set(rows, client) {
    const grew = rows.length > this.rows.length && this.atEnd();
    this.rows = rows;
    this.clientName = client ? `Client · ${client.name}${client.version ? ` ${client.version}` : ''}` : 'Client';
    setText(this.clientHead, this.clientName);
    this.clientHead.title = this.clientName;
    // Following the session as it grows, like a terminal, unless the reader scrolled up.
    if (grew) this.follow = true;
    this.dirty = true;
    this.schedule();
  }

  /** Shows the newest rows (the end of the session). */
  toEnd() {
    this.follow = true;
    this.schedule();
  }

  atEnd() {
    const s = this.scroller;
    return s.scrollTop + s.clientHeight >= s.scrollHeight - ROW_HEIGHT;
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
    const total = this.rows.length;
    this.canvas.style.height = `${total * ROW_HEIGHT}px`;
    this.empty.hidden = total > 0;
    if (this.follow) {
      this.scroller.scrollTop = this.scroller.scrollHeight;
      this.follow = false;
    }
    // The header's diagram cell has the rows' width (the same grid column).
    const measured = Math.max(240, this.lanes.clientWidth);
    if (measured !== this.width) {
      this.width = measured;
      this.dirty = true;
    }
    if (this.dirty) {
      // Every shown row is drawn again: rows are rebuilt when the session changes.
      for (const shown of this.shown.values()) shown.row = null;
      this.drawAxis();
      this.dirty = false;
    }
    const top = this.scroller.scrollTop;
    const height = this.scroller.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - MARGIN);
    const last = Math.min(total, Math.ceil((top + height) / ROW_HEIGHT) + MARGIN);
    const keep = new Set();
    let previous = null;
    for (let index = first; index < last; index++) {
      const row = this.rows[index];
      keep.add(index);
      let shown = this.shown.get(index);
      if (!shown) {
        shown = { el: h('div', { class: 'tl-row tl-cols', testid: 'timeline-row' }), row: null };
        shown.el.style.top = `${index * ROW_HEIGHT}px`;
        this.shown.set(index, shown);
      }
      const expected = previous ? previous.nextSibling : this.canvas.firstChild;
      if (expected !== shown.el) this.canvas.insertBefore(shown.el, expected);
      previous = shown.el;
      if (shown.row !== row) {
        this.fill(shown.el, row);
        shown.row = row;
      }
    }
    for (const [index, shown] of this.shown) {
      if (!keep.has(index)) {
        shown.el.remove();
        this.shown.delete(index);
      }
    }
    this.drawWindow(Math.floor(top / ROW_HEIGHT), Math.ceil((top + height) / ROW_HEIGHT));
  }

  fill(el, row) {
    const start = this.rows[0]?.t ?? row.t;
    const data = { kind: row.kind, tone: row.tone, method: row.method ?? '', id: row.id === null ? '' : String(row.id) };
    if (row.kind !== 'gap') data.direction = `${row.from}-to-${row.to}`;
    if (row.fault) data.fault = row.fault;
    if (row.relisted !== undefined) data.relisted = String(row.relisted);
    for (const key of Object.keys(el.dataset)) if (key !== 'testid' && !(key in data)) delete el.dataset[key];
    Object.assign(el.dataset, data);
    el.title = row.id === null ? '' : `${new Date(row.t).toLocaleTimeString()} · open log entry #${row.id}`;
    el.replaceChildren(
      h('span', { class: 'tl-time' }, row.kind === 'gap' ? '' : `+${((row.t - start) / 1000).toFixed(3)} s`),
      h('span', { class: 'tl-diagram' }, this.arrow(row)),
      h('span', { class: 'tl-note', title: row.note }, row.note));
  }

  /** One row's lanes and arrow, `this.width` wide. */
  arrow(row) {
    const w = this.width;
    const client = LANE_INSET;
    const server = w - LANE_INSET;
    const lanes = row.kind === 'gap'
      ? [svg('line', { x1: client, y1: 0, x2: client, y2: ROW_HEIGHT, class: 'tl-lane tl-lane-gap' }),
        svg('line', { x1: server, y1: 0, x2: server, y2: ROW_HEIGHT, class: 'tl-lane tl-lane-gap' })]
      : [svg('line', { x1: client, y1: 0, x2: client, y2: ROW_HEIGHT, class: 'tl-lane' }),
        svg('line', { x1: server, y1: 0, x2: server, y2: ROW_HEIGHT, class: 'tl-lane' })];
    const picture = svg('svg', { width: w, height: ROW_HEIGHT, viewBox: `0 0 ${w} ${ROW_HEIGHT}`, 'aria-hidden': 'true' }, ...lanes);
    const y = 21;
    const text = row.fault ? `⚡ ${row.label}` : row.label;
    const label = (x, anchor) => svg('text', { x, y: 13, 'text-anchor': anchor, class: 'tl-label' }, text);
    if (row.kind === 'gap') {
      picture.append(label(w / 2, 'middle'));
      return picture;
    }
    const x1 = row.from === 'client' ? client : server;
    const x2 = row.to === 'client' ? client : server;
    if (row.kind === 'ended') {
      // Nothing came back: a cross where the answer would start.
      const x = row.from === 'client' ? server - 14 : client + 14;
      picture.append(svg('path', { d: `M${x - 5} ${y - 5} L${x + 5} ${y + 5} M${x + 5} ${y - 5} L${x - 5} ${y + 5}`, class: 'tl-line' }),
        label(w / 2, 'middle'));
      return picture;
    }
    const dir = Math.sign(x2 - x1);
    const tip = x2 - dir * 2;
    const line = svg('line', { x1: x1 + dir * 2, y1: y, x2: tip - dir * 7, y2: y, class: 'tl-line' });
    picture.append(line);
    if (row.kind === 'stream-end') {
      // The stream stops: a bar on the client's lane instead of a head.
      picture.append(svg('line', { x1: tip, y1: y - 6, x2: tip, y2: y + 6, class: 'tl-line tl-end' }));
      line.setAttribute('x2', tip);
    } else {
      picture.append(svg('path', { d: `M${tip} ${y} L${tip - dir * 8} ${y - 4.5} L${tip - dir * 8} ${y + 4.5} Z`, class: 'tl-head' }));
    }
    picture.append(label(w / 2, 'middle'));
    return picture;
  }

  /** The axis: ticks over the session's span, a bar per busy moment, faults in red. */
  drawAxis() {
    const w = this.axis.clientWidth || this.el.clientWidth || 800;
    this.axis.setAttribute('viewBox', `0 0 ${w} ${AXIS_HEIGHT}`);
    this.axis.replaceChildren();
    const timed = this.rows.filter((r) => r.kind !== 'gap');
    if (timed.length === 0) return;
    const t0 = timed[0].t;
    const span = Math.max(1, timed[timed.length - 1].t - t0);
    const x = (t) => 8 + ((t - t0) / span) * (w - 16);
    this.axisScale = { t0, span, w };
    this.axis.append(svg('line', { x1: 8, y1: 22, x2: w - 8, y2: 22, class: 'tl-axis-line' }));
    const step = niceStep(span / Math.max(1, Math.floor(w / 110)));
    for (let t = 0; t <= span + 1e-9; t += step) {
      this.axis.append(svg('line', { x1: x(t0 + t), y1: 22, x2: x(t0 + t), y2: 26, class: 'tl-axis-line' }),
        svg('text', { x: x(t0 + t), y: 33, 'text-anchor': t === 0 ? 'start' : 'middle', class: 'tl-axis-text' }, `+${seconds(t)}`));
    }
    // One bucket per 3 pixels: the axis stays a few hundred elements, whatever the session.
    const buckets = Math.max(1, Math.floor((w - 16) / 3));
    const counts = new Array(buckets).fill(0);
    const bad = new Array(buckets).fill(false);
    for (const r of timed) {
      const b = Math.min(buckets - 1, Math.floor(((r.t - t0) / span) * buckets));
      counts[b]++;
      if (r.tone === 'bad' || r.tone === 'fault' || r.tone === 'warn') bad[b] = true;
    }
    const most = Math.max(...counts);
    counts.forEach((n, b) => {
      if (n === 0) return;
      const barHeight = 3 + Math.round((n / most) * 15);
      this.axis.append(svg('rect', { x: 8 + b * 3, y: 21 - barHeight, width: 2, height: barHeight, class: bad[b] ? 'tl-bar tl-bar-bad' : 'tl-bar' }));
    });
    this.window = svg('rect', { y: 1, height: 22, class: 'tl-window' });
    this.axis.append(this.window);
  }

  /** Outlines on the axis the rows from `first` to `last` (indexes) that are in view. */
  drawWindow(first, last) {
    if (!this.window || !this.axisScale || this.rows.length === 0) return;
    const { t0, span, w } = this.axisScale;
    const from = this.rows[Math.min(first, this.rows.length - 1)].t;
    const to = this.rows[Math.max(0, Math.min(last, this.rows.length) - 1)].t;
    const x1 = 8 + ((from - t0) / span) * (w - 16);
    const x2 = 8 + ((to - t0) / span) * (w - 16);
    this.window.setAttribute('x', String(Math.max(0, x1 - 2)));
    this.window.setAttribute('width', String(Math.max(4, x2 - x1 + 4)));
  }

  /** A click on the axis scrolls to the first row at or after that moment. */
  jump(event) {
    if (!this.axisScale) return;
    const { t0, span, w } = this.axisScale;
    const box = this.axis.getBoundingClientRect();
    const t = t0 + (((event.clientX - box.left) / box.width) * w - 8) / (w - 16) * span;
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.rows[mid].t < t) lo = mid + 1;
      else hi = mid;
    }
    this.scroller.scrollTop = Math.max(0, lo * ROW_HEIGHT - this.scroller.clientHeight / 3);
  }
}

/** 1, 2 or 5 times a power of ten, in ms, at least `raw`. */
function niceStep(raw) {
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}
