// The web tokenizer thread's bundle (webTokenizerMain.ts) as text: esbuild.mjs puts it here when it
// bundles the web compute worker, which starts the thread from it (webTokenizerThread.ts). Empty
// anywhere else (no thread from it: tokenizing stays in the caller's thread).
export const TOKENIZER_THREAD_SOURCE: string = '';
