// A tiny element builder: enough for this panel, no framework. Styles come from webview/panel.css
// (the CSP allows no inline style attributes; element.style set from script is fine).
type Attrs = Record<string, string | number | boolean | undefined>;
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/**
 * Runs f once after the next frame is painted (at most once however often it is asked for): work
 * that should not hold back the frame, such as a chart beside heatmaps that just changed.
 */
export function afterPaint(f: () => void): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => setTimeout(() => {
      queued = false;
      f();
    }, 0));
  };
}

/** Runs f at most once per animation frame, with the latest arguments. */
export function perFrame(f: () => void): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      f();
    });
  };
}
