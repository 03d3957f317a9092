// A model file's prompt, tokenized through the store in the tokenizer's own thread: a tokenizer
// whose pattern backtracks without end is an error at "prompt" (not a worker stuck for minutes),
// the next prompt is tokenized as usual; a tokenizer.json the library would trip over is an error
// at "tokenizer" that says where in the file.
import * as assert from 'node:assert/strict';
import { readModel } from '../model/read';
import { CheckpointResolver } from './resolve';
import { CheckpointStore, resolveRead, resolveReadNow } from './store';
import { checkpointFolder, tinyGpt2 } from './testing';
import { nodeTokenizerScript, nodeTokenizerThread } from '../tokenizer/nodeTokenizerThread';
import { DEFAULT_BUDGETS, TokenizerRunner } from '../tokenizer/tokenizerRunner';
import { HOSTILE_TEXT, patternTokenizer } from '../tokenizer/testing';

describe('checkpoint store: prompts tokenized in the tokenizer\'s thread', () => {
  const setup = (tokenizer: string): { store: CheckpointStore; read(prompt: string, extra?: string): Promise<string[]> } => {
    const { files, map, folder } = checkpointFolder(tinyGpt2());
    map.set(`${folder}/tokenizer.json`, new TextEncoder().encode(tokenizer));
    const runner = new TokenizerRunner(nodeTokenizerThread(nodeTokenizerScript(__dirname)), { ...DEFAULT_BUDGETS, encodeMs: 1000 });
    const store = new CheckpointStore(files, 2000, undefined, runner);
    const resolver = new CheckpointResolver();
    return {
      store,
      read: async (prompt, extra = '') => {
        const text = `{"version": 1, "checkpoint": "${folder}", "prompt": ${JSON.stringify(prompt)}${extra}}`;
        const r = await resolveReadNow(readModel(text, '/x.ffn.json'), '/x.ffn.json', store, resolver);
        return r.problems.map((p) => `${p.path.join('.')}: ${p.message}`);
      },
    };
  };

  it('(a+)+$: an error at "prompt" within the budget; an ordinary prompt afterwards resolves, and from then on at once', async () => {
    const { store, read } = setup(patternTokenizer('(a+)+$'));
    try {
      assert.deepEqual(await read('aa!'), []);
      assert.deepEqual(await read(HOSTILE_TEXT), ['prompt: the tokenizer cannot encode this prompt: it ran for more than 1 s on this text and was stopped: its pattern at pre_tokenizer.pretokenizers[0].pattern.Regex, "(a+)+$", may backtrack without end']);
      assert.deepEqual(await read('a!'), []);
      // the same prompt again: its ids are kept, so the read resolves without waiting (an edit elsewhere in the file)
      const again = resolveRead(readModel(`{"version": 1, "checkpoint": "/m", "prompt": "a!", "temperature": 2}`, '/x.ffn.json'), '/x.ffn.json', store, new CheckpointResolver());
      assert.ok('read' in again && again.read.file !== null, 'resolved at once');
      // corrupted_prompt goes the same way
      assert.deepEqual(await read('a!', `, "corrupted_prompt": ${JSON.stringify(HOSTILE_TEXT)}`), ['corrupted_prompt: the tokenizer cannot encode this prompt: it ran for more than 1 s on this text and was stopped: its pattern at pre_tokenizer.pretokenizers[0].pattern.Regex, "(a+)+$", may backtrack without end']);
    } finally {
      store.runner.dispose();
    }
  });

  it('a tokenizer.json the library would trip over: an error at the checkpoint\'s tokenizer, saying where in the file', async () => {
    const bad = JSON.parse(patternTokenizer('a+|!')) as Record<string, unknown>;
    bad.added_tokens = [{ id: 1, content: 'a' }, { id: 2, content: {} }];
    const { store, read } = setup(JSON.stringify(bad));
    try {
      assert.deepEqual(await read('aa!'), ['checkpoint: tokenizer.json: added_tokens[1].content must be a string, not {}']);
    } finally {
      store.runner.dispose();
    }
  });
});
