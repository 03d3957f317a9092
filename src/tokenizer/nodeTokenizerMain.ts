// The tokenizer thread on Node (dist/tokenizerWorker.js): a worker_threads worker started by the
// compute worker or the command line (nodeTokenizerThread.ts); its body is tokenizerThread.ts.
import { parentPort } from 'node:worker_threads';
import type { ToTokenizerThread } from './threadProtocol';
import { serveTokenizers } from './tokenizerThread';

const port = parentPort;
if (!port) throw new Error('nodeTokenizerMain must run in a worker thread');
serveTokenizers((msg, transfer) => port.postMessage(msg, transfer ?? []), (h) => port.on('message', (m: ToTokenizerThread) => h(m)));
