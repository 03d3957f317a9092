// The memory a run may take on Node (the compute worker, the command line): half the machine's, at
// most 4 GiB. Stages are typed arrays outside V8's heap, so the machine's memory is their limit;
// half leaves the editor and the system theirs, and past 4 GiB a run takes minutes in a worker
// every open model file shares (5,000 tokens of stories260K: 8.8 GB, over 10 minutes).
// (Node only: the web build's worker keeps runSize's default.)
import { totalmem } from 'node:os';
import { setRunBudget } from '../core/runSize';

export const NODE_RUN_MAX = 2 ** 32;

export function setNodeRunBudget(): void {
  setRunBudget(Math.min(totalmem() / 2, NODE_RUN_MAX));
}
