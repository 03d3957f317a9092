// "FFN Lens: Open Sample": the bundled model files that teach, each opened as a new untitled
// copy (so editing it never changes the installed extension), with its panel beside.
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
  const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(extensionUri, 'samples', pick.sample.file));
  return vscode.workspace.openTextDocument({ language: 'jsonc', content: new TextDecoder().decode(bytes) });
}
