// "FFN Lens: Open Sample": the bundled model files that teach, each opened as an untitled copy
// named after the sample (so editing it never changes the installed extension, and saving it
// proposes the sample's name), with its panel beside.
import * as vscode from 'vscode';

export interface SampleInfo {
  readonly file: string;
  readonly label: string;
  readonly detail: string;
}

export const SAMPLES: readonly SampleInfo[] = [
  { file: 'identity-weights.ffn.json', label: 'Identity weights', detail: 'The worked example: identity W1 and W2, so only the biases and ReLU change the input.' },
  { file: 'attention-then-ffn.ffn.json', label: 'Attention, then an FFN', detail: 'Self-attention over a few tokens, then an FFN four times wider with GELU.' },
  { file: 'michael-jordan.ffn.json', label: 'Michael Jordan plays…', detail: 'A neuron that fires only for "Michael" AND "Jordan" writes a "basketball" direction; the head predicts it.' },
  { file: 'xor-relu.ffn.json', label: 'XOR needs a non-linearity', detail: 'An FFN computes XOR with ReLU; switch to "linear" and no weights can.' },
  { file: 'encoder-block.ffn.json', label: 'Encoder block', detail: '4 heads, causal mask, residual connections, post-LayerNorm.' },
  { file: 'swiglu-gated.ffn.json', label: 'SwiGLU, as in LLaMA', detail: 'A gated FFN: act = SiLU(x·Wgᵀ) ⊙ (x·W1ᵀ).' },
  { file: 'gpt2-two-layers.ffn.json', label: 'Two GPT-2-style layers', detail: 'Pre-LayerNorm, two layers, a final norm and a prediction head.' },
];

export async function pickSample(extensionUri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  const items = SAMPLES.map((s) => ({ label: s.label, description: s.file, detail: s.detail, sample: s }));
  const pick = await vscode.window.showQuickPick(items, { title: 'FFN Lens: Open Sample', placeHolder: 'A model file to open, with its panel beside', matchOnDetail: true });
  if (!pick) return undefined;
  return openSample(extensionUri, pick.sample.file);
}

/**
 * An untitled document holding the sample, named after it in the first workspace folder: the tab
 * reads "xor-relu.ffn.json", the schema applies (it matches *.ffn.json), and Save writes it there
 * (VS Code saves an untitled document with a path to that path). A name already taken on disk
 * gets a number ("xor-relu-2.ffn.json"); a copy already open comes back as the user left it.
 * Without a folder, a plain untitled document.
 */
export async function openSample(extensionUri: vscode.Uri, file: string): Promise<vscode.TextDocument> {
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(extensionUri, 'samples', file)));
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!folder) return vscode.workspace.openTextDocument({ language: 'jsonc', content: text });
  const base = file.replace(/\.ffn\.json$/, '');
  for (let n = 1; n < 100; n++) {
    const target = vscode.Uri.joinPath(folder, n === 1 ? file : `${base}-${n}.ffn.json`);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'untitled' && d.uri.path === target.path);
    if (open) return open;
    if (await exists(target)) continue;
    const doc = await vscode.workspace.openTextDocument(target.with({ scheme: 'untitled' }));
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(0, 0), text);
    await vscode.workspace.applyEdit(edit);
    return doc;
  }
  return vscode.workspace.openTextDocument({ language: 'jsonc', content: text });
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
