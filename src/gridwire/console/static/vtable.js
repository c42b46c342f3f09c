// A table of many rows (9,000 points, 20,000 frames) of which only those in view exist:
// a spacer as tall as every row, and a few row elements moved over it as it scrolls. Rows
// are CSS grids laid out by the table's class (console.css); a row is filled by `fill(cells,
// item, row)` with textContent only, so rendering a screenful costs well under a
// millisecond.

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
    this.picked = null;
    this.header = h("div", { class: "vrow vhead", role: "row" }, columns.map((c) => h("span", { role: "columnheader", class: c.cls ?? null }, c.title)));
    this.spacer = h("div", { class: "vspacer" });
    this.viewport = h("div", { class: "vviewport", tabindex: "0", role: "rowgroup" }, this.spacer);
    this.el = h("div", { class: `vtable ${className}`, role: "table" }, this.header, this.viewport);
    this.viewport.addEventListener("scroll", () => this.schedule(), { passive: true });
    this.viewport.addEventListener("click", (event) => this.clicked(event));
    new ResizeObserver(() => this.schedule()).observe(this.viewport);
  }

  setItems(items) {
    this.items = items;
    this.spacer.style.height = `${items.length * this.rowHeight}px`;
    this.schedule();
  }

  // Render again what is in view (values changed, ages moved on).
  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.render();
    });
  }

  visibleRange() {
    const top = this.viewport.scrollTop;
    const height = this.viewport.clientHeight || 600;
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

  render() {
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
  }
}

// Flashes a row whose item changed within `window` ms. A new change restarts the flash by
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
