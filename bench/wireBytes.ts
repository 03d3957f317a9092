// Section `wire`: the bytes one edit of a GPT-2-small-shaped checkpoint's model file posts on the
// way to the panel: worker → host (the real dist/worker.js in a worker thread, subscribed as a
// panel is, showing what a new panel shows) and host → webview (src/panel/relay.ts, the function
// the panel passes each message through). A message's bytes: its JSON, plus its ArrayBuffers
// (transferred, not serialized: counted apart as "numbers").
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import type { FromWorker, ToWorker } from '../src/protocol/worker';
import { toWebview } from '../src/panel/relay';
import { unbatch } from '../src/worker/postBatch';

/** Bytes of one edit, per hop: all, and the part that is not stage numbers (JSON: cloned and serialized on the host's thread). */
export interface HopBytes { total: number; json: number; messages: number }
export interface EditBytes { toHost: HopBytes; toWebview: HopBytes; summaryJson: number }

/** The bytes a message takes: its JSON and the ArrayBuffers it carries. */
export function messageBytes(m: unknown): { json: number; buffers: number } {
  let buffers = 0;
  const json = JSON.stringify(m, (_k, v: unknown) => {
    if (v instanceof ArrayBuffer) {
      buffers += v.byteLength;
      return 0;
    }
    return v;
  });
  return { json: Buffer.byteLength(json), buffers };
}

const hop = (): HopBytes => ({ total: 0, json: 0, messages: 0 });
function add(h: HopBytes, m: unknown): void {
  const b = messageBytes(m);
  h.total += b.json + b.buffers;
  h.json += b.json;
  h.messages++;
}

/**
 * Opens the model file of `folder` (a GPT-2-small-shaped checkpoint) with 32 tokens and edits it
 * `rounds` times each way: an `ablate` entry (the plan unchanged), one token id replaced (the same
 * count: the plan unchanged, the tokens not), a token appended or taken off (the plan's shapes change).
 */
export async function wireBytesOfEdits(workerJs: string, folder: string, dir: string, rounds: number): Promise<Record<string, EditBytes[]>> {
  const w = new Worker(workerJs);
  const doc = 'bench://wire.ffn.json';
  const fileName = join(dir, 'wire.ffn.json');
  const ids = Array.from({ length: 32 }, (_, i) => (i * 7919) % 40000);
  const file = (tokens: readonly number[], extra = ''): string => `{"version": 1, "checkpoint": ${JSON.stringify(folder)}, "token_ids": [${tokens.join(', ')}]${extra}}`;
  let version = 1;
  let text = file(ids);
  let current: EditBytes | null = null;
  const ended = new Map<number, () => void>();
  w.on('message', (b: FromWorker) => {
    for (const m of unbatch(b)) take(m);
  });
  const take = (m: FromWorker): void => {
    if (!('doc' in m) || m.doc !== doc || !('version' in m) || m.version !== version || !current) return;
    add(current.toHost, m);
    const out = toWebview(m);
    if (out) add(current.toWebview, out);
    if (m.type === 'model' && m.summary) current.summaryJson = messageBytes(m.summary).json;
    if (m.type === 'runtime') ended.get(m.version)?.(); // (the last message of a run)
  };
  const send = (m: ToWorker): void => w.postMessage(m);
  const edit = async (next: string): Promise<EditBytes> => {
    const old = text;
    text = next;
    version++;
    current = { toHost: hop(), toWebview: hop(), summaryJson: 0 };
    const got = current;
    const done = new Promise<void>((res) => ended.set(version, res));
    send({ type: 'change', doc, version, changes: [{ offset: 0, length: old.length, text: next }], length: next.length });
    await done;
    await new Promise((r) => setTimeout(r, 200)); // (a quiet spell: each edit runs at once, on its own)
    return got;
  };
  try {
    send({ type: 'config', debounceMs: 150 });
    current = { toHost: hop(), toWebview: hop(), summaryJson: 0 };
    const opened = new Promise<void>((res) => ended.set(version, res));
    send({ type: 'open', doc, fileName, version, text });
    send({ type: 'subscribe', doc, on: true });
    await opened;
    const out: Record<string, EditBytes[]> = { ablate: [], token: [], append: [] };
    for (let i = 0; i < rounds; i++) {
      out.ablate.push(await edit(file(ids, `, "ablate": ["layers.6.ffn.neuron.${i + 1}"]`)));
      out.token.push(await edit(file([(ids[0] + (i + 1) * 101) % 40000, ...ids.slice(1)])));
      await edit(file(ids.slice(0, 31)));
      out.append.push(await edit(file(ids)));
    }
    return out;
  } finally {
    await w.terminate();
  }
}
