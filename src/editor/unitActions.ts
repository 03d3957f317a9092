// What a click on a neuron's or a head's cell offers in a checkpoint model file: switch the unit
// off ("ablate"), scale it ("scale"), or copy a neuron's input weights into "weights" to edit them
// by hand. Each is an insertion into the file (src/model/checkpointEdits.ts), undoable as any edit,
// shown in the file's own editor (`column`) while the panel stays in front, to show what it changed.
import * as vscode from 'vscode';
import { addAblate, addMapEntry, addSaeEdit, saeFeatureOf, type Insertion } from '../model/checkpointEdits';
import { neuronInputRow } from '../model/checkpointRequest';
import type { CellUnit } from '../protocol/worker';
import { formatFloat32 } from '../common/float32';

export async function unitActions(doc: vscode.TextDocument, u: CellUnit, column: vscode.ViewColumn): Promise<void> {
  const what = u.kind === 'neuron' ? `neuron ${u.index} of layer ${u.layer}'s FFN` : `head ${u.index} of layer ${u.layer}'s attention`;
  const items: ActionItem[] = [
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
  await applyInsertion(doc, await pick.run(), u.text, u.kind === 'neuron' && pick.label.includes('Copy') ? target : u.text, column);
}

type ActionItem = vscode.QuickPickItem & { run: () => Insertion | null | Promise<Insertion | null> };

const askNumber = async (title: string, value: string): Promise<number | null> => {
  const v = await vscode.window.showInputBox({ title, value, validateInput: (s) => (Number.isFinite(Number(s)) && s.trim() !== '' ? null : 'a number, e.g. 0 or 8') });
  return v === undefined ? null : Number(v);
};

/** What a click on an SAE feature (`layers.12.sae.1234`) offers: sae_ablate, sae_scale, sae_clamp (nothing for another text). */
export async function saeFeatureActions(doc: vscode.TextDocument, text: string, column: vscode.ViewColumn): Promise<void> {
  const f = saeFeatureOf(text);
  if (!f) return;
  const what = `feature ${f.feature} of the SAE at ${f.site}`;
  const items: ActionItem[] = [
    { label: `$(circle-slash) Switch off ${text}`, detail: 'Adds it to "sae_ablate": the stream downstream reads the reconstruction without it, + the error', run: () => addSaeEdit(doc.getText(), 'ablate', text, 0) },
    {
      label: `$(pin) Clamp ${text}…`, detail: 'Adds it to "sae_clamp": held at a value you choose on every token',
      run: async () => { const v = await askNumber(`Clamp ${text} at`, '8'); return v === null ? null : addSaeEdit(doc.getText(), 'clamp', text, v); },
    },
    {
      label: `$(symbol-number) Scale ${text}…`, detail: 'Adds it to "sae_scale" with a factor you choose',
      run: async () => { const v = await askNumber(`Scale ${text} by`, '2'); return v === null ? null : addSaeEdit(doc.getText(), 'scale', text, v); },
    },
  ];
  const pick = await vscode.window.showQuickPick(items, { title: `FFN Lens: ${what}`, placeHolder: 'What to do with this feature (an edit of the model file)' });
  if (!pick) return;
  await applyInsertion(doc, await pick.run(), text, text, column);
}

// the insertion made, shown in the file's editor with the cursor on `mark`
async function applyInsertion(doc: vscode.TextDocument, ins: Insertion | null, text: string, mark: string, column: vscode.ViewColumn): Promise<void> {
  if (!ins) {
    vscode.window.setStatusBarMessage(`FFN Lens: ${text} is there already`, 3000);
    return;
  }
  const edit = new vscode.WorkspaceEdit();
  edit.insert(doc.uri, doc.positionAt(ins.offset), ins.text);
  await vscode.workspace.applyEdit(edit);
  const ed = await vscode.window.showTextDocument(doc, { viewColumn: column, preserveFocus: true });
  const at = doc.positionAt(ins.offset + Math.max(0, ins.text.indexOf(mark)));
  ed.selection = new vscode.Selection(at, at);
  ed.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
