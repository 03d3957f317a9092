// The editor features in the real extension host: hovers quote the values the command line
// prints, diagnostics sit on the exact range and go away when fixed, each quick fix produces the
// fixed text, lenses and the status bar show the model.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { fmt } from '../../src/worker/docStages';
import { api, closeAll, diagnostics, extensionPath, openCopy, rendered, sampleText, waitFor } from './helpers';

interface CliStage { id: string; shape: number[]; data: number[] }

/** What `ffn-lens stages` prints for a model text: the independent record the hovers must agree with. */
function cliStages(text: string, ids: string[]): Map<string, CliStage> {
  const file = join(vscode.workspace.workspaceFolders![0].uri.fsPath, `cli-${Date.now()}.ffn.json`);
  writeFileSync(file, text);
  const r = spawnSync(process.execPath, [join(extensionPath(), 'dist', 'cli.js'), 'stages', file, '--only', ids.join(',')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return new Map((JSON.parse(r.stdout).stages as CliStage[]).map((s) => [s.id, s]));
}

async function hoverText(doc: vscode.TextDocument, offset: number): Promise<string> {
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, doc.positionAt(offset));
  return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : (c as vscode.MarkdownString).value))).join('\n');
}

/** The offset of the `n`-th (0-based) number in the row that starts at `rowStart`. */
function numberIn(text: string, rowStart: number, n: number): number {
  const re = /-?\d+(\.\d+)?(e-?\d+)?/g;
  re.lastIndex = rowStart;
  let m: RegExpExecArray | null = null;
  for (let i = 0; i <= n; i++) m = re.exec(text);
  return m!.index;
}

describe('In the editor: hovers, diagnostics, quick fixes, lenses', function () {
  this.timeout(60000);
  afterEach(closeAll);

  it('a hover over a W1 weight quotes the neuron\'s values exactly as `ffn-lens stages` prints them', async () => {
    const lens = await api();
    const text = sampleText('attention-then-ffn.ffn.json');
    const ed = await openCopy(text);
    const p = lens.panels.show(ed.document);
    await rendered(p, ed.document);
    // W1 row 5 (neuron 5), column 2
    const w1 = text.indexOf('"W1"');
    let row = text.indexOf('[', text.indexOf('[', w1) + 1);
    for (let i = 0; i < 5; i++) row = text.indexOf('[', row + 1);
    const at = numberIn(text, row, 2);
    const h = await hoverText(ed.document, at);
    const weight = text.slice(at, /[,\]\s]/.exec(text.slice(at))!.index + at);
    assert.match(h, new RegExp(`ffn\\.W1\\[5\\]\\[2\\] = ${weight.replace('.', '\\.').replace('-', '\\-')}`));
    assert.match(h, /weight from input dimension 2 into neuron 5 \(of 32\)/);
    const cli = cliStages(text, ['layers.0.ffn.up', 'layers.0.ffn.act']);
    const up = cli.get('layers.0.ffn.up')!;
    const act = cli.get('layers.0.ffn.act')!;
    const T = up.shape[0];
    const F = up.shape[1];
    const tokens = ['the', 'cat', 'chased', 'the', 'mouse'];
    for (let t = 0; t < T; t++) {
      const line = h.split('\n').find((l) => l.startsWith(`| ${tokens[t]} |`) && l.includes(fmt(up.data[t * F + 5])));
      assert.ok(line, `a row for token ${t} with up = ${fmt(up.data[t * F + 5])} in:\n${h}`);
      assert.ok(line.includes(`| ${fmt(act.data[t * F + 5])} |`), `GELU = ${fmt(act.data[t * F + 5])} in ${line}`);
    }
  });

  it('a hover over b1[j] (ReLU) says whether the neuron is dead; over an input number, the token\'s journey', async () => {
    const text = sampleText('michael-jordan.ffn.json');
    const ed = await openCopy(text);
    const lens = await api();
    await rendered(lens.panels.show(ed.document), ed.document);
    const b1 = text.indexOf('"b1"');
    const h = await hoverText(ed.document, numberIn(text, b1, 1)); // b1[0], after the "1" of "b1"
    assert.match(h, /bias of neuron 0/);
    assert.match(h, /Neuron 0 fires for 5 of 6 tokens/);
    const cli = cliStages(text, ['layers.0.ffn.act']);
    const act = cli.get('layers.0.ffn.act')!.data;
    assert.equal(act[0], 0, 'not at "Michael"');
    const input = text.indexOf('"input"');
    const hi = await hoverText(ed.document, numberIn(text, text.indexOf('[', text.indexOf('[', input) + 1), 1));
    assert.match(hi, /token "Michael" \(row 0\), dimension 1/);
    assert.match(hi, /\| layers\.0\.ffn\.act \|/);
  });

  it('a hover in a file that does not parse says so in one line', async () => {
    const ed = await openCopy(sampleText('identity-weights.ffn.json').replace('"W2": [', '"W2": [[,'));
    await waitFor('the error', () => diagnostics(ed.document.uri).some((d) => d.severity === vscode.DiagnosticSeverity.Error));
    const text = ed.document.getText();
    const h = await hoverText(ed.document, numberIn(text, text.indexOf('"b1"'), 1));
    assert.match(h.trim(), /^FFN Lens: this file does not read as a model \(\d+ problems?, see the Problems panel\), so there are no values to show\.$/);
  });

  it('diagnostics sit on the exact range and go away when fixed', async () => {
    const ed = await openCopy(sampleText('identity-weights.ffn.json'));
    const doc = ed.document;
    // heads is not part of an FFN: put a string where a number belongs in W1
    const text = doc.getText();
    const at = numberIn(text, text.indexOf('[', text.indexOf('"W1"') + 6), 1);
    await ed.edit((e) => e.replace(new vscode.Range(doc.positionAt(at), doc.positionAt(at + 1)), '"x"'));
    const d = await waitFor('a diagnostic', () => diagnostics(doc.uri).find((x) => x.code === 'type'));
    assert.equal(doc.getText(d.range), '"x"');
    assert.match(d.message, /ffn\.W1\[0\]\[1\] must be a number, found the string "x"/);
    await vscode.commands.executeCommand('undo');
    await waitFor('the diagnostics to clear', () => diagnostics(doc.uri).length === 0);
  });

  async function applyFix(doc: vscode.TextDocument, range: vscode.Range, title: RegExp): Promise<void> {
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, range);
    const a = actions.find((x) => title.test(x.title));
    assert.ok(a?.edit, `a fix matching ${title}; offered: ${actions.map((x) => x.title).join(' | ')}`);
    assert.ok(await vscode.workspace.applyEdit(a.edit));
  }

  it('quick fix: set "layout" when every matrix fits only the other way', async () => {
    const text = sampleText('xor-relu.ffn.json').replace('"layout": "in_out"', '"layout": "out_in"');
    const ed = await openCopy(text);
    const doc = ed.document;
    const d = await waitFor('the layout error', () => diagnostics(doc.uri).find((x) => x.code === 'layout'));
    await applyFix(doc, d.range, /Set "layout": "in_out"/);
    assert.equal(doc.getText(), sampleText('xor-relu.ffn.json'));
    await waitFor('no errors', () => !diagnostics(doc.uri).some((x) => x.severity === vscode.DiagnosticSeverity.Error));
  });

  it('quick fix: rename an unknown key; pad a tokens list', async () => {
    const base = sampleText('identity-weights.ffn.json');
    const ed = await openCopy(base.replace('"activation": "relu"', '"activaton": "relu"').replace('"tokens": ["A", "B"]', '"tokens": ["A"]'));
    const doc = ed.document;
    const k = await waitFor('the unknown key', () => diagnostics(doc.uri).find((x) => x.code === 'unknown-key'));
    assert.equal(k.severity, vscode.DiagnosticSeverity.Warning);
    await applyFix(doc, k.range, /Rename to "activation"/);
    const t = await waitFor('the tokens error', () => diagnostics(doc.uri).find((x) => x.code === 'tokens-length'));
    await applyFix(doc, t.range, /Pad tokens to 2/);
    assert.equal(doc.getText(), base.replace('"tokens": ["A", "B"]', '"tokens": ["A", "t1"]'));
  });

  it('quick fix: add a missing bias filled with zeros', async () => {
    const base = sampleText('identity-weights.ffn.json');
    const without = base.replace(/\n\s*"b1": \[0\.1, 0, -0\.2\],/, '');
    assert.notEqual(without, base);
    const ed = await openCopy(without);
    const doc = ed.document;
    await waitFor('the model to read', async () => (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri)).length > 0);
    const inW1 = doc.positionAt(doc.getText().indexOf('"W1"') + 2);
    await applyFix(doc, new vscode.Range(inW1, inW1), /Add b1 filled with zeros \(3 numbers\)/);
    assert.match(doc.getText(), /\],\n {4}"b1": \[0, 0, 0\],\n/);
  });

  it('lenses above the matrices, a Visualize lens above the FFN, and the status bar summary', async () => {
    const ed = await openCopy(sampleText('michael-jordan.ffn.json'));
    const lensesOf = async (): Promise<string[]> => (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', ed.document.uri, 100))
      .map((l) => l.command?.title ?? '');
    const titles = await waitFor('the lenses', async () => {
      const t = await lensesOf();
      return t.length > 3 && t;
    });
    assert.ok(titles.some((t) => /^W1 · up-projection · \[4 × 8\] · 32 params · 2 dead neurons$/.test(t)), titles.join('\n'));
    assert.ok(titles.some((t) => /Visualize layer 0 FFN · 2 of 4 neurons dead/.test(t)), titles.join('\n'));
    assert.ok(titles.some((t) => /^Wq · query projection · \[8 × 8\] · 64 params$/.test(t)), titles.join('\n'));
  });

  it('the code lens follows the text\'s version: asked right after an edit, it gives the new counts, never the old', async () => {
    const ed = await openCopy(sampleText('michael-jordan.ffn.json'));
    const doc = ed.document;
    const visualize = async (): Promise<string> => (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 100))
      .map((l) => l.command?.title ?? '').find((t) => t.includes('Visualize layer 0 FFN')) ?? '';
    await waitFor('the lenses of the sample', async () => /2 of 4 neurons dead/.test(await visualize()));
    const text = doc.getText();
    const at = text.indexOf('[-3, -1, -1, -0.5]');
    const edit = new vscode.WorkspaceEdit();
    edit.replace(doc.uri, new vscode.Range(doc.positionAt(at), doc.positionAt(at + '[-3, -1, -1, -0.5]'.length)), '[10, 10, 10, 10]');
    assert.ok(await vscode.workspace.applyEdit(edit));
    // (asked at once, before the worker's run of this version is done: the answer waits for it)
    const after = await visualize();
    assert.equal(after, '$(graph) Visualize layer 0 FFN · 0 of 4 neurons dead', `version ${doc.version}`);
  });

  it('a JSON file not named *.ffn.json is a model by its top level: a nested "layers" is not enough, typing "ffn" at the top makes it one', async () => {
    const { client, documents } = await api();
    const rejected = new Set<string>();
    const sub = client.onMessage((m) => {
      if (m.type === 'notModel') rejected.add(m.doc);
    });
    try {
      // mentions "version": 1 and "layers": (the cheap sniff says maybe), but only nested
      const notModel = await vscode.workspace.openTextDocument({ language: 'json', content: '{\n  "version": 1,\n  "settings": { "layers": 3 },\n  "x": [1, "a"]\n}\n' });
      const ed = await vscode.window.showTextDocument(notModel, vscode.ViewColumn.One);
      const key = notModel.uri.toString();
      await waitFor('the worker to say it is no model', () => rejected.has(key));
      await waitFor('the document let go', () => !documents.isTracked(notModel.uri));
      assert.deepEqual(diagnostics(notModel.uri), [], 'no FFN Lens diagnostics on a file that is no model');
      // a top-level "ffn" (with no input yet): now it is a model file, with what is missing said
      assert.ok(await ed.edit((e) => e.insert(notModel.positionAt(notModel.getText().indexOf('"x"')), '"ffn": { "W1": [[1]], "W2": [[1]] },\n  ')));
      await waitFor('the document tracked', () => documents.isTracked(notModel.uri));
      const d = await waitFor('a diagnostic saying what is missing', () => diagnostics(notModel.uri).find((x) => /input/.test(x.message)));
      assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    } finally {
      sub.dispose();
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });
});
