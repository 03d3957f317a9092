// The panel's Compare with, as the e2e tests drive and read it: a baseline chosen in its select,
// a stage's card read as "no differences" (every pixel of its heatmap the same color), the
// prediction's bars side by side, and a workspace folder with the stories260K sample.
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, FrameLocator } from 'playwright-core';
import { until } from './until';
import { e2eEnv, type Workbench } from './workbench';

const SAMPLES = join(__dirname, '..', '..', '..', '..', 'samples');

/** True when the canvas at `sel` is drawn in one color: under compare, no difference anywhere. */
export async function uniformCanvas(wb: Workbench, frame: Frame | FrameLocator, sel: string): Promise<boolean> {
  const px = await wb.readCanvas(frame, sel);
  const first = px.data.slice(0, 4).join();
  for (let i = 0; i < px.data.length; i += 4) if (px.data.slice(i, i + 4).join() !== first) return false;
  return px.width > 0;
}

/** The selector of a stage's heatmap card. */
export const stageCanvas = (stageId: string): string => `section.card[data-stage-id="${stageId}"] .hm-canvas`;

/** Chooses a baseline in the panel's Compare with select (its value: none, plain, head, file, unsteered, ...). */
export async function chooseCompare(view: FrameLocator, kind: string): Promise<void> {
  await view.locator('.compare-select').evaluate((el: any, k: string) => { el.value = k; el.dispatchEvent(new Event('change')); }, kind);
}

/** Waits for the prediction's bars to show two per word (edited and baseline): the chart grows past 300 px. */
export async function barsSideBySide(view: FrameLocator): Promise<void> {
  await view.locator('.probs-chart').scrollIntoViewIfNeeded();
  await until('the bars taller for two per word', async () => (await view.locator('.probs-chart .chart-box').evaluate((el: any) => el.getBoundingClientRect().height)) > 300, { timeoutMs: 60_000, everyMs: 150 });
}

/** A new workspace folder: the e2e fixture, the stories260K sample and the given files (name → text, or a path to copy). */
export function folderWithStories(name: string, files: Record<string, string | { copy: string }>): string {
  const env = e2eEnv();
  mkdirSync(env.tmpDir, { recursive: true });
  const folder = mkdtempSync(join(env.tmpDir, `${name}-`));
  cpSync(env.fixture, folder, { recursive: true });
  cpSync(join(SAMPLES, 'stories260K'), join(folder, 'stories260K'), { recursive: true });
  for (const [file, v] of Object.entries(files)) {
    if (typeof v === 'string') writeFileSync(join(folder, file), v);
    else cpSync(v.copy, join(folder, file));
  }
  return folder;
}
