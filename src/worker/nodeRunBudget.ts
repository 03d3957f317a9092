// The memory a run may take on Node (the compute worker, the command line): half the machine's, at
// most 4 GiB. Stages are typed arrays outside V8's heap, so the machine's memory is their limit;
// half leaves the editor and the system theirs, and past 4 GiB a run takes minutes in a worker
// every open model file shares (5,000 tokens of stories260K: 8.8 GB, over 10 minutes).
// And the memory a checkpoint may take (src/checkpoint/memoryFit.ts): the machine's free memory,
// or less where a container bounds this process.
// (Node only: the web build's worker keeps runSize's default and memoryFit's browser bound.)
import { freemem, totalmem } from 'node:os';
import { setRunBudget } from '../core/runSize';
import { setMemoryProbe, type MemoryProbe } from '../checkpoint/memoryFit';

export const NODE_RUN_MAX = 2 ** 32;

export function setNodeRunBudget(): void {
  setRunBudget(Math.min(totalmem() / 2, NODE_RUN_MAX));
  setMemoryProbe(nodeMemoryProbe());
}

/** os.freemem (Linux: MemAvailable, page cache counted as free), bounded by a container's limit (cgroups) less what this process holds. */
export function nodeMemoryProbe(): MemoryProbe {
  const limit = (): number => {
    const c = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.();
    return typeof c === 'number' && c > 0 && c < totalmem() ? c : 0;
  };
  return {
    free: () => {
      const c = limit();
      return c > 0 ? Math.min(freemem(), Math.max(0, c - process.memoryUsage().rss)) : freemem();
    },
    total: () => limit() || totalmem(),
    what: 'the free memory of this machine',
  };
}
