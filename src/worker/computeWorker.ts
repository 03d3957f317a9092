// The compute worker on Node (the desktop extension host): a worker_threads worker, reading files
// with Node's fs. Its body is workerMain.ts, shared with the Web Worker (webWorker.ts).
import { promises as fsp } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { enableWasmRelaxedSimd } from './nodeWasmFeatures';
import { setNodeRunBudget } from './nodeRunBudget';
import type { ToWorker } from '../protocol/worker';
import { nodeMatmulHelper } from './nodeMatmulHelper';
import { nodeTokenizerScript, nodeTokenizerThread } from '../tokenizer/nodeTokenizerThread';
import { runWorker } from './workerMain';

const port = parentPort;
if (!port) throw new Error('computeWorker must run in a worker thread');

enableWasmRelaxedSimd(); // before the kernel is made
setNodeRunBudget();

runWorker({
  post: (msg, transfer) => port.postMessage(msg, transfer),
  onMessage: (h) => port.on('message', (m: ToWorker) => h(m)),
  files: nodeFiles,
  readFile: async (path) => new Uint8Array(await fsp.readFile(path)),
  // A second thread only where there are cores to spare: on 2 cores VS Code's own processes need one
  // (opening a GPT-2-small checkpoint in code-server, the first forward took 517 and 830 ms with the
  // helper, 300-500 without: the helper's core is the one the workbench and the extension host use).
  spawnMatmulHelper: availableParallelism() > 2 ? nodeMatmulHelper(join(__dirname, 'matmulHelper.js')) : undefined,
  spawnTokenizerThread: nodeTokenizerThread(nodeTokenizerScript(__dirname)), // (dist/tokenizerWorker.js)
});
