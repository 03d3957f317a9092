// How Node starts the tokenizer thread (tokenizerRunner.ts): a worker_threads worker running
// dist/tokenizerWorker.js (nodeTokenizerMain.ts), which keeps the process alive only while a
// request is out (the command line waits for its prompt's ids, and exits after).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SpawnTokenizerThread, TokenizerThread } from './threadProtocol';

/** The thread's script beside the code in `dir`: the bundle's (dist/) or the compiled module's (out/, tests). */
export function nodeTokenizerScript(dir: string): string | null {
  for (const p of [join(dir, 'tokenizerWorker.js'), join(dir, 'nodeTokenizerMain.js'), join(dir, '../tokenizer/nodeTokenizerMain.js')]) {
    if (existsSync(p)) return p;
  }
  return null;
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
