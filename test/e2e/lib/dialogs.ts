// The workbench's context menus and code-server's file dialogs (a path in the quick input), each
// key sent only once what it is for has the keyboard.
import { existsSync, readFileSync } from 'node:fs';
import { until, WAIT_MS } from './until';
import type { Workbench } from './workbench';

/**
 * Chooses `label` in the context menu that is open (or opening): the item is hovered until the menu
 * marks it focused, then Enter (the menu acts on the key, or on a press and release over the item).
 */
export async function chooseMenuItem(wb: Workbench, label: string, timeoutMs = WAIT_MS): Promise<void> {
  const item = wb.page.locator('.context-view .action-item', { has: wb.page.locator('.action-menu-item', { hasText: label }) }).first();
  await until(`"${label}" focused in the context menu`, async () => {
    if (/\bfocused\b/.test((await item.getAttribute('class', { timeout: 2_000 })) ?? '')) return true;
    await item.hover({ timeout: 2_000 });
    return false;
  }, { timeoutMs, describe: async () => `the menu: ${JSON.stringify(await wb.page.locator('.context-view .action-item').allInnerTexts())}` });
  await wb.page.keyboard.press('Enter');
}

/**
 * In a file dialog (the quick input): waits until it has the keyboard and its value is one `ok`
 * accepts (the dialog fills in its folder, then the name, a moment apart), or, with `fill`, until it
 * holds that path (put there once the dialog lists its folder); then Enter, and waits for it to close.
 * Returns the value accepted.
 */
export async function acceptFileDialog(wb: Workbench, ok: (value: string) => boolean, opts: { fill?: string; timeoutMs?: number } = {}): Promise<string> {
  const page = wb.page;
  const input = page.locator('.quick-input-widget input.input').first();
  const state = () => page.evaluate(() => {
    const d = (globalThis as any).document;
    const w = d.querySelector('.quick-input-widget');
    const i = w?.querySelector('input.input');
    return {
      open: !!w && w.style.display !== 'none' && w.offsetParent !== null,
      focused: !!i && d.activeElement === i,
      value: (i?.value ?? '') as string,
      rows: w ? w.querySelectorAll('.quick-input-list .monaco-list-row').length as number : 0,
    };
  });
  const timeoutMs = opts.timeoutMs ?? WAIT_MS;
  const fill = opts.fill;
  let filled = false;
  const value = await until('the file dialog with the keyboard and its path', async () => {
    const s = await state();
    if (!s.open || !s.value) return null;
    if (!s.focused) { // (opened from a webview, the keyboard may stay there a moment)
      await input.focus();
      return null;
    }
    if (fill === undefined) return ok(s.value) ? s.value : null;
    if (s.value === fill) return fill;
    // (the dialog writes its folder in once it has read it, and was seen writing it again in front
    // of a path put there before: the path goes in once the folder is listed or the name proposed,
    // and again if changed)
    if (filled || (s.rows > 0 && /\/$/.test(s.value)) || ok(s.value)) {
      await input.fill(fill);
      filled = true;
    }
    return null;
  }, { timeoutMs, describe: async () => `the dialog: ${JSON.stringify(await state())}` });
  await page.keyboard.press('Enter');
  await until('the file dialog to close', async () => {
    const s = await state();
    return !s.open || s.value !== value;
  }, { timeoutMs, describe: async () => `the dialog: ${JSON.stringify(await state())}` });
  return value;
}

/** Waits until `path` exists and `complete` says its bytes are all there (it may be read while written). */
export async function writtenFile(path: string, complete: (bytes: Buffer) => boolean, timeoutMs = WAIT_MS): Promise<Buffer> {
  return until(`${path} written whole`, () => {
    if (!existsSync(path)) return null;
    const b = readFileSync(path);
    return complete(b) ? b : null;
  }, { timeoutMs, describe: () => (existsSync(path) ? `${readFileSync(path).length} bytes so far` : 'no file') });
}

/** A complete .npy: its header's shape times 4 bytes (float32) after the header. */
export function npyComplete(b: Buffer): boolean {
  if (b.length < 10) return false;
  const hl = b[8] + 256 * b[9];
  const shape = /'shape': \(([\d, ]*)\)/.exec(b.subarray(10, 10 + hl).toString('latin1'));
  if (!shape) return false;
  const n = shape[1].split(',').map((s) => s.trim()).filter(Boolean).reduce((p, s) => p * Number(s), 1);
  return b.length === 10 + hl + 4 * n;
}

/** A complete PNG: it ends with its IEND chunk. */
export function pngComplete(b: Buffer): boolean {
  return b.length > 12 && b.subarray(b.length - 8, b.length - 4).toString('latin1') === 'IEND';
}
