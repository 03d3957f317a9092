// The Generation view's run: messages kept in order of the document's versions, the progress
// line, and what a click on an alternative writes.
import * as assert from 'node:assert/strict';
import type { GeneratedToken, GenerationMessage } from '../../../src/protocol/generation';
import { chipText, GenerationRun, percent } from '../../../webview/views/generationRun';

const settings = { tokens: 3, temperature: 0, topK: 2, seed: 1 };
const start = (version: number): GenerationMessage => ({ type: 'generation', event: 'start', doc: 'd', version, settings, prompt: [{ id: 1, text: 'Once' }], total: 3 });
const tok = (version: number, index: number, id: number, alt: number): GenerationMessage => {
  const token: GeneratedToken = { index, id, text: ` w${id}`, top: [{ id, text: ` w${id}`, p: 0.6 }, { id: alt, text: ` w${alt}`, p: 0.3 }] };
  return { type: 'generation', event: 'token', doc: 'd', version, token, done: index + 1, total: 3 };
};
const end = (version: number, reason: 'done' | 'cancelled' | 'changed' | 'error', message: string | null = null): GenerationMessage =>
  ({ type: 'generation', event: 'end', doc: 'd', version, reason, message, note: null, text: '', ms: 1234 });

describe('the Generation view\'s run', () => {
  it('grows token by token, says "generating n / total", then how it ended', () => {
    const g = new GenerationRun();
    assert.equal(g.apply(start(4)), 'start');
    assert.equal(g.progress(), 'generating 0 / 3');
    assert.equal(g.apply(tok(4, 0, 10, 11)), 'token');
    assert.equal(g.apply(tok(4, 1, 12, 13)), 'token');
    assert.equal(g.progress(), 'generating 2 / 3');
    assert.equal(g.apply(tok(4, 1, 12, 13)), 'ignored', 'a token seen already');
    assert.equal(g.apply(end(4, 'cancelled')), 'end');
    assert.equal(g.progress(), 'cancelled at 2 / 3');
    assert.deepEqual(g.run!.tokens.map((t) => t.id), [10, 12]);
    assert.equal(g.apply(start(4)), 'start', 'generated again (Generate again)');
    g.apply(tok(4, 0, 10, 11));
    g.apply(end(4, 'done'));
    assert.equal(g.progress(), 'generated 1 token in 1.2 s');
  });

  it('a message of an older text never replaces a newer run; a newer start replaces an older run', () => {
    const g = new GenerationRun();
    g.apply(start(5));
    g.apply(tok(5, 0, 10, 11));
    assert.equal(g.apply(start(4)), 'ignored');
    assert.equal(g.apply(tok(4, 1, 7, 8)), 'ignored');
    assert.equal(g.apply(end(4, 'changed')), 'ignored');
    assert.equal(g.run!.state, 'running');
    assert.equal(g.apply(start(7)), 'start');
    assert.equal(g.run!.version, 7);
    assert.equal(g.run!.tokens.length, 0, 'the new run starts empty');
  });

  it('an error before any start is shown as the run\'s state; off clears it', () => {
    const g = new GenerationRun();
    assert.equal(g.apply(end(3, 'error', 'generate.tokens: 24 tokens after 5 do not fit in 16 positions')), 'end');
    assert.equal(g.run!.state, 'error');
    assert.match(g.progress(), /do not fit in 16 positions/);
    assert.equal(g.apply({ type: 'generation', event: 'off' }), 'off');
    assert.equal(g.run, null);
    assert.equal(g.progress(), '');
  });

  it('a branch writes the tokens generated before the step, then the alternative', () => {
    const g = new GenerationRun();
    g.apply(start(9));
    g.apply(tok(9, 0, 10, 11));
    g.apply(tok(9, 1, 12, 13));
    g.apply(tok(9, 2, 14, 15));
    assert.deepEqual(g.branch(1, 13), { version: 9, ids: [10, 13], texts: [' w10', ' w13'] });
    assert.deepEqual(g.branch(0, 11), { version: 9, ids: [11], texts: [' w11'] });
    assert.equal(g.branch(1, 99), null, 'not one of the step\'s alternatives');
    assert.equal(g.branch(5, 11), null, 'no such step');
  });

  it('chips and percentages', () => {
    assert.equal(chipText('a\nb\tc'), 'a↵b→c');
    assert.equal(chipText(''), '∅');
    assert.equal(percent(0.10247), '10.2%');
    assert.equal(percent(0.0123), '1.23%');
    assert.equal(percent(1), '100%');
    assert.equal(percent(0.00001), '<0.01%');
  });
});
