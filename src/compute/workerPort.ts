// The compute worker as the extension host sees it, whichever host it runs in: a worker_threads
// Worker on Node (nodeWorkerPort.ts), a Web Worker in the web worker extension host
// (webWorkerPort.ts). ComputeClient talks only to this.
import type { FromWorker, ToWorker } from '../protocol/worker';

export interface WorkerPort {
  postMessage(msg: ToWorker, transfer?: ArrayBuffer[]): void;
  onMessage(handler: (msg: FromWorker) => void): void;
  onError(handler: (message: string) => void): void;
  /** The worker stopped (Node reports an exit; a Web Worker that throws at start is reported so too). */
  onExit(handler: (code: number) => void): void;
  terminate(): void;
}

export type StartWorker = () => WorkerPort;
