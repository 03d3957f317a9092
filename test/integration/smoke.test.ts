// Smoke test inside the real extension host: the extension loads from source, activates, registers
// its command, and works on the fixture model file of the test workspace.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'ffn-lens.ffn-lens';
const MODEL_FILE = 'identity-weights.ffn.json';

function workspaceRoot(): vscode.Uri {
  const folders = vscode.workspace.workspaceFolders;
  assert.ok(folders && folders.length > 0, 'a workspace folder is open');
  return folders[0]!.uri;
}

describe('FFN Lens smoke (real extension host)', () => {
  it('runs inside a real VS Code', () => {
    assert.match(vscode.version, /^1\.\d+\.\d+/);
    assert.equal(typeof vscode.window.createWebviewPanel, 'function');
  });

  it('is present and activates', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is loaded (extensionDevelopmentPath)`);
    await ext.activate();
    assert.equal(ext.isActive, true);
    assert.equal(ext.packageJSON.name, 'ffn-lens');
  });

  it('registers ffnLens.visualize', async () => {
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('ffnLens.visualize'), 'ffnLens.visualize is in the command list');
  });

  it(`opens the fixture model ${MODEL_FILE} and visualizes it`, async () => {
    const uri = vscode.Uri.joinPath(workspaceRoot(), MODEL_FILE);
    const doc = await vscode.workspace.openTextDocument(uri);
    assert.equal(doc.languageId, 'ffn-json', 'model files are their own language (JSON with comments)');
    assert.match(doc.getText(), /"name":\s*"Identity weights/);   // JSONC: the samples' copy has comments
    const editor = await vscode.window.showTextDocument(doc);
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), uri.toString());
    assert.equal(editor.document.lineCount > 1, true);
    // Must not throw with the model as the active editor.
    await vscode.commands.executeCommand('ffnLens.visualize');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
