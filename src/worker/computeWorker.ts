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
  // Every core by default (ffnLens.threads caps it). Where VS Code's own processes take a helper's
  // core, the kernel notices the helper late and goes on alone for a while (matmulThreads.ts).
  spawnMatmulHelper: nodeMatmulHelper(join(__dirname, 'matmulHelper.js')),
  cores: availableParallelism(),
  spawnTokenizerThread: nodeTokenizerThread(nodeTokenizerScript(__dirname)), // (dist/tokenizerWorker.js)
});
