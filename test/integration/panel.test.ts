// The panel in the real extension host: one per document, stale results dropped, a parse error
// keeps the last render and adds diagnostics, the serializer restores a panel.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { PANEL_VIEW_TYPE } from '../../src/panel/panel';
import { watchFile } from '../../src/editor/diskModels';
import { renameSync, writeFileSync } from 'node:fs';
import { api, closeAll, diagnostics, openCopy, rendered, replace, sampleText, waitFor } from './helpers';

describe('Visualize FFN: the panel', function () {
  this.timeout(60000);
  afterEach(closeAll);

  it('opens one panel per document, beside it; running the command again reveals it', async () => {
    // each panel stays with its file (otherwise the first panel follows the editor to b)
    const cfg = vscode.workspace.getConfiguration('ffnLens');
    await cfg.update('followActiveEditor', false, vscode.ConfigurationTarget.Global);
    try {
      await onePanelPerDocument();
    } finally {
      await cfg.update('followActiveEditor', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  async function onePanelPerDocument(): Promise<void> {
    const lens = await api();
    const before = lens.panels.all().length;
    const a = await openCopy(sampleText('identity-weights.ffn.json'), 'a');
    await vscode.commands.executeCommand('ffnLens.visualize');
    const pa = await waitFor('a panel for a', () => lens.panels.find(a.document.uri));
    const column = await waitFor('the panel to be placed', () => pa.panel.viewColumn);
    assert.equal(column, vscode.ViewColumn.Two, 'beside the editor');
    await rendered(pa, a.document);
    assert.equal(pa.panel.title, 'FFN Lens: Identity weights: only the biases (and ReLU) change anything');

    await vscode.window.showTextDocument(a.document, vscode.ViewColumn.One);
    await vscode.commands.executeCommand('ffnLens.visualize');
    assert.equal(lens.panels.all().length, before + 1, 'still one panel for a');

    const b = await openCopy(sampleText('xor-relu.ffn.json'), 'b');
    await vscode.commands.executeCommand('ffnLens.visualize');
    const pb = await waitFor('a panel for b', () => lens.panels.find(b.document.uri));
    assert.notEqual(pa, pb);
    assert.equal(lens.panels.all().length, before + 2, 'a second panel for b');
    await rendered(pb, b.document);
  }

  it('streams each stage as it is computed and drops results older than the document', async () => {
    const lens = await api();
    const ed = await openCopy(sampleText('identity-weights.ffn.json'));
    const p = lens.panels.show(ed.document);
    await rendered(p, ed.document);
    assert.equal(p.stats.posted.stage, 6, 'input, up, act, down, out, output');

    // Three quick edits: only the last version may reach the webview after them.
    const v0 = ed.document.version;
    await replace(ed, '0.1, 0, -0.2', '0.2, 0, -0.2');
    await replace(ed, '0.2, 0, -0.2', '0.3, 0, -0.2');
    const v3 = await replace(ed, '0.3, 0, -0.2', '0.4, 0, -0.2');
    await rendered(p, ed.document);
    assert.equal(p.stats.lastPostedVersion, v3);
    assert.ok(v3 > v0 + 2);

    // A result for an older version arriving now (a slow worker) is dropped, not shown.
    const dropped = p.stats.droppedStale;
    const posted = p.stats.posted.model;
    p.fromWorker({ type: 'model', doc: ed.document.uri.toString(), version: v0, problems: [], summary: null });
    p.fromWorker({ type: 'stage', doc: ed.document.uri.toString(), version: v0, id: 'output', shape: [2, 3], data: new Float32Array(6).buffer, offset: 0, total: 6 });
    assert.equal(p.stats.droppedStale, dropped + 2);
    assert.equal(p.stats.posted.model, posted);
    assert.equal(p.stats.lastPostedVersion, v3);
  });

  it('a parse error keeps the last render, says what is wrong, and adds diagnostics; fixing it renders again', async () => {
    const lens = await api();
    const ed = await openCopy(sampleText('identity-weights.ffn.json'));
    const p = lens.panels.show(ed.document);
    await rendered(p, ed.document);
    const good = p.stats.lastRenderedVersion;

    // break a row of W2: a missing comma
    const bad = await replace(ed, '[0, 1, 0],', '[0, 1 0],', '"W2"');
    const diags = await waitFor('an error diagnostic', () => {
      const d = diagnostics(ed.document.uri);
      return d.some((x) => x.severity === vscode.DiagnosticSeverity.Error) && d;
    });
    const err = diags.find((d) => d.severity === vscode.DiagnosticSeverity.Error)!;
    assert.match(err.message, /expected a comma or \]/);
    const at = ed.document.getText().indexOf('1 0]', ed.document.getText().indexOf('"W2"')) + 2;
    assert.deepEqual(err.range.start, ed.document.positionAt(at), 'on the exact character');
    await waitFor('the problems to reach the panel', () => p.stats.posted.problems > 0);
    assert.equal(p.stats.lastRenderedVersion, good, 'the last good render stays');
    assert.ok(bad > good);

    await replace(ed, '[0, 1 0],', '[0, 1, 0],', '"W2"');
    await rendered(p, ed.document);
    await waitFor('the diagnostics to clear', () => diagnostics(ed.document.uri).length === 0);
  });

  it('the serializer restores a panel for its document after a reload', async () => {
    const lens = await api();
    const ed = await openCopy(sampleText('michael-jordan.ffn.json'));
    // what VS Code does after a window reload: a panel of our view type with the saved state
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'FFN Lens', vscode.ViewColumn.Two, {});
    await lens.panels.deserializeWebviewPanel(panel, { uri: ed.document.uri.toString() });
    const p = await waitFor('the restored panel', () => lens.panels.find(ed.document.uri));
    assert.equal(p.panel, panel);
    await rendered(p, ed.document);
    assert.equal(panel.title, 'FFN Lens: Michael Jordan plays the sport of … basketball');
    // input, q k v scores weights context out residual, up act down residual, out, output, logits probs
    assert.equal(p.stats.posted.stage, 17);
  });

  it('follows the active editor to another model file (ffnLens.followActiveEditor)', async () => {
    const lens = await api();
    const a = await openCopy(sampleText('identity-weights.ffn.json'), 'follow-a');
    const p = lens.panels.show(a.document);
    await rendered(p, a.document);
    const b = await openCopy(sampleText('xor-relu.ffn.json'), 'follow-b');
    await waitFor('the panel to follow b', () => p.source.key === b.document.uri.toString());
    await rendered(p, b.document);
    assert.match(p.panel.title, /XOR/);
  });

  it('Open Sample: the workspace\'s own file when it holds the sample (no "-2" copy), with its panel; again: the same document, edits kept', async () => {
    const lens = await api();
    const folder = vscode.workspace.workspaceFolders![0].uri;
    await vscode.commands.executeCommand('ffnLens.openSample', 'xor-relu.ffn.json');
    const doc = await waitFor('the sample in the editor', () => vscode.window.activeTextEditor?.document.uri.path.endsWith('xor-relu.ffn.json') && vscode.window.activeTextEditor.document);
    // (the test workspace holds the samples on disk)
    assert.equal(doc.uri.toString(), vscode.Uri.joinPath(folder, 'xor-relu.ffn.json').toString());
    assert.equal(doc.languageId, 'ffn-json');
    assert.equal(doc.getText(), sampleText('xor-relu.ffn.json'));
    const p = await waitFor('its panel', () => lens.panels.find(doc.uri));
    await rendered(p, doc);
    assert.match(p.panel.title, /XOR/);
    // again: the same document, edits kept
    await vscode.window.activeTextEditor!.edit((e) => e.insert(new vscode.Position(0, 0), '// mine\n'));
    await vscode.commands.executeCommand('ffnLens.openSample', 'xor-relu.ffn.json');
    assert.equal(vscode.window.activeTextEditor?.document, doc);
    assert.ok(doc.getText().startsWith('// mine\n'));
    await vscode.commands.executeCommand('ffnLens.openSample', 'identity-weights.ffn.json');
    const second = await waitFor('the second sample', () => vscode.window.activeTextEditor?.document !== doc && vscode.window.activeTextEditor?.document);
    assert.equal(second.uri.toString(), vscode.Uri.joinPath(folder, 'identity-weights.ffn.json').toString());
    for (const d of [doc, second]) {
      await vscode.window.showTextDocument(d);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });

  it('a file read from disk is read again when saved in place and when replaced (sed -i, write-then-rename)', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const uri = vscode.Uri.joinPath(folder, `watched-${Date.now()}.ffn.json`);
    writeFileSync(uri.fsPath, '{"a": 1}');
    let seen = 0;
    const w = watchFile(uri, () => seen++);
    try {
      await new Promise((r) => setTimeout(r, 500)); // (the watcher starts)
      writeFileSync(uri.fsPath, '{"a": 2}');
      await waitFor('a save in place', () => seen >= 1);
      const before = seen;
      writeFileSync(uri.fsPath + '.tmp', '{"a": 3}');
      renameSync(uri.fsPath + '.tmp', uri.fsPath);
      await waitFor('a replace by rename', () => seen > before);
    } finally {
      w.dispose();
    }
  });

  it('when its editor closes, the panel follows the file on disk (changes, clicks), and the document again when it reopens', async function () {
    this.timeout(300_000);
    const lens = await api();
    const ed = await openCopy(sampleText('identity-weights.ffn.json'), 'closed');
    const uri = ed.document.uri;
    const p = lens.panels.show(ed.document);
    await rendered(p, ed.document);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    // (VS Code lets a document go about 3 minutes after its last editor closed: the longest wait
    // of the suite, and the way users meet it)
    await waitFor('the panel on the file on disk', () => p.document === null && p.source.key === `disk:${uri.toString()}`, 240_000);
    await waitFor('the file drawn from disk', () => p.stats.lastRenderedVersion === p.source.version);
    const before = p.source.version;
    writeFileSync(uri.fsPath, sampleText('identity-weights.ffn.json').replace('"b2": [-0.2, 0.1, 0.3]', '"b2": [0.5, 0.1, 0.3]'));
    await waitFor('the change on disk drawn', () => p.source.version > before && p.stats.lastRenderedVersion === p.source.version);
    const down = await lens.client.query(p.source.key, { kind: 'locate', stageId: 'layers.0.ffn.down', index: [0, 0] });
    assert.ok(down?.kind === 'locate' && down.located, 'a click still finds its numbers');
    const doc = await vscode.workspace.openTextDocument(uri);
    await waitFor('the panel on the document again', () => p.document === doc);
    await rendered(p, doc);
  });
});
