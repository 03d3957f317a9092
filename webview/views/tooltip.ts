// One tooltip for the whole panel, placed next to the pointer (or the keyboard cursor) and kept
// inside the window. What the keyboard reads is also said in a live region, for screen readers.
import { h } from '../dom';

class Tooltip {
  private el: HTMLElement | null = null;
  private live: HTMLElement | null = null;

  private element(): HTMLElement {
    if (!this.el) {
      this.el = h('div', { class: 'tooltip', role: 'tooltip', hidden: true });
      document.body.append(this.el);
    }
    return this.el;
  }

  /** Adds the (empty) live region at startup: screen readers skip what a region says as it is added. */
  attach(): void {
    if (this.live) return;
    this.live = h('div', { class: 'sr-only', 'aria-live': 'polite' });
    document.body.append(this.live);
  }

  show(lines: readonly string[], x: number, y: number, opts: { announce?: boolean } = {}): void {
    const el = this.element();
    if (opts.announce && this.live) this.live.textContent = lines.join('. ');
    el.replaceChildren(...lines.map((l, i) => h('div', { class: i === 0 ? 'tooltip-title' : 'tooltip-line' }, l)));
    el.hidden = false;
    const r = el.getBoundingClientRect();
    const left = x + 14 + r.width > window.innerWidth ? Math.max(0, x - 14 - r.width) : x + 14;
    const top = y + 16 + r.height > window.innerHeight ? Math.max(0, y - 10 - r.height) : y + 16;
    el.style.left = `${left}px`;
    el.style.top = `${top}px`;
  }

  hide(): void {
    if (this.el) this.el.hidden = true;
  }
}

export const tooltip = new Tooltip();
