// What a click on a neuron's or a head's cell offers in a checkpoint model file: switch the unit
// off ("ablate"), scale it ("scale"), or copy a neuron's input weights into "weights" to edit them
// by hand. Each is an insertion into the file (src/model/checkpointEdits.ts), undoable as any edit,
// shown in the file's own editor (`column`) while the panel stays in front, to show what it changed.
import * as vscode from 'vscode';
import { addAblate, addMapEntry, type Insertion } from '../model/checkpointEdits';
import { neuronInputRow } from '../model/checkpointRequest';
import type { CellUnit } from '../protocol/worker';
import { formatFloat32 } from '../common/float32';

export async function unitActions(doc: vscode.TextDocument, u: CellUnit, column: vscode.ViewColumn): Promise<void> {
  const what = u.kind === 'neuron' ? `neuron ${u.index} of layer ${u.layer}'s FFN` : `head ${u.index} of layer ${u.layer}'s attention`;
  type Item = vscode.QuickPickItem & { run: () => Insertion | null | Promise<Insertion | null> };
  const items: Item[] = [
    { label: `$(circle-slash) Switch off ${u.text}`, detail: `Adds it to "ablate": ${what} contributes nothing`, run: () => addAblate(doc.getText(), u.text) },
    {
      label: `$(symbol-number) Scale ${u.text}…`, detail: `Adds it to "scale" with a factor you choose`,
      run: async () => {
        const f = await vscode.window.showInputBox({ title: `Scale ${u.text}`, value: '2', validateInput: (v) => (Number.isFinite(Number(v)) && v.trim() !== '' ? null : 'a number, e.g. 0.5 or 2') });
        return f === undefined ? null : addMapEntry(doc.getText(), 'scale', u.text, String(Number(f)));
      },
    },
  ];
  const target = neuronInputRow(u.layer, u.index);
  if (u.w1) {
    items.push({ label: `$(edit) Copy its input weights into "weights"`, detail: `Adds "${target}": [${u.w1.length} numbers] to edit by hand: its row of the up-projection W1 (Hugging Face's mlp.up_proj; GPT-2's mlp.c_fc)`, run: () => addMapEntry(doc.getText(), 'weights', target, `[${u.w1!.map((x) => formatFloat32(x)).join(', ')}]`) });
  }
  const pick = await vscode.window.showQuickPick(items, { title: `FFN Lens: ${what}`, placeHolder: 'What to do with this unit (an edit of the model file)' });
  if (!pick) return;
  const ins = await pick.run();
  if (!ins) {
    vscode.window.setStatusBarMessage(`FFN Lens: ${u.text} is there already`, 3000);
    return;
  }
  const edit = new vscode.WorkspaceEdit();
  edit.insert(doc.uri, doc.positionAt(ins.offset), ins.text);
  await vscode.workspace.applyEdit(edit);
  const ed = await vscode.window.showTextDocument(doc, { viewColumn: column, preserveFocus: true });
  const at = doc.positionAt(ins.offset + ins.text.indexOf(u.kind === 'neuron' && pick.label.includes('Copy') ? target : u.text));
  ed.selection = new vscode.Selection(at, at);
  ed.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
