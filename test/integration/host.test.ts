// The extension host's side of issue 8's gaps, in a real VS Code: model files are their own
// language (no JSON service errors on comments, each syntax error listed once, completion from the
// format), the compute worker starts only when a model appears, Open Sample opens the workspace's
// own file, the panel's controls write the workspace's settings, and nothing is posted to a
// disposed webview.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { nodeWorkerPort } from '../../src/compute/nodeWorkerPort';
import { ComputeClient } from '../../src/compute/computeClient';
import { panelSettingTarget } from '../../src/host/config';
import { api, closeAll, diagnostics, extensionPath, openCopy, rendered, sampleText, waitFor } from './helpers';

const PLAIN_MODEL = `{
  // a model file named like any JSON file: comments are allowed
  "version": 1,
  "input": [[1, 0], [0, 1]], // two tokens
  "ffn": { "W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]] }
}
`;

async function writeFile(name: string, text: string): Promise<vscode.Uri> {
  const uri = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, name);
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(text));
  return uri;
}

describe('the extension host (issue 8)', function () {
  this.timeout(60_000);
  afterEach(closeAll);

  it('a *.ffn.json is an ffn-json document; a plain .json model is switched to it, once, and gets no JSON-service diagnostics', async () => {
    const lens = await api();
    const ed = await openCopy(sampleText('identity-weights.ffn.json'));
    assert.equal(ed.document.languageId, 'ffn-json');
    const uri = await writeFile(`plain-${Date.now()}.json`, PLAIN_MODEL);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    const doc = await waitFor('the plain .json model to become ffn-json', () => {
      const d = vscode.workspace.textDocuments.find((x) => x.uri.toString() === uri.toString());
      return d?.languageId === 'ffn-json' && lens.documents.isTracked(uri) && d;
    });
    await new Promise((r) => setTimeout(r, 1500)); // (time for any JSON service to have spoken)
    assert.deepEqual(vscode.languages.getDiagnostics(uri).map((d) => `${d.source}: ${d.message}`), [], 'no diagnostics at all: comments are fine');
    // a syntax error: listed once, by FFN Lens
    const ed2 = await vscode.window.showTextDocument(doc);
    await ed2.edit((e) => e.insert(doc.positionAt(doc.getText().indexOf('"ffn"')), '"oops" '));
    const all = await waitFor('one syntax error', () => { const d = vscode.languages.getDiagnostics(uri); return d.length > 0 && d; });
    await new Promise((r) => setTimeout(r, 1000));
    const now = vscode.languages.getDiagnostics(uri);
    // one list: ours alone (VS Code's JSON service no longer parses model files)
    assert.ok(now.length > 0 && all.length > 0);
    assert.deepEqual(now.filter((d) => d.source !== 'FFN Lens').map((d) => `${d.source}: ${d.message}`), []);
    await vscode.commands.executeCommand('workbench.action.files.revert');
  });

  it('a plain JSON file that is not a model (a package.json) stays JSON and is not tracked', async () => {
    const lens = await api();
    const uri = await writeFile(`package-${Date.now()}.json`, '{\n  "name": "x",\n  "version": "1.0.0",\n  "dependencies": {}\n}\n');
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(doc.languageId, 'json');
    assert.equal(lens.documents.isTracked(uri), false);
  });

  it('completes the keys of the object at the cursor, and an activation after "activation": (from the format, with its meaning)', async () => {
    const ed = await openCopy('{\n  "version": 1,\n  "input": [[1, 0]],\n  "ffn": {\n    "W1": [[1, 0]],\n    \n  }\n}\n');
    const pos = new vscode.Position(5, 4);
    const list = await waitFor('completion items', async () => {
      const l = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', ed.document.uri, pos);
      return l.items.some((i) => i.label === 'activation') && l;
    });
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    for (const k of ['activation', 'W2', 'b1', 'Wg']) assert.ok(labels.includes(k), `${k} in ${labels.join(' ')}`);
    assert.ok(!labels.includes('W1'), 'W1 is already there');
    assert.ok(!labels.includes('input'), 'a top-level key is not offered inside "ffn"');
    await ed.edit((e) => e.insert(pos, '"activation": "'));
    const after = new vscode.Position(5, 4 + '"activation": "'.length);
    const values = await waitFor('activation values', async () => {
      const l = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', ed.document.uri, after);
      return l.items.some((i) => i.label === 'swiglu') && l;
    });
    assert.ok(values.items.some((i) => i.label === 'gelu_tanh'));
  });

  it('the compute worker starts with the first model document, not before', async () => {
    const log = vscode.window.createOutputChannel('FFN Lens test', { log: true });
    const client = new ComputeClient(() => nodeWorkerPort(`${extensionPath()}/dist/worker.js`), log);
    try {
      client.send({ type: 'config', debounceMs: 10 });
      assert.equal(client.started, false, 'settings alone start nothing');
      assert.equal(await client.query('x', { kind: 'text-length' }), null, 'a query without a worker answers at once');
      assert.equal(client.started, false);
      client.send({ type: 'open', doc: 'mem:a', fileName: 'a.ffn.json', version: 1, text: PLAIN_MODEL, sniffed: false });
      assert.equal(client.started, true);
      const r = await client.query('mem:a', { kind: 'text-length' });
      assert.ok(r && r.kind === 'text-length' && r.length === PLAIN_MODEL.length);
    } finally {
      client.dispose();
      log.dispose();
    }
  });

  it('Open Sample opens the workspace\'s own file when it holds the sample, no "-2" copy', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const target = vscode.Uri.joinPath(folder, 'swiglu-gated.ffn.json');
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(sampleText('swiglu-gated.ffn.json')));
    await vscode.commands.executeCommand('ffnLens.openSample', 'swiglu-gated.ffn.json');
    const doc = await waitFor('the sample in the editor', () => vscode.window.activeTextEditor?.document.uri.path.endsWith('swiglu-gated.ffn.json') && vscode.window.activeTextEditor.document);
    assert.equal(doc.uri.toString(), target.toString(), 'the file on disk, not an untitled copy');
    assert.equal(doc.isUntitled, false);
  });

  it('Open Sample of stories260K copies its checkpoint folder beside it, and the panel computes it', async () => {
    const lens = await api();
    await vscode.commands.executeCommand('ffnLens.openSample', 'stories260K.ffn.json');
    const doc = await waitFor('the sample in the editor', () => vscode.window.activeTextEditor?.document.uri.path.endsWith('stories260K.ffn.json') && vscode.window.activeTextEditor.document);
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const st = await vscode.workspace.fs.stat(vscode.Uri.joinPath(folder, 'stories260K', 'model.safetensors'));
    assert.equal(st.size, 1044984);
    const p = await waitFor('its panel', () => lens.panels.find(doc.uri));
    await rendered(p, doc);
    assert.match(p.panel.title, /stories260K/);
  });

  it('the panel\'s controls write where the setting is set, else the workspace', () => {
    const T = vscode.ConfigurationTarget;
    assert.equal(panelSettingTarget({ workspaceFolderValue: 'viridis', globalValue: 'x' }, true), T.WorkspaceFolder);
    assert.equal(panelSettingTarget({ workspaceValue: 'viridis', globalValue: 'x' }, true), T.Workspace);
    assert.equal(panelSettingTarget({ globalValue: 'viridis' }, true), T.Global);
    assert.equal(panelSettingTarget({}, true), T.Workspace, 'a choice for this project only');
    assert.equal(panelSettingTarget({}, false), T.Global, 'no workspace: the user\'s');
  });

  it('a panel closed while its render streams and the cursor moves: no post to the disposed webview rejects', async () => {
    const lens = await api();
    const rejections: unknown[] = [];
    const onRejection = (e: unknown): void => void rejections.push(e);
    process.on('unhandledRejection', onRejection);
    try {
      const ed = await openCopy(sampleText('gpt2-two-layers.ffn.json'));
      const p = lens.panels.show(ed.document);
      await rendered(p, ed.document);
      // an edit (a render on its way) and cursor moves, then close at once
      await ed.edit((e) => e.insert(new vscode.Position(0, 0), '// x\n'));
      for (let i = 0; i < 5; i++) ed.selection = new vscode.Selection(20 + i, 6, 20 + i, 6);
      p.panel.dispose();
      for (let i = 0; i < 5; i++) ed.selection = new vscode.Selection(30 + i, 6, 30 + i, 6);
      p.focusStage('output');
      p.postHighlight({ type: 'highlight', target: null });
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(rejections.map(String), []);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('a syntax error of a *.ffn.json is listed once', async () => {
    const ed = await openCopy(sampleText('identity-weights.ffn.json').replace('"version": 1,', '"version": 1 oops,'));
    await waitFor('the error', () => diagnostics(ed.document.uri).length > 0);
    await new Promise((r) => setTimeout(r, 1000));
    const all = vscode.languages.getDiagnostics(ed.document.uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
    assert.equal(all.length, 1, all.map((d) => `${d.source}: ${d.message}`).join('\n'));
  });
});
