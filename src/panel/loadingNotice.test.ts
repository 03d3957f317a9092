import * as assert from 'node:assert/strict';
import { loadingNotice, readIsFor, workerReadNotice } from './loadingNotice';

describe('the panel\'s notice while a checkpoint is read', () => {
  it('says the percentage of a large read, of how many MB', () => {
    const read = { path: '/w/./gpt2-small-random/model.safetensors', done: 209_000_000, total: 497_772_544 };
    assert.equal(loadingNotice('./gpt2-small-random', read), 'Reading the checkpoint ./gpt2-small-random: model.safetensors, 41 % of 498 MB (in the background; the numbers come when it is in)…');
    assert.match(loadingNotice('./c', { ...read, done: null }), /model\.safetensors \(498 MB; this file system tells no progress\)/);
    assert.equal(loadingNotice('./c', null), 'Reading the checkpoint ./c (in the background; the numbers come when it is in)…');
  });

  it('says the percent of the worker\'s read, and a cancelled read with how to read it again', () => {
    const r = { done: 209_000_000, total: 497_772_544 };
    assert.equal(workerReadNotice('./gpt2', { ...r, state: 'reading' }), 'Reading the checkpoint ./gpt2: 41 % of 498 MB (in the background; Cancel in its notification stops it)…');
    assert.equal(workerReadNotice('./gpt2', { ...r, state: 'cancelled' }), 'Reading the checkpoint ./gpt2 was cancelled at 41 % of 498 MB. Edit the model file, or run "FFN Lens: Read Cancelled Checkpoints Again", to read it.');
    assert.equal(workerReadNotice('./big', { done: 0, total: 16.06e9, state: 'reading' })?.includes('0 % of 16.1 GB'), true);
    assert.equal(workerReadNotice('./gpt2', { ...r, state: 'read' }), null);
    assert.equal(workerReadNotice('./gpt2', { ...r, state: 'failed' }), null);
  });

  it('matches a read to the checkpoint folder the model file names', () => {
    assert.ok(readIsFor('/w/./gpt2-small-random/model.safetensors', './gpt2-small-random', '/w/gpt2.ffn.json'));
    assert.ok(readIsFor('/w/sub/../ck/model.safetensors', '../ck', '/w/x/m.ffn.json'));
    assert.ok(readIsFor('/data/ck/model-00001.safetensors', '/data/ck/', '/w/m.ffn.json'));
    assert.ok(!readIsFor('/w/other/model.safetensors', './gpt2-small-random', '/w/gpt2.ffn.json'));
    assert.ok(!readIsFor('/w/gpt2-small-random-2/model.safetensors', './gpt2-small-random', '/w/gpt2.ffn.json'));
    assert.ok(!readIsFor('/w/ck/model.safetensors', '', '/w/m.ffn.json'));
  });
});
