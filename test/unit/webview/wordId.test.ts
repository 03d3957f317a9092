// The attribution's "any word" field: an id, or the word as the rows label it.
import * as assert from 'node:assert/strict';
import { wordId } from '../../../webview/lenses/wordId';

describe('a word typed for a lens', () => {
  const vocab = ['<|endoftext|>', 'the', '·the', '·Jordan', '42', '·'];
  it('an id, with or without #, within the vocabulary', () => {
    assert.equal(wordId('3', vocab), 3);
    assert.equal(wordId(' #3 ', vocab), 3);
    assert.equal(wordId('6', vocab), null, 'past the vocabulary');
  });
  it('a word as labelled, its leading space typed as a space or as ·, or left out when only the spaced word exists', () => {
    assert.equal(wordId('the', vocab), 1);
    assert.equal(wordId(' the', vocab), 2);
    assert.equal(wordId('·the', vocab), 2);
    assert.equal(wordId('Jordan', vocab), 3);
    assert.equal(wordId('Pippen', vocab), null);
    assert.equal(wordId('  ', vocab), null);
  });
});
