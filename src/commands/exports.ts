// Export from a panel (its context menu, or the palette for the report): the webview makes the
// bytes, the user picks where they go (beside the model file by default), workspace.fs writes them.
import * as vscode from 'vscode';
import type { Panel } from '../panel/panel';

export type ExportKind = 'png' | 'csv' | 'npy' | 'report';

const FILTERS: Record<ExportKind, Record<string, string[]>> = {
  png: { 'PNG image': ['png'] },
  csv: { CSV: ['csv'] },
  npy: { 'NumPy array': ['npy'] },
  report: { HTML: ['html'] },
};

export async function exportFromPanel(panel: Panel | undefined, kind: ExportKind, stageId: string | null): Promise<void> {
  if (!panel) {
    void vscode.window.showInformationMessage('FFN Lens: open a panel first (Visualize FFN).');
    return;
  }
  const base = panel.uri.path.split('/').pop()!.replace(/\.ffn\.jsonc?$|\.jsonc?$/, '');
  const name = kind === 'report' ? `${base}.report.html` : `${base}.${stageId}.${kind}`;
  const folder = panel.uri.scheme === 'untitled' ? vscode.workspace.workspaceFolders?.[0]?.uri : vscode.Uri.joinPath(panel.uri, '..');
  const target = await vscode.window.showSaveDialog({ defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined, filters: FILTERS[kind], title: `FFN Lens: export ${kind === 'report' ? 'the panel' : stageId}` });
  if (!target) return;
  try {
    const bytes = await panel.exportBytes(kind, stageId);
    await vscode.workspace.fs.writeFile(target, bytes);
    vscode.window.setStatusBarMessage(`FFN Lens: wrote ${target.path.split('/').pop()} (${(bytes.length / 1024).toFixed(1)} KB)`, 5000);
  } catch (e) {
    void vscode.window.showErrorMessage(`FFN Lens: could not export: ${(e as Error).message}`);
  }
}
