// The heatmaps follow a generated token picked: nothing asked while generating, the sequence's run
// asked for once when the generation ends, the picked token's row once it is shown (input + step),
// another pick a row without asking again, the same pick again (or a new generation) the input's.
import * as assert from 'node:assert/strict';
import type { GenerationMessage } from '../../../src/protocol/generation';
import { GeneratedStages } from '../../../webview/views/generatedStages';
import { GenerationRun } from '../../../webview/views/generationRun';

const settings = { tokens: 3, temperature: 0, topK: 2, seed: 1 };
const prompt = [{ id: 1, text: 'Once' }, { id: 2, text: ' upon' }];
const start = (version: number): GenerationMessage => ({ type: 'generation', event: 'start', doc: 'd', version, settings, prompt, total: 3 });
const tok = (version: number, index: number, id: number): GenerationMessage =>
  ({ type: 'generation', event: 'token', doc: 'd', version, token: { index, id, text: ` w${id}`, top: [{ id, text: ` w${id}`, p: 0.6 }] }, done: index + 1, total: 3 });
const end = (version: number, reason: 'done' | 'cancelled'): GenerationMessage =>
  ({ type: 'generation', event: 'end', doc: 'd', version, reason, message: null, note: null, text: '', ms: 1 });

describe('the heatmaps follow a generated token picked', () => {
  it('asks once the generation ended, then highlights input + step; another pick moves the row', () => {
    const g = new GenerationRun();
    const s = new GeneratedStages();
    g.apply(start(7));
    g.apply(tok(7, 0, 10));
    g.apply(tok(7, 1, 11));
    const running = s.follow(g.run, 1);
    assert.deepEqual([running.ask, running.row], [null, null], 'nothing asked while generating');
    assert.match(running.note, /once generation ends/);
    g.apply(tok(7, 2, 12));
    g.apply(end(7, 'done'));
    assert.deepEqual(s.follow(g.run, 1).ask, { version: 7, on: true });
    assert.deepEqual(s.follow(g.run, 1).ask, null, 'asked once');
    s.rendered(7, { input: 2 }, 5);
    const shown = s.follow(g.run, 1);
    assert.deepEqual([shown.ask, shown.row], [null, 3]);
    assert.match(shown.note, /3 generated tokens: this one is row 3/);
    assert.equal(s.follow(g.run, 2).row, 4);
    assert.equal(s.follow(g.run, 0).row, 2);
  });

  it('unpicked, or a new generation: the input\'s run asked for again; a cancelled run\'s tokens are shown too', () => {
    const g = new GenerationRun();
    const s = new GeneratedStages();
    g.apply(start(3));
    g.apply(tok(3, 0, 10));
    g.apply(end(3, 'cancelled'));
    assert.deepEqual(s.follow(g.run, 0).ask, { version: 3, on: true });
    s.rendered(3, { input: 2 }, 3);
    assert.equal(s.follow(g.run, 0).row, 2);
    assert.deepEqual(s.follow(g.run, null), { ask: { version: 3, on: false }, row: null, note: '' });
    s.rendered(3, undefined, 2);
    assert.deepEqual(s.follow(g.run, null).ask, null, 'the input\'s run shown: nothing to ask');
    // picked again, shown, then generated again
    assert.deepEqual(s.follow(g.run, 0).ask, { version: 3, on: true });
    s.rendered(3, { input: 2 }, 3);
    g.apply(start(3));
    assert.deepEqual(s.restarted(), { version: 3, on: false });
  });

  it('a sequence shown that this view did not ask for (nothing picked): it does not ask for the input\'s', () => {
    const g = new GenerationRun();
    const s = new GeneratedStages();
    g.apply(start(2));
    g.apply(tok(2, 0, 10));
    g.apply(end(2, 'done'));
    s.rendered(2, { input: 2 }, 3);
    assert.deepEqual(s.follow(g.run, null), { ask: null, row: null, note: '' });
    assert.equal(s.follow(g.run, 0).row, 2, 'a pick then highlights its row');
  });

  it('a token past the positions the model has: no row, said', () => {
    const g = new GenerationRun();
    const s = new GeneratedStages();
    g.apply(start(1));
    g.apply(tok(1, 0, 10));
    g.apply(tok(1, 1, 11));
    g.apply(end(1, 'done'));
    s.follow(g.run, 1);
    s.rendered(1, { input: 2 }, 3); // (only the first generated token had a position)
    const step = s.follow(g.run, 1);
    assert.equal(step.row, null);
    assert.match(step.note, /no position for this token/);
  });
});
