// The worker's messages go to the host one batch per task: what a task posts (a run's held
// messages released at once, a slice's stages) leaves as one message when the task ends. Each
// message through VS Code's channel on to the webview is a task or three on the window's thread,
// so the host passes a batch's panel part on as one too (src/compute/computeClient.ts, panel.ts).
import type { FromWorker } from '../protocol/worker';

type Post = (msg: FromWorker, transfer?: ArrayBuffer[]) => void;

/** `post` batched: the messages posted in one task go out together when it ends (a single one as it is). */
export function batchedPost(post: Post): Post {
  let queue: Array<[FromWorker, ArrayBuffer[] | undefined]> | null = null;
  const flush = (): void => {
    const q = queue ?? [];
    queue = null;
    if (q.length === 1) return post(q[0][0], q[0][1]);
    post({ type: 'batch', messages: q.map(([m]) => m) }, q.flatMap(([, t]) => t ?? []));
  };
  return (msg, transfer) => {
    if (!queue) {
      queue = [];
      queueMicrotask(flush);
    }
    queue.push([msg, transfer]);
  };
}

/** The messages one posted message carries (a batch's, in order). */
export function unbatch(m: FromWorker): readonly FromWorker[] {
  return m.type === 'batch' ? m.messages : [m];
}
