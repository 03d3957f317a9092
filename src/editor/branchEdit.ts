// A generation's alternative clicked in the panel: the model file's input goes on with it
// (src/editor/branchInput.ts), an edit like any other (undoable); the edit restarts generation
// from the longer input. Shown in the file's own editor while the panel stays in front.
import * as vscode from 'vscode';
import { branchInsertion } from './branchInput';

/** Continues `doc`'s input with `ids` (or their `texts`); false when it could not (said). */
export async function branchInput(doc: vscode.TextDocument, ids: readonly number[], texts: readonly string[], column: vscode.ViewColumn): Promise<boolean> {
  const b = branchInsertion(doc.getText(), ids, texts);
  if (!b.insertion) {
    void vscode.window.showInformationMessage(`FFN Lens: cannot branch the generation here: ${b.why}.`);
    return false;
  }
  const ins = b.insertion;
  const edit = new vscode.WorkspaceEdit();
  edit.insert(doc.uri, doc.positionAt(ins.offset), ins.text);
  if (!(await vscode.workspace.applyEdit(edit))) return false;
  const ed = await vscode.window.showTextDocument(doc, { viewColumn: column, preserveFocus: true });
  const range = new vscode.Range(doc.positionAt(ins.offset), doc.positionAt(ins.offset + ins.text.length));
  ed.selection = new vscode.Selection(range.start, range.end);
  ed.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  vscode.window.setStatusBarMessage(`FFN Lens: "${b.key}" goes on with ${ids.length === 1 ? 'the token' : `${ids.length} tokens`}; generating from there`, 5000);
  return true;
}
