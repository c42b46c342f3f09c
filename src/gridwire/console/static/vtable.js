// A table of many rows (9,000 points, 20,000 frames) of which only those in view exist:
// a spacer as tall as every row, and a few row elements moved over it as it scrolls. Rows
// are CSS grids laid out by the table's class (console.css); a row is filled by `fill(cells,
// item, row)` with textContent only, so rendering a screenful costs well under a
// millisecond. Renders come at most once an animation frame; the scroll position and height
// are kept from the scroll event and the ResizeObserver, so a render never forces a layout
// by reading them after the page wrote to the DOM (D145).

import { h } from "./dom.js";

const OVERSCAN = 6;

export class VirtualRows {
  constructor({ className, columns, fill, rowHeight = 24, onPick = null, actions = {} }) {
    this.columns = columns;
    this.fill = fill;
    this.rowHeight = rowHeight;
    this.onPick = onPick;
    this.actions = actions;
    this.items = [];
    this.pool = [];
    this.pending = false;
    this.dirty = false;
    this.timer = null; // a render asked for later (renderIn)
    this.timerAt = 0;
    this.top = 0; // the viewport's scrollTop, as the last scroll event or resize saw it
    this.height = 0; // its height, as the ResizeObserver last saw it
    this.picked = null;
    this.header = h("div", { class: "vrow vhead", role: "row" }, columns.map((c) => h("span", { role: "columnheader", class: c.cls ?? null }, c.title)));
    this.spacer = h("div", { class: "vspacer" });
    this.viewport = h("div", { class: "vviewport", tabindex: "0", role: "rowgroup" }, this.spacer);
    this.el = h("div", { class: `vtable ${className}`, role: "table" }, this.header, this.viewport);
    this.viewport.addEventListener("scroll", () => this.scrolled(), { passive: true });
    this.viewport.addEventListener("click", (event) => this.clicked(event));
    new ResizeObserver((entries) => this.resized(entries)).observe(this.viewport);
  }

  scrolled() {
    this.top = this.viewport.scrollTop; // layout is clean while a scroll event is handled
    this.schedule();
  }

  resized(entries) {
    // Called after layout: reading the geometry here costs nothing. A table shown again
    // may come back scrolled elsewhere without a scroll event, so the position is read too.
    this.height = entries[entries.length - 1].contentRect.height;
    this.top = this.viewport.scrollTop;
    this.schedule();
  }

  setItems(items) {
    this.items = items;
    this.spacer.style.height = `${items.length * this.rowHeight}px`;
    this.schedule();
  }

  // Render again what is in view (values changed, ages moved on), at the next frame.
  schedule() {
    this.dirty = true;
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      if (this.dirty) this.render();
    });
  }

  // Render again in `ms` (a row's fade moves on a step then), unless one is due sooner.
  renderIn(ms) {
    const at = performance.now() + ms;
    if (this.timer !== null && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.schedule();
    }, ms);
  }

  visibleRange() {
    const height = this.height || 600;
    const top = Math.max(0, Math.min(this.top, this.items.length * this.rowHeight - height));
    const first = Math.max(0, Math.floor(top / this.rowHeight) - OVERSCAN);
    const last = Math.min(this.items.length, Math.ceil((top + height) / this.rowHeight) + OVERSCAN);
    return [first, last];
  }

  makeRow() {
    const cells = this.columns.map((c) => {
      if (c.action) {
        const button = h("button", { type: "button", class: "row-action", dataset: { action: c.action } }, c.label ?? c.action);
        return h("span", { class: c.cls ?? null }, button);
      }
      return h("span", { class: c.cls ?? null });
    });
    const row = h("div", { class: "vrow", role: "row" }, cells);
    row.cells = cells;
    this.spacer.append(row);
    return row;
  }

  // Render what is in view now (a caller already in an animation frame); a render already
  // scheduled for the next frame is then skipped unless something asks again.
  render() {
    this.dirty = false;
    const [first, last] = this.visibleRange();
    const needed = last - first;
    while (this.pool.length < needed) this.pool.push(this.makeRow());
    for (let i = 0; i < this.pool.length; i += 1) {
      const row = this.pool[i];
      const index = first + i;
      if (index >= last) {
        row.hidden = true;
        continue;
      }
      const item = this.items[index];
      row.hidden = false;
      row.dataset.index = String(index);
      row.style.transform = `translateY(${index * this.rowHeight}px)`;
      row.classList.toggle("picked", this.picked !== null && item === this.picked);
      this.fill(row.cells, item, row);
    }
  }

  clicked(event) {
    const row = event.target.closest(".vrow");
    if (!row || row.dataset.index === undefined) return;
    const item = this.items[Number(row.dataset.index)];
    if (item === undefined) return;
    const action = event.target.closest("button[data-action]");
    if (action) {
      this.actions[action.dataset.action]?.(item);
      return;
    }
    if (this.onPick) {
      this.picked = item;
      this.onPick(item);
      this.render();
    }
  }

  scrollToTop() {
    this.viewport.scrollTop = 0;
    this.top = 0;
  }
}

// A row whose item changed less than FADE_MS ago is marked data-flash="1", "2" or "3"
// (strong to faint, console.css); the mark changes 3 times in all, so the row is painted 3
// times, where a CSS animation of its background repaints it every frame. Returns the ms
// until the mark changes again (0: none), for `renderIn`.
export const FADE_MS = 1500;
const FADE_STEPS = 3;

export function fade(row, changedAt, now) {
  const since = now - changedAt;
  const step = changedAt && since >= 0 && since < FADE_MS ? 1 + Math.floor((since * FADE_STEPS) / FADE_MS) : 0;
  const mark = step ? String(step) : undefined;
  if (row.dataset.flash !== mark) {
    if (mark) row.dataset.flash = mark;
    else delete row.dataset.flash;
  }
  return step ? (FADE_MS / FADE_STEPS) * step - since : 0;
}

// Flashes a row (of a small table, not a virtual one) whose item changed within `window` ms. A new change restarts the flash by
// swapping between two identical animations, which needs no forced layout.
export function flash(row, changedAt, now, window = 1500) {
  if (!changedAt || now - changedAt >= window) {
    if (row.flashedAt) {
      row.classList.remove("flash-a", "flash-b");
      row.flashedAt = 0;
    }
    return;
  }
  if (row.flashedAt === changedAt) return;
  const next = row.classList.contains("flash-a") ? "flash-b" : "flash-a";
  row.classList.remove("flash-a", "flash-b");
  row.classList.add(next);
  row.flashedAt = changedAt;
}

// Sets a cell's text only when it differs, so an unchanged row costs no layout.
export function put(cell, text) {
  const value = String(text);
  if (cell.textContent !== value) cell.textContent = value;
}
