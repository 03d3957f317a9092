// The host bench's generation phase (issue 31: "the panel keeps up while generating: the host
// thread never held more than 10 ms"): a model file naming a random-weight GPT-2-small checkpoint
// (F32, 12 layers; written once under the OS's temp folder, as the bench's other sections do) with
// "generate" for 32 tokens, opened with its panel. From the generation's start to its end, every
// handler of ours on the extension host's thread is timed (src/host/busy.ts: the worker's messages,
// the webview's, the editor's events), then the same while the panel is sent the generated tokens'
// stages (the run of the input and the 32 tokens, as a pick of a generated token asks for it).
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { FfnLensApi } from '../../src/extension';
import { checkpointChunks, checkpointPreset, configText } from '../../src/checkpoint/presets';
import type { FromWorker } from '../../src/protocol/worker';

const TOKENS = 32;
const INPUT = Array.from({ length: 8 }, (_, i) => (i * 7919) % 40000);

/** One phase's longest handlers (as the index's ownWork tells them apart from GC and other processes). */
export type OwnWork = (top: ReadonlyArray<readonly [number, string, number]>) => unknown;

export interface GenerationFigures {
  tokens: number;
  reason: string;
  /** The worker's generation, start to end, as the host saw it. */
  ms: number;
  ours: FfnLensApi['busy'];
  top: unknown;
  maxBlockMs: number;
  /** The generated tokens' stages sent to the panel (ToWorker showGenerated) and drawn. */
  pick: { ms: number; ours: FfnLensApi['busy']; top: unknown; maxBlockMs: number } | null;
}

/** The GPT-2-small preset's folder, written once (the bench's sections share it). */
function gpt2Small(): string {
  const preset = checkpointPreset('gpt2-small-checkpoint');
  const folder = join(tmpdir(), 'ffn-bench-checkpoints', preset.folder);
  if (!existsSync(join(folder, 'model.safetensors'))) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'config.json'), configText(preset));
    const fd = openSync(join(folder, 'model.safetensors'), 'w');
    for (const c of checkpointChunks(preset)) writeSync(fd, c);
    closeSync(fd);
  }
  return folder;
}

async function until<T>(f: () => T | undefined | false | null, ms = 600_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function generationPhase(lens: FfnLensApi, root: string, ownWork: OwnWork, forgetGc: () => void): Promise<GenerationFigures> {
  const folder = gpt2Small();
  const file = join(root, 'gpt2-generate.ffn.json');
  writeFileSync(file, JSON.stringify({ version: 1, name: 'GPT-2 small generating', checkpoint: folder, token_ids: INPUT, generate: { tokens: TOKENS, temperature: 0, top_k: 5, seed: 1 } }, null, 2));
  const uri = vscode.Uri.file(file).toString();
  const h = monitorEventLoopDelay({ resolution: 1 });
  let started = -1;
  let ended: { at: number; reason: string; version: number } | null = null;
  let tokens = 0;
  let seqDone = -1;
  // (registered first: the phase's clocks start inside the start's own handler)
  const sub = lens.client.onMessage((m: FromWorker) => {
    if (m.type !== 'generation' || m.doc !== uri) return;
    if (m.event === 'start' && !ended) {
      started = performance.now();
      lens.resetBusy();
      forgetGc();
      h.reset();
      h.enable();
    } else if (m.event === 'token') tokens = m.done;
    else if (m.event === 'end' && started >= 0 && !ended) ended = { at: performance.now(), reason: m.reason, version: m.version };
  });
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
  const p = lens.panels.show(doc);
  const end = await until(() => ended);
  const ours = { ...lens.busy, top: [...lens.busy.top] };
  const maxBlockMs = h.max / 1e6;
  h.disable();
  await new Promise((r) => setTimeout(r, 50)); // (the run clock's samples past the last handler)
  const top = ownWork(ours.top);
  // a generated token picked: the run of the input and the tokens generated, sent and drawn
  let pick: GenerationFigures['pick'] = null;
  if (end.reason === 'done') {
    await until(() => p.stats.lastRenderedVersion === doc.version);
    let renders = 0;
    const rendered = p.onDidRender(() => renders++);
    lens.resetBusy();
    forgetGc();
    h.reset();
    h.enable();
    const t0 = performance.now();
    lens.client.send({ type: 'showGenerated', doc: uri, version: end.version, on: true });
    // (the panel's "rendered" of the sequence's render: the same version, drawn again)
    await until(() => renders > 0 && (seqDone = performance.now()));
    rendered.dispose();
    const pickOurs = { ...lens.busy, top: [...lens.busy.top] };
    await new Promise((r) => setTimeout(r, 50));
    pick = { ms: seqDone - t0, ours: pickOurs, top: ownWork(pickOurs.top), maxBlockMs: h.max / 1e6 };
    h.disable();
  }
  sub.dispose();
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  return { tokens, reason: end.reason, ms: end.at - started, ours, top, maxBlockMs, pick };
}
