import * as vscode from 'vscode';
import { readModel } from './model/read';

export function activate(context: vscode.ExtensionContext): void {
  context.subscriptions.push(vscode.commands.registerCommand('ffnLens.visualize', () => {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc) {
      void vscode.window.showInformationMessage('FFN Lens: open a model file (*.ffn.json) first.');
      return;
    }
    const res = readModel(doc.getText(), doc.fileName);
    const errors = res.problems.filter((p) => p.severity === 'error');
    if (res.model) {
      const d = res.model.dims;
      void vscode.window.showInformationMessage(`FFN Lens: ${res.model.name}: seq ${d.seq}, d_model ${d.dModel}, d_ff ${d.dFf}, ${d.layers} layer(s).`);
    } else {
      void vscode.window.showWarningMessage(`FFN Lens: ${errors.length} problem(s): ${errors[0]?.message ?? ''}`);
    }
  }));
}

export function deactivate(): void {}
