// "FFN Lens: Open Sample": the bundled model files that teach, each opened as an untitled copy
// named after the sample (so editing it never changes the installed extension, and saving it
// proposes the sample's name), with its panel beside.
import * as vscode from 'vscode';

export interface SampleInfo {
  readonly file: string;
  readonly label: string;
  readonly detail: string;
  /** The checkpoint folder the sample names (copied beside it into the workspace). */
  readonly checkpoint?: string;
}

export const SAMPLES: readonly SampleInfo[] = [
  { file: 'identity-weights.ffn.json', label: 'Identity weights', detail: 'The worked example: identity W1 and W2, so only the biases and ReLU change the input.' },
  { file: 'attention-then-ffn.ffn.json', label: 'Attention, then an FFN', detail: 'Self-attention over a few tokens, then an FFN four times wider with GELU.' },
  { file: 'michael-jordan.ffn.json', label: 'Michael Jordan plays…', detail: 'A neuron that fires only for "Michael" AND "Jordan" writes a "basketball" direction; the head predicts it.' },
  { file: 'xor-relu.ffn.json', label: 'XOR needs a non-linearity', detail: 'An FFN computes XOR with ReLU; switch to "linear" and no weights can.' },
  { file: 'encoder-block.ffn.json', label: 'Encoder block', detail: '4 heads, causal mask, residual connections, post-LayerNorm.' },
  { file: 'swiglu-gated.ffn.json', label: 'SwiGLU, as in LLaMA', detail: 'A gated FFN: act = SiLU(x·Wgᵀ) ⊙ (x·W1ᵀ).' },
  { file: 'gpt2-two-layers.ffn.json', label: 'Two GPT-2-style layers', detail: 'Pre-LayerNorm, two layers, a final norm and a prediction head.' },
  { file: 'stories260K.ffn.json', label: 'stories260K: a real trained model', detail: 'Karpathy\'s tiny Llama trained on children\'s stories (checkpoint folder beside it): what does it say after "Once upon a time"?', checkpoint: 'stories260K' },
];

export async function pickSample(extensionUri: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  const items = SAMPLES.map((s) => ({ label: s.label, description: s.file, detail: s.detail, sample: s }));
  const pick = await vscode.window.showQuickPick(items, { title: 'FFN Lens: Open Sample', placeHolder: 'A model file to open, with its panel beside', matchOnDetail: true });
  if (!pick) return undefined;
  return openSample(extensionUri, pick.sample.file);
}

/**
 * The sample in the editor. In a workspace folder: the folder's own file when it already holds the
 * sample (a folder of the samples, or one opened before and saved), else an untitled document named
 * after it there (the tab reads "xor-relu.ffn.json", Save writes it there) and brought back as the
 * user left it when asked again. A sample that names a checkpoint gets its folder copied beside it.
 * Without a folder, a plain untitled document (a checkpoint then named by its absolute path).
 */
export async function openSample(extensionUri: vscode.Uri, file: string): Promise<vscode.TextDocument> {
  const sample = SAMPLES.find((x) => x.file === file);
  let text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(extensionUri, 'samples', file)));
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!folder) {
    if (sample?.checkpoint) text = text.replace(`"./${sample.checkpoint}"`, JSON.stringify(vscode.Uri.joinPath(extensionUri, 'samples', sample.checkpoint).fsPath));
    return vscode.workspace.openTextDocument({ language: 'ffn-json', content: text });
  }
  const target = vscode.Uri.joinPath(folder, file);
  const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'untitled' && d.uri.path === target.path);
  if (open) return open;
  if (sample?.checkpoint) {
    const dest = vscode.Uri.joinPath(folder, sample.checkpoint);
    if (!(await exists(dest))) await vscode.workspace.fs.copy(vscode.Uri.joinPath(extensionUri, 'samples', sample.checkpoint), dest);
  }
  if (await exists(target)) return vscode.workspace.openTextDocument(target);
  const doc = await vscode.workspace.openTextDocument(target.with({ scheme: 'untitled' }));
  const edit = new vscode.WorkspaceEdit();
  edit.insert(doc.uri, new vscode.Position(0, 0), text);
  await vscode.workspace.applyEdit(edit);
  return doc;
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}
