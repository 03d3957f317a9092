// "FFN Lens: Stop Generating": the generation of the panel in front (else of every panel that
// generates) stops, as the panel's Cancel does, until its model file is edited.
import * as vscode from 'vscode';
import type { PanelManager } from '../panel/panelManager';

export function stopGenerating(panels: PanelManager): void {
  const all = panels.all().filter((p) => p.generation.active);
  const front = all.find((p) => p.panel.active);
  const which = front ? [front] : all;
  if (!which.length) {
    vscode.window.setStatusBarMessage('FFN Lens: nothing is generating', 3000);
    return;
  }
  for (const p of which) p.generation.cancel();
}
