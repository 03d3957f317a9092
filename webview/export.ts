// Export from the panel: a stage's heatmap as PNG (with its title and color scale), its numbers as
// CSV or .npy, and the whole panel as one HTML file that opens offline (heatmaps as images, the
// panel's styles inlined, sections as <details>). The bytes go to the host, which asks where to save.
import { csvText, npyBytes } from '../src/common/npy';
import { formatFloat32 } from '../src/common/float32';
import { drawColorbar, isColormapName, type Backdrop } from './heatmap';
import { post } from './viewState';
import type { StageCard } from './views/stageCard';

export type ExportKind = 'png' | 'csv' | 'npy';

/** Answers the host's export `id`: the report of the panel under `root`, or a stage's card; the bytes, or why not. */
export async function answerExport(id: number, kind: ExportKind | 'report', card: StageCard | undefined, stageId: string | null, root: HTMLElement, summary: { name: string; tokens: readonly string[] } | null): Promise<void> {
  try {
    let bytes: Uint8Array;
    if (kind === 'report') bytes = new TextEncoder().encode(reportHtml(root, summary?.name ?? 'FFN Lens'));
    else {
      if (!card) throw new Error(`no stage ${stageId ?? ''} in this panel`);
      // (numbers held pooled: the host asks the worker for them all)
      if (card.data?.pooled && kind !== 'png') return post({ type: 'exported', id, bytes: null, pooled: true });
      bytes = await exportStage(card, kind, summary?.tokens ?? []);
    }
    const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    post({ type: 'exported', id, bytes: buf });
  } catch (e) {
    post({ type: 'exported', id, bytes: null, error: (e as Error).message });
  }
}

/** The file a stage exports to, and its bytes. */
export async function exportStage(card: StageCard, kind: ExportKind, tokens: readonly string[]): Promise<Uint8Array> {
  const d = card.data;
  if (!d) throw new Error(`${card.info.id} has no numbers yet`);
  if (kind === 'npy') return npyBytes(d.data, d.shape);
  if (kind === 'csv') return new TextEncoder().encode(csvText(d.data, d.shape, tokens, formatFloat32));
  return stagePng(card, tokens);
}

// The heatmap as drawn (one pixel per cell), scaled up without smoothing, under its title, with
// the color scale and its ends below.
async function stagePng(card: StageCard, tokens: readonly string[]): Promise<Uint8Array> {
  const src = card.el.querySelector<HTMLCanvasElement>('.hm-canvas');
  if (!src || !src.width) throw new Error(`${card.info.id} is not drawn yet`);
  // cells as wide as ~960 px allow, rows at least as tall as wide (a few tokens × many columns stays readable)
  const sx = Math.max(1, Math.min(32, Math.floor(960 / src.width)));
  const sy = Math.max(sx, Math.min(32, Math.floor(480 / src.height)));
  const labelled = sy >= 10 && src.height <= tokens.length;
  const left = labelled ? 90 : 20;
  const W = Math.max(420, src.width * sx + left + 20);
  const H = src.height * sy + 130;
  const c = document.createElement('canvas');
  c.width = W;
  c.height = H;
  const g = c.getContext('2d')!;
  const fg = getComputedStyle(document.body).color || '#000';
  g.fillStyle = getComputedStyle(document.body).backgroundColor || '#fff';
  g.fillRect(0, 0, W, H);
  g.fillStyle = fg;
  g.font = '600 15px sans-serif';
  g.fillText(`${card.info.title} — ${card.info.id} [${card.data!.shape.join(' × ')}]`, 20, 26);
  g.imageSmoothingEnabled = false;
  g.drawImage(src, left, 40, src.width * sx, src.height * sy);
  if (labelled) {
    g.font = `${Math.min(13, sy - 1)}px sans-serif`;
    g.textBaseline = 'middle';
    for (let r = 0; r < src.height; r++) {
      const t = tokens[r] ?? String(r);
      g.fillText(t, left - 6 - Math.min(80, g.measureText(t).width), 40 + (r + 0.5) * sy, 80);
    }
    g.textBaseline = 'alphabetic';
  }
  const y = 40 + src.height * sy + 24;
  const bar = document.createElement('canvas');
  const cm = src.dataset.colormap;
  drawColorbar(bar, isColormapName(cm) ? cm : 'coolwarm', [0, 1], (src.dataset.backdrop as Backdrop) ?? 'light');
  g.drawImage(bar, 20, y, 300, 14);
  g.font = '12px sans-serif';
  const lo = Number(src.dataset.rangeLo);
  const hi = Number(src.dataset.rangeHi);
  g.fillText(formatFloat32(lo), 20, y + 32);
  const hiText = formatFloat32(hi);
  g.fillText(hiText, 320 - g.measureText(hiText).width, y + 32);
  if (lo < 0 && hi > 0) g.fillText('0', 20 + (300 * -lo) / (hi - lo) - 3, y + 32);
  const blob = await new Promise<Blob | null>((res) => c.toBlob(res, 'image/png'));
  if (!blob) throw new Error('the browser could not encode the PNG');
  return new Uint8Array(await blob.arrayBuffer());
}

/** The panel as one standalone HTML document. */
export function reportHtml(root: HTMLElement, title: string): string {
  // (a select's value lives in its script, which a clone has not: carried over as an attribute)
  const selects = Array.from(root.querySelectorAll('vscode-single-select'));
  for (const el of selects) el.setAttribute('data-report-value', (el as unknown as { value?: string }).value ?? '');
  const clone = root.cloneNode(true) as HTMLElement;
  for (const el of selects) el.removeAttribute('data-report-value');
  // canvases carry no pixels when cloned: each becomes an image of the original's
  const originals = root.querySelectorAll('canvas');
  clone.querySelectorAll('canvas').forEach((c, i) => {
    const o = originals[i];
    const img = document.createElement('img');
    try {
      img.src = o.toDataURL('image/png');
    } catch {
      return;
    }
    img.alt = o.getAttribute('aria-label') ?? '';
    // Laid out as the canvas was: the image has the canvas's pixels as its natural size, so the
    // canvas's own classes and inline sizes (a legend bar's `width: 100%`, a heatmap's px) size it
    // the same. (Sizes read from the layout were wrong in a hidden tab, and '100%' read as 100 px.)
    if (o.className) img.className = o.className;
    img.style.cssText = o.style.cssText;
    img.style.imageRendering = 'pixelated';
    c.replaceWith(img);
  });
  // sections as <details> (the controls' custom elements need their scripts; a report has none)
  clone.querySelectorAll('vscode-collapsible').forEach((el) => {
    const d = document.createElement('details');
    d.open = (root.querySelector(`vscode-collapsible[data-section="${el.getAttribute('data-section')}"]`) as unknown as { open?: boolean } | null)?.open ?? true;
    const s = document.createElement('summary');
    s.textContent = el.getAttribute('heading') ?? '';
    d.append(s, ...Array.from(el.childNodes));
    el.replaceWith(d);
  });
  clone.querySelectorAll('vscode-button, vscode-checkbox, vscode-tab-header, vscode-progress-bar, .card-controls, .lens-controls').forEach((el) => el.remove());
  // the header's settings as the text of what is chosen ("Colors coolwarm"), not labels left alone
  clone.querySelectorAll('vscode-single-select').forEach((el) => {
    const span = document.createElement('span');
    span.className = 'report-choice';
    span.textContent = chosenText(el, el.getAttribute('data-report-value') ?? undefined);
    el.replaceWith(span);
  });
  clone.querySelectorAll('vscode-tabs, vscode-tab-panel').forEach((el) => {
    const div = document.createElement('div');
    div.append(...Array.from(el.childNodes));
    el.replaceWith(div);
  });
  let css = '';
  for (const sheet of Array.from(document.styleSheets)) {
    try {
      for (const r of Array.from(sheet.cssRules)) css += r.cssText + '\n';
    } catch {
      // (a sheet of another origin: not ours)
    }
  }
  // VS Code's theme variables, as they are now
  const vars: string[] = [];
  const st = getComputedStyle(document.documentElement);
  for (let i = 0; i < st.length; i++) {
    const name = st[i];
    if (name.startsWith('--vscode-')) vars.push(`${name}: ${st.getPropertyValue(name)};`);
  }
  const esc = (s: string): string => s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]!);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="generator" content="FFN Lens">
<style>:root { ${vars.join(' ')} }
${css}
.report-choice { font-weight: 600; margin: 0 12px 0 4px; }
details > summary { font-weight: 600; cursor: pointer; margin: 8px 0; text-transform: uppercase; font-size: 11px; }
body { padding: 12px 20px; }</style></head>
<body class="${esc(document.body.className)}">
${clone.innerHTML}
<footer style="margin-top:24px;color:var(--vscode-descriptionForeground)">Made with FFN Lens, ${esc(new Date().toISOString().slice(0, 16).replace('T', ' '))}.</footer>
</body></html>
`;
}

/** The text of a select's chosen option (its value now, else the option marked selected). */
function chosenText(select: Element, value: string | undefined): string {
  const options = Array.from(select.querySelectorAll('vscode-option'));
  const byValue = value === undefined ? undefined : options.find((o) => (o.getAttribute('value') ?? o.textContent?.trim()) === value);
  const chosen = byValue ?? options.find((o) => o.hasAttribute('selected')) ?? options[0];
  return chosen?.textContent?.trim() ?? '';
}
