// What the compute worker and its tokenizer thread say to each other (tokenizerRunner.ts ↔
// tokenizerThread.ts). Each request is answered `started` when the thread takes it (the time budget
// counts from there: waiting in line and the thread's own start do not count), then once more.

import type { FilePattern } from './tokenizerJson';

export type ToTokenizerThread =
  | { readonly type: 'load'; readonly req: number; readonly key: number; readonly json: string; readonly config?: string; readonly file: string }
  | { readonly type: 'encode'; readonly req: number; readonly key: number; readonly text: string }
  | { readonly type: 'drop'; readonly key: number };

export type FromTokenizerThread =
  | { readonly type: 'started'; readonly req: number }
  | {
    readonly type: 'loaded'; readonly req: number; readonly vocabSize: number; readonly byteLevel: boolean; readonly patterns: readonly FilePattern[];
    /** The vocabulary, id by id where there is a token: `ids[i]` is spelt `tokens[i]`. */
    readonly ids: Int32Array; readonly tokens: readonly string[];
  }
  | { readonly type: 'encoded'; readonly req: number; readonly ids: readonly number[]; readonly tokens: readonly string[] }
  | { readonly type: 'failed'; readonly req: number; readonly message: string };

/** A started tokenizer thread, as the platform gives it (worker_threads on Node, a Web Worker on the web). */
export interface TokenizerThread {
  post(msg: ToTokenizerThread): void;
  onMessage(handler: (msg: FromTokenizerThread) => void): void;
  /** The thread failed (its script did not load, it threw outside a request, it ran out of memory). */
  onError(handler: (message: string) => void): void;
  terminate(): void;
  /** Whether it keeps the process alive (Node: while a request is out, so the command line waits for it). */
  hold?(on: boolean): void;
}

export type SpawnTokenizerThread = () => TokenizerThread;
