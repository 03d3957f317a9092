// "FFN Lens: New Model File…": pick a preset, choose where to save, and get a model file with
// seeded random weights (src/model/generate.ts), opened in an editor.
//
// Files on disk are streamed chunk by chunk to a temporary file beside the target and renamed
// into place at the end, so an 80 MB file is never one string, a cancel or a failure leaves
// nothing behind, and an existing file is replaced only by a complete one. Other file systems
// (virtual workspaces) get the bytes in one vscode.workspace.fs.writeFile.
//
// VS Code does not hand documents over 50 MB to extensions: those are opened with vscode.open
// (the editor shows them; the panel reads the file from disk and follows its saves).

import * as vscode from 'vscode';
import { Cancelled, type LocalFiles } from './localFiles';
import { EXTENSION_FILE_LIMIT } from '../editor/diskModels';
import { describePreset, estimateBytes, formatBytes, modelChunks, PRESETS, type PresetId } from '../model/generate';
import { CHECKPOINT_PRESETS, checkpointBytes, checkpointChunks, checkpointModelText, configText, type CheckpointPreset } from '../checkpoint/presets';

/** Files estimated above this get a progress notification (with a Cancel button). */
const PROGRESS_BYTES = 4 * 1000 * 1000;

type PresetItem = vscode.QuickPickItem & ({ readonly preset: PresetId } | { readonly checkpoint: CheckpointPreset });

/** The file name the save dialog proposes, e.g. gpt2-small-block.ffn.json. */
export function defaultFileName(preset: PresetId): string {
  return `${preset}-block.ffn.json`;
}

/**
 * The command. Returns the new file's uri, or undefined when the user cancels (the preset
 * pick, the save dialog or the progress notification) or when writing fails (then after one
 * error message, without a stack trace).
 */
/**
 * `local`: the disk, where the extension host has one (desktop): files are streamed and checkpoint
 * folders can be written; null in the web worker host (model files only, written whole).
 */
export async function newModelFile(local: LocalFiles | null, extensionUri: vscode.Uri): Promise<vscode.Uri | undefined> {
  let target: vscode.Uri | undefined;
  try {
    const items: PresetItem[] = [
      { label: 'Model files', kind: vscode.QuickPickItemKind.Separator } as PresetItem,
      ...PRESETS.map((p) => ({ label: p.label, description: describePreset(p.id), detail: p.detail, preset: p.id })),
      // (a checkpoint folder of 270 MB to 5 GB is streamed to disk: not offered where there is none)
      ...(local ? [
        { label: 'Checkpoints (random weights)', kind: vscode.QuickPickItemKind.Separator } as PresetItem,
        ...CHECKPOINT_PRESETS.map((c) => ({ label: c.label, description: formatBytes(checkpointBytes(c)), detail: c.detail, checkpoint: c })),
      ] : []),
    ];
    const pick = await vscode.window.showQuickPick(items, {
      title: 'FFN Lens: New Model File',
      placeHolder: 'A model file with seeded random weights, or a checkpoint folder in the Hugging Face layout',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!pick) return undefined;
    if ('checkpoint' in pick) return local ? await newCheckpoint(pick.checkpoint, local, extensionUri) : undefined;
    const preset = pick.preset;

    const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? (local ? vscode.Uri.file(local.homedir()) : undefined);
    // a name not taken yet: Enter in the dialog never replaces a file the user made earlier
    const defaultUri = folder ? await freeName(folder, defaultFileName(preset)) : undefined;
    target = await vscode.window.showSaveDialog({
      title: `FFN Lens: save the ${pick.label} model file`,
      defaultUri,
      saveLabel: 'Create',
      filters: { 'FFN Lens model files': ['json'], 'All files': ['*'] },
    });
    if (!target) return undefined;
    const uri = target;

    const estimate = estimateBytes({ preset });
    const write = (report: Progress): Promise<number> =>
      uri.scheme === 'file' && local ? local.writeChunks(uri.fsPath, modelChunks({ preset }), report) : writeWhole(uri, preset, estimate, report);
    let bytes: number;
    if (estimate < PROGRESS_BYTES) bytes = await write(() => true);
    else {
      bytes = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `FFN Lens: writing ${baseName(uri)}`, cancellable: true },
        async (progress, token) => {
          let shown = 0;
          return write((done) => {
            const pct = Math.min(99, (100 * done) / estimate);
            progress.report({ increment: pct - shown, message: `${formatBytes(done)} of about ${formatBytes(estimate)}` });
            shown = pct;
            return !token.isCancellationRequested;
          });
        });
    }

    await openModel(uri, bytes);
    return uri;
  } catch (e) {
    if (e instanceof Cancelled) return undefined;
    const where = target ? ` ${baseName(target)}` : ' the model file';
    void vscode.window.showErrorMessage(`FFN Lens: could not create${where}: ${describeError(e)}`);
    return undefined;
  }
}

/**
 * A checkpoint preset: the model file where the user saves it, the checkpoint's folder beside it
 * (config.json, model.safetensors streamed with progress and Cancel). Only on disk (file:).
 */
async function newCheckpoint(preset: CheckpointPreset, local: LocalFiles, extensionUri: vscode.Uri): Promise<vscode.Uri | undefined> {
  let target: vscode.Uri | undefined;
  try {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(local.homedir());
    target = await vscode.window.showSaveDialog({
      title: `FFN Lens: save the model file of the ${preset.label}`,
      defaultUri: await freeName(folder, `${preset.folder}.ffn.json`),
      saveLabel: 'Create',
      filters: { 'FFN Lens model files': ['json'], 'All files': ['*'] },
    });
    if (!target) return undefined;
    if (target.scheme !== 'file') throw new Error('checkpoints are written to disk only: choose a folder on this machine');
    const file = target.fsPath;
    const dir = local.join(local.dirname(file), preset.folder);
    const total = checkpointBytes(preset);
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `FFN Lens: writing ${preset.folder}/model.safetensors`, cancellable: true },
      async (progress, token) => {
        await local.mkdir(dir);
        await local.writeFile(local.join(dir, 'config.json'), configText(preset));
        if (preset.tokenizer) {
          const bundled = vscode.Uri.joinPath(extensionUri, 'media', 'tokenizers', preset.tokenizer.name, 'tokenizer.json');
          await local.writeFile(local.join(dir, 'tokenizer.json'), new TextDecoder().decode(await vscode.workspace.fs.readFile(bundled)));
        }
        let shown = 0;
        await local.writeChunks(local.join(dir, 'model.safetensors'), checkpointChunks(preset), (done) => {
          const pct = Math.min(99, (100 * done) / total);
          progress.report({ increment: pct - shown, message: `${formatBytes(done)} of ${formatBytes(total)}` });
          shown = pct;
          return !token.isCancellationRequested;
        });
      });
    await local.writeFile(file, checkpointModelText(preset));
    await vscode.window.showTextDocument(target, { preview: false });
    return target;
  } catch (e) {
    if (e instanceof Cancelled) return undefined;
    void vscode.window.showErrorMessage(`FFN Lens: could not create ${target ? baseName(target) : 'the checkpoint'}: ${describeError(e)}`);
    return undefined;
  }
}

/** Called after each chunk with the bytes written so far; false asks to stop (cancel). */
type Progress = (bytesDone: number) => boolean;

/** Other file systems: gather the encoded chunks, then one writeFile. */
async function writeWhole(uri: vscode.Uri, preset: PresetId, estimate: number, progress: Progress): Promise<number> {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  let done = 0;
  for (const chunk of modelChunks({ preset })) {
    const bytes = enc.encode(chunk);
    parts.push(bytes);
    done += bytes.length;
    if (!progress(Math.min(done, estimate))) throw new Cancelled();
    await new Promise<void>((resolve) => setTimeout(resolve, 0)); // let the progress and Cancel through
  }
  const all = new Uint8Array(done);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  parts.length = 0;
  await vscode.workspace.fs.writeFile(uri, all);
  return done;
}

/** `tiny-block.ffn.json`, else `tiny-block-2.ffn.json`, … : the first that does not exist in `folder`. */
async function freeName(folder: vscode.Uri, name: string): Promise<vscode.Uri> {
  const base = name.replace(/\.ffn\.json$/, '');
  for (let n = 1; n < 1000; n++) {
    const uri = vscode.Uri.joinPath(folder, n === 1 ? name : `${base}-${n}.ffn.json`);
    try {
      await vscode.workspace.fs.stat(uri);
    } catch {
      return uri;
    }
  }
  return vscode.Uri.joinPath(folder, name);
}

/**
 * In a text editor when VS Code lets extensions have the document; else with vscode.open. In the
 * editors' column, not the panel's, should the panel have the focus.
 */
async function openModel(uri: vscode.Uri, bytes: number): Promise<void> {
  const viewColumn = vscode.window.activeTextEditor?.viewColumn ?? vscode.window.visibleTextEditors[0]?.viewColumn ?? vscode.ViewColumn.One;
  if (bytes <= EXTENSION_FILE_LIMIT) {
    try {
      await vscode.window.showTextDocument(uri, { preview: false, viewColumn });
      return;
    } catch {
      // too large after all, or another refusal: open it the way VS Code opens any file
    }
  }
  // (the panel that opens next says, once, that it reads this file from disk)
  await vscode.commands.executeCommand('vscode.open', uri, { viewColumn });
}

function baseName(uri: vscode.Uri): string {
  return uri.path.slice(uri.path.lastIndexOf('/') + 1);
}

/** One line for the user: what went wrong, in words, without a stack trace. */
function describeError(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  switch (code) {
    case 'EACCES': case 'EPERM': case 'NoPermissions': return 'permission denied (choose a folder you can write to)';
    case 'ENOSPC': return 'the disk is full';
    case 'EROFS': return 'the file system is read-only';
    case 'ENOENT': case 'FileNotFound': return 'the folder does not exist';
    case 'EISDIR': case 'FileIsADirectory': return 'a folder has that name';
  }
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0] || 'an unknown error';
}
