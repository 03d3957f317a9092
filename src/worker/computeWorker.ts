// The compute worker: a worker thread that reads model files and runs the forward pass, so the
// extension host's thread (the editor's) never waits on either. One DocSession per document.
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { FromWorker, ToWorker } from '../protocol/worker';
import { defaultKernel, type MatmulKernel } from '../core/kernel';
import { DocSession } from './session';
import { CheckpointStore } from '../checkpoint/store';
import { nodeFiles } from '../checkpoint/nodeFiles';

const port = parentPort;
if (!port) throw new Error('computeWorker must run in a worker thread');

const sessions = new Map<string, DocSession>();
/** Documents read from disk: where. */
const paths = new Map<string, string>();
let debounceMs = 150;
let kernel: MatmulKernel | null = null;
const getKernel = (): MatmulKernel => (kernel ??= defaultKernel());
/** Checkpoints, loaded once for every document that names them. */
const store = new CheckpointStore(nodeFiles);
const post = (msg: FromWorker, transfer?: ArrayBuffer[]): void => port.postMessage(msg, transfer);

port.on('message', (msg: ToWorker) => {
  try {
    handle(msg);
  } catch (e) {
    post({ type: 'log', message: `worker: ${(e as Error)?.stack ?? String(e)}` });
  }
});

function handle(msg: ToWorker): void {
  switch (msg.type) {
    case 'open': {
      sessions.get(msg.doc)?.dispose();
      sessions.set(msg.doc, new DocSession(msg.doc, msg.fileName, msg.text, msg.version, post, getKernel, () => debounceMs, msg.sniffed, store));
      return;
    }
    case 'openFile':
    case 'reloadFile': {
      const path = msg.type === 'openFile' ? msg.path : paths.get(msg.doc);
      if (!path) return;
      paths.set(msg.doc, path);
      // As bytes: a file too large for VS Code is too large to copy into a JS string for nothing.
      let text: Uint8Array;
      try {
        text = readFileSync(path);
      } catch (e) {
        post({ type: 'fileError', doc: msg.doc, message: `cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}` });
        return;
      }
      const s = sessions.get(msg.doc);
      // A document VS Code has open: its text as VS Code decodes it (UTF-8, without a BOM).
      const content = msg.type === 'openFile' && msg.asDocument ? new TextDecoder('utf-8').decode(text) : text;
      if (s && msg.type === 'reloadFile') s.replace(msg.version, content);
      else {
        s?.dispose();
        sessions.set(msg.doc, new DocSession(msg.doc, path, content, msg.version, post, getKernel, () => debounceMs, msg.type === 'openFile' && msg.sniffed, store));
      }
      return;
    }
    case 'change':
      sessions.get(msg.doc)?.change(msg.version, msg.changes, msg.length);
      return;
    case 'close':
      sessions.get(msg.doc)?.dispose();
      sessions.delete(msg.doc);
      paths.delete(msg.doc);
      return;
    case 'subscribe':
      sessions.get(msg.doc)?.subscribe(msg.on);
      return;
    case 'want':
      sessions.get(msg.doc)?.want(msg.ids);
      return;
    case 'config':
      debounceMs = msg.debounceMs;
      return;
    case 'compare':
      sessions.get(msg.doc)?.setCompare(msg.baseline);
      return;
    case 'cancel':
      for (const s of sessions.values()) s.stopJob('cancelled', msg.id);
      return;
    case 'query': {
      const s = sessions.get(msg.doc);
      if (s && msg.query.kind === 'lens' && msg.query.request.kind === 'patch') {
        // a job: its reply comes when it ends (progress meanwhile)
        try {
          s.patch(msg.id, msg.query.request, (result) => post({ type: 'reply', id: msg.id, result }));
        } catch (e) {
          post({ type: 'reply', id: msg.id, result: null });
          throw e;
        }
        return;
      }
      let result = null;
      try {
        result = s ? s.query(msg.query) : null;
      } finally {
        post({ type: 'reply', id: msg.id, result }); // an answer always, so the host never waits out its timeout
      }
      return;
    }
  }
}
