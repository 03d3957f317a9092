// How Node starts the tokenizer thread (tokenizerRunner.ts): a worker_threads worker running
// dist/tokenizerWorker.js (nodeTokenizerMain.ts), which keeps the process alive only while a
// request is out (the command line waits for its prompt's ids, and exits after).
import { basename, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SpawnTokenizerThread, TokenizerThread } from './threadProtocol';

/**
 * The thread's script for code in `dir`: the bundle's beside it (dist/tokenizerWorker.js), or the
 * compiled module's (out/src/tokenizer/, tests). Not looked for on disk (nothing outside a checkpoint
 * folder is touched for it): a script that is not there fails to start, and tokenizing stays in
 * the caller's thread.
 */
export function nodeTokenizerScript(dir: string): string {
  return basename(dir) === 'dist' ? join(dir, 'tokenizerWorker.js') : join(dir, '..', 'tokenizer', 'nodeTokenizerMain.js');
}

export function nodeTokenizerThread(script: string): SpawnTokenizerThread {
  return () => {
    const w = new Worker(script);
    w.unref();
    const thread: TokenizerThread = {
      post: (msg) => w.postMessage(msg),
      onMessage: (h) => void w.on('message', h),
      onError: (h) => {
        w.on('error', (e: Error) => h(e.message.split('\n')[0]));
        w.on('exit', (code) => h(`it exited with code ${code}`));
      },
      terminate: () => void w.terminate(),
      hold: (on) => (on ? w.ref() : w.unref()),
    };
    return thread;
  };
}
