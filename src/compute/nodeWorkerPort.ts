// The compute worker on Node: a worker_threads Worker running dist/worker.js.
import { Worker } from 'node:worker_threads';
import type { FromWorker } from '../protocol/worker';
import type { WorkerPort } from './workerPort';

export function nodeWorkerPort(script: string): WorkerPort {
  const w = new Worker(script);
  return {
    postMessage: (msg, transfer) => w.postMessage(msg, transfer),
    onMessage: (h) => w.on('message', (m: FromWorker) => h(m)),
    onError: (h) => w.on('error', (e) => h(e.message)),
    onExit: (h) => w.on('exit', h),
    terminate: () => void w.terminate(),
  };
}
