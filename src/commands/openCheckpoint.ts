// "FFN Lens: Open Checkpoint…": pick a Hugging Face model folder (config.json + safetensors), get a
// model file beside it that points at it, opened with its panel. The folder is checked first
// (config.json readable, a supported model_type, weights present), so what the user gets opens.

import * as vscode from 'vscode';
import { MODEL_TYPES, parseConfig } from '../checkpoint/config';

/** The model file's text for a checkpoint folder named `folder` (relative to the file). */
export function checkpointFileText(folder: string, modelType: string, hasTokenizer: boolean, bos: number | null): string {
  const input = hasTokenizer
    ? '"prompt": "Michael Jordan plays the sport of"'
    : `"token_ids": [${[...(bos !== null ? [bos] : []), 10, 20, 30].join(', ')}]`;
  return `{
  // A ${modelType} checkpoint, computed by FFN Lens. Edit the ${hasTokenizer ? 'prompt' : 'token ids'} and watch every layer follow;
  // switch units off with "ablate": ["layers.0.ffn.neuron.3", "layers.0.attn.head.1"], scale them with
  // "scale": {"layers.0.ffn.neuron.3": 2}, or replace numbers with "weights": {"layers.0.ffn.W1[3][0]": 0.5}.
  // "lens": true adds the logit lens of every layer.
  "version": 1,
  "checkpoint": "./${folder}",
  ${input}
}
`;
}

export async function openCheckpoint(): Promise<vscode.Uri | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: 'FFN Lens: choose a Hugging Face model folder (config.json + model.safetensors)',
    canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Open Checkpoint',
    defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
  });
  const folder = picked?.[0];
  if (!folder) return undefined;
  const name = folder.path.split('/').filter(Boolean).pop() ?? 'model';
  const exists = async (f: string): Promise<boolean> => {
    try {
      await vscode.workspace.fs.stat(vscode.Uri.joinPath(folder, f));
      return true;
    } catch {
      return false;
    }
  };
  let config: ReturnType<typeof parseConfig>;
  let raw: Record<string, unknown>;
  try {
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder, 'config.json')));
    config = parseConfig(text, `${name}/config.json`);
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    const why = e instanceof Error && e.name === 'CheckpointError' ? e.message : `${name} has no readable config.json: is it the folder of a Hugging Face model (${MODEL_TYPES.join(', ')})?`;
    void vscode.window.showErrorMessage(`FFN Lens: ${why}`);
    return undefined;
  }
  if (!(await exists('model.safetensors')) && !(await exists('model.safetensors.index.json'))) {
    void vscode.window.showErrorMessage(`FFN Lens: ${name} has no model.safetensors (nor model.safetensors.index.json): FFN Lens reads safetensors checkpoints (pytorch_model.bin is not read)`);
    return undefined;
  }
  const parent = vscode.Uri.joinPath(folder, '..');
  let target = vscode.Uri.joinPath(parent, `${name}.ffn.json`);
  for (let n = 2; n < 1000; n++) {
    try {
      await vscode.workspace.fs.stat(target);
      target = vscode.Uri.joinPath(parent, `${name}-${n}.ffn.json`);
    } catch {
      break;
    }
  }
  const bos = typeof raw.bos_token_id === 'number' ? raw.bos_token_id : null;
  const text = checkpointFileText(name, config.modelType, await exists('tokenizer.json'), config.modelType === 'gpt2' ? null : bos);
  try {
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
  } catch (e) {
    void vscode.window.showErrorMessage(`FFN Lens: could not write ${target.path.split('/').pop()}: ${(e as Error).message.split('\n')[0]}`);
    return undefined;
  }
  await vscode.window.showTextDocument(target, { preview: false });
  await vscode.commands.executeCommand('ffnLens.visualize');
  return target;
}
