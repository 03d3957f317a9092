// Tokenizing under a time budget in a thread of its own: a pattern that backtracks without end is
// stopped with a message that names it, the caller's thread is never held, and the next request
// (on a fresh thread) works. Without a thread, such a pattern is refused before it runs.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { nodeTokenizerScript, nodeTokenizerThread } from './nodeTokenizerThread';
import type { TokenizerThread } from './threadProtocol';
import { TokenizerError } from './tokenizer';
import { DEFAULT_BUDGETS, TokenizerRunner, type BudgetedTokenizer } from './tokenizerRunner';
import { HOSTILE_TEXT, patternTokenizer } from './testing';

const REPO = resolve(__dirname, '../../..');
const gpt2Json = (): string => readFileSync(join(REPO, 'media/tokenizers/gpt2/tokenizer.json'), 'utf8');
const SCRIPT = nodeTokenizerScript(__dirname);
/** Resolves once the text's ids (or failure) are in; counts the caller's turns meanwhile (it is never held). */
async function encoded(t: BudgetedTokenizer, text: string): Promise<{ ids: readonly number[] } | { failed: string; turns: number }> {
  let turns = 0;
  let waiting = true;
  const spin = (): void => {
    turns++;
    if (waiting) setTimeout(spin, 10);
  };
  spin();
  await t.encodeAhead(text);
  waiting = false;
  try {
    return { ids: t.encode(text).ids };
  } catch (e) {
    assert.ok(e instanceof TokenizerError);
    return { failed: e.message, turns };
  }
}

describe('tokenizer runner (a thread of its own, a time budget)', () => {
  const budgets = { ...DEFAULT_BUDGETS, encodeMs: 1000 };

  it('(a+)+$ on 34 a\'s and a "!": stopped after the budget with a message naming the pattern; the caller\'s thread runs meanwhile; the next encode works', async () => {
    const runner = new TokenizerRunner(nodeTokenizerThread(SCRIPT), budgets);
    try {
      const t = await runner.load(patternTokenizer('(a+)+$'), undefined, 'tokenizer.json');
      assert.deepEqual(await encoded(t, 'aa!'), { ids: [3, 2] }, 'an ordinary text first');
      const r = await encoded(t, HOSTILE_TEXT);
      assert.ok('failed' in r, 'it was stopped');
      assert.equal(r.failed, 'it ran for more than 1 s on this text and was stopped: its pattern at pre_tokenizer.pretokenizers[0].pattern.Regex, "(a+)+$", may backtrack without end');
      assert.ok(r.turns > 5, `the caller's thread ran ${r.turns} timer turns while the thread was stuck`);
      assert.equal(t.encodeAhead(HOSTILE_TEXT), null, 'the failure is kept for the text');
      assert.throws(() => t.encode(HOSTILE_TEXT), /was stopped/);
      // a fresh thread, the tokenizer loaded there again
      assert.deepEqual(await encoded(t, 'a!'), { ids: [1, 2] });
      const gpt2 = await runner.load(gpt2Json(), undefined, 'tokenizer.json');
      assert.deepEqual(await encoded(gpt2, ' the'), { ids: [262] });
      assert.equal(gpt2.label(262), '·the');
      assert.equal(gpt2.vocabSize, 50257);
      assert.equal(runner.threaded, true);
    } finally {
      runner.dispose();
    }
  });

  it('a normalizer\'s Replace pattern that backtracks while the tokenizer loads: the load is stopped, named, and the thread serves the next one', async () => {
    const loads: string[] = []; // (the requests posted to the threads)
    const spawn = (): TokenizerThread => {
      const t = nodeTokenizerThread(SCRIPT)();
      return { ...t, post: (m) => { loads.push(m.type); t.post(m); } };
    };
    const runner = new TokenizerRunner(spawn, { ...budgets, loadMs: 1500, loadMsPerMB: 0 });
    try {
      await assert.rejects(runner.load(patternTokenizer('(a+)+$', 'normalizer'), undefined, 'tokenizer.json'), (e: unknown) => {
        assert.ok(e instanceof TokenizerError);
        assert.equal(e.message, 'tokenizer.json: reading it took more than 1.5 s and was stopped: its pattern at normalizer.pattern.Regex, "(a+)+$", may backtrack without end');
        return true;
      });
      // the same file again (the store tries a failure again on a later read): said at once, not run again
      assert.deepEqual(loads, ['load']);
      await assert.rejects(runner.load(patternTokenizer('(a+)+$', 'normalizer'), undefined, 'tokenizer.json'), /^TokenizerError: tokenizer\.json: reading it took more than 1\.5 s and was stopped/);
      assert.deepEqual(loads, ['load'], 'not posted again');
      const ok = await runner.load(patternTokenizer('a+|!'), undefined, 'tokenizer.json');
      assert.deepEqual(await encoded(ok, 'aa!'), { ids: [3, 2] });
    } finally {
      runner.dispose();
    }
  });

  it('no thread: the library runs in the caller\'s thread, and a pattern that may backtrack without end is refused before it runs', async () => {
    const runner = new TokenizerRunner(null);
    await assert.rejects(runner.load(patternTokenizer('(a+)+$'), undefined, 'tokenizer.json'), /^TokenizerError: tokenizer\.json: its pattern at pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex, "\(a\+\)\+\$", may backtrack without end, and here the tokenizer cannot run apart from the worker/);
    const t = await runner.load(patternTokenizer('a+|!'), undefined, 'tokenizer.json');
    assert.equal(t.encodeAhead('aa!'), null, 'at once');
    assert.deepEqual([...t.encode('aa!').ids], [3, 2]);
  });

  it('a thread that cannot start: tokenizing falls back to the caller\'s thread', async () => {
    const runner = new TokenizerRunner(nodeTokenizerThread(join(__dirname, 'no-such-script.js')), budgets);
    const t = await runner.load(patternTokenizer('a+|!'), undefined, 'tokenizer.json');
    assert.equal(runner.threaded, false);
    assert.deepEqual(await encoded(t, 'aa!'), { ids: [3, 2] });
  });

  it('a failure of the file or the library comes back as the thread said it, in our words', async () => {
    const runner = new TokenizerRunner(nodeTokenizerThread(SCRIPT), budgets);
    try {
      const bad = JSON.parse(patternTokenizer('a+|!')) as { added_tokens: unknown[] };
      bad.added_tokens = [{ id: 6, content: {} }];
      await assert.rejects(runner.load(JSON.stringify(bad), undefined, 'tokenizer.json'), /^TokenizerError: tokenizer\.json: added_tokens\[0\]\.content must be a string, not \{\}$/);
      // a template whose special token the vocabulary lacks: the encode fails in the thread
      const template = { ...JSON.parse(patternTokenizer('a+|!')), post_processor: { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<bos>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }], pair: [], special_tokens: {} } };
      const t = await runner.load(JSON.stringify(template), undefined, 'tokenizer.json');
      const r = await encoded(t, 'a');
      assert.equal('failed' in r && r.failed, 'the tokenizer gives the piece "<bos>", which is not in its vocabulary');
    } finally {
      runner.dispose();
    }
  });
});
