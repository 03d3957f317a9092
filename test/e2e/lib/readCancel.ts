// A checkpoint read cancelled from its notification, for the e2e tests of it (Node host and web
// host): the real Cancel button is clicked by the page itself the moment the toast is drawn (no
// round trip through Playwright, in which a fast read could end first), and the panel's notice
// line is recorded as it changes.
import type { Frame, Page } from 'playwright-core';

/** What the page saw when it clicked Cancel: the toast's text then (null until it has). */
export type CancelClick = { readonly text: string } | null;

/**
 * Arms the page: the first notification toast whose text matches `title` that has a Cancel button
 * gets it clicked at once (a DOM click on VS Code's button: its click handler, as a user's).
 * Returns how to ask whether (and on what) it clicked.
 */
export async function cancelWhenShown(page: Page, title: RegExp): Promise<() => Promise<CancelClick>> {
  await page.evaluate(({ source, flags }) => {
    const g = globalThis as any;
    const re = new RegExp(source, flags);
    g.__ffnCancelClick = null;
    const look = (): void => {
      if (g.__ffnCancelClick) return;
      for (const item of g.document.querySelectorAll('.notifications-toasts .notification-list-item')) {
        const text = (item.textContent ?? '').replace(/\s+/g, ' ').trim();
        if (!re.test(text)) continue;
        const button = [...item.querySelectorAll('.monaco-button')].find((b: any) => (b.textContent ?? '').trim() === 'Cancel') as any;
        if (!button) continue;
        g.__ffnCancelClick = { text };
        observer.disconnect();
        button.click();
        return;
      }
    };
    const observer = new g.MutationObserver(look);
    observer.observe(g.document.body, { childList: true, subtree: true, characterData: true });
    look();
  }, { source: title.source, flags: title.flags });
  return () => page.evaluate(() => ((globalThis as any).__ffnCancelClick ?? null) as CancelClick);
}

/** Records every text the panel's notice line shows (a MutationObserver in the webview). */
export async function recordNotices(frame: Frame): Promise<() => Promise<string[]>> {
  await frame.evaluate(() => {
    const g = globalThis as any;
    const seen: string[] = g.__ffnNotices = [];
    const take = (): void => {
      for (const el of g.document.querySelectorAll('.notice')) {
        const t = (el.textContent ?? '').trim();
        if (t && seen[seen.length - 1] !== t) seen.push(t);
      }
    };
    new g.MutationObserver(take).observe(g.document.body, { childList: true, subtree: true, characterData: true });
    take();
  });
  return () => frame.evaluate(() => [...((globalThis as any).__ffnNotices ?? [])] as string[]);
}
