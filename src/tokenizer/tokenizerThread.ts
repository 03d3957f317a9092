// The tokenizer thread's body, the same on both hosts (nodeTokenizerMain.ts, webTokenizerMain.ts):
// loads tokenizer.json files and encodes texts, one request at a time. It runs apart from the
// compute worker because a tokenizer's own regular expression can backtrack for minutes; the
// worker stops this thread when a request runs over its time and starts another.

import type { FromTokenizerThread, ToTokenizerThread } from './threadProtocol';
import { firstLine, loadTokenizer, TokenizerError, type LoadedTokenizer } from './tokenizer';

export function serveTokenizers(post: (msg: FromTokenizerThread, transfer?: ArrayBuffer[]) => void, onMessage: (h: (msg: ToTokenizerThread) => void) => void): void {
  const loaded = new Map<number, LoadedTokenizer>();
  onMessage((m) => {
    if (m.type === 'drop') {
      loaded.delete(m.key);
      return;
    }
    post({ type: 'started', req: m.req });
    try {
      if (m.type === 'load') {
        const t = loadTokenizer(m.json, m.config, m.file);
        loaded.set(m.key, t);
        const { ids, tokens } = vocabulary(t);
        post({ type: 'loaded', req: m.req, vocabSize: t.vocabSize, byteLevel: t.byteLevel, patterns: t.patterns, ids, tokens }, [ids.buffer as ArrayBuffer]);
        return;
      }
      const t = loaded.get(m.key);
      if (!t) throw new TokenizerError('the tokenizer is not loaded in its thread');
      const e = t.encode(m.text);
      post({ type: 'encoded', req: m.req, ids: e.ids, tokens: e.tokens });
    } catch (e) {
      post({ type: 'failed', req: m.req, message: e instanceof TokenizerError ? e.message : `the tokenizer failed: ${firstLine(e)}` });
    }
  });
}

/** Every id that has a token, with its token. */
function vocabulary(t: LoadedTokenizer): { ids: Int32Array; tokens: string[] } {
  const ids: number[] = [];
  const tokens: string[] = [];
  for (let id = 0; id < t.vocabSize; id++) {
    const tok = t.token(id);
    if (tok !== undefined) {
      ids.push(id);
      tokens.push(tok);
    }
  }
  return { ids: Int32Array.from(ids), tokens };
}
