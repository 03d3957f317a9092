// The panel reads back the labels src/tokenizer makes: the hovers' words, and a predicted byte
// that completes the character the input began.
import * as assert from 'node:assert/strict';
import { sequenceLabels } from '../../../src/tokenizer/byteRuns';
import { tokenBytes } from '../../../src/tokenizer/tokenBytes';
import { byteNote, completedWord, inputTokenNote, pendingBytes, predictedWordAt, wordNote } from '../../../webview/lenses/byteLabels';

/** SentencePiece byte fallback: id b is the byte b's token `<0xB>`, its label `<B>` (ASCII as itself). */
const bytesTok = { bytes: (id: number) => tokenBytes(`<0x${id.toString(16).padStart(2, '0')}>`, false) };
const byteVocab = Array.from({ length: 256 }, (_, b) => (b < 0x80 ? String.fromCharCode(b) : `<${b.toString(16).toUpperCase()}>`));

describe('byte labels in the panel', () => {
  it('the input\'s labels: what each holds of a character, and bytes the input does not complete', () => {
    const labels = sequenceLabels([0x41, 0xe3, 0x81, 0xae, 0xe3, 0x81], bytesTok, byteVocab);
    assert.deepEqual(labels, ['A', 'の 1/3', 'の 2/3', 'の 3/3', '<E3>', '<81>']);
    assert.equal(inputTokenNote('A'), null);
    assert.equal(inputTokenNote('の 2/3'), 'byte 2 of the 3 of a character the tokens beside it hold the rest of');
    assert.equal(inputTokenNote('·😀 1-3/4'), 'bytes 1–3 of the 4 of a character the tokens beside it hold the rest of');
    assert.equal(inputTokenNote('<E3>'), 'byte E3: part of a character the input does not complete');
    // the bytes of an unfinished character after each token
    assert.deepEqual(pendingBytes(labels), [[], [0xe3], [0xe3, 0x81], [], [0xe3], [0xe3, 0x81]]);
    assert.deepEqual(pendingBytes(['·😀 1-3/4']), [[0xf0, 0x9f, 0x98]]);
    assert.deepEqual(pendingBytes(['·<F0><9F>', '<98>']), [[0xf0, 0x9f], [0xf0, 0x9f, 0x98]]);
    assert.deepEqual(pendingBytes(['<E3>', 'A<81>']), [[0xe3], []], 'ASCII between: the character was given up');
    assert.deepEqual(pendingBytes(['<81>']), [[]], 'a stray continuation begins nothing');
  });

  it('a predicted byte completes the character the input began, or is said to be a byte', () => {
    assert.equal(completedWord([0xe3, 0x81], '<AE>'), '…の');
    assert.equal(completedWord([0xe3], '<81><AE>s'), '…のs');
    assert.equal(completedWord([0xe3], '<81><AE><E3>'), '…の<E3>');
    assert.equal(completedWord([0xf0, 0x9f, 0x98], '<80>'), '…😀');
    assert.equal(completedWord([0xe3], '<81>'), null, 'still unfinished');
    assert.equal(completedWord([0xe3, 0x81], 'A'), null);
    assert.equal(completedWord([0xe3, 0x81], '<C3>'), null, 'not a continuation byte');
    assert.equal(completedWord([], '<AE>'), null);
    assert.equal(wordNote('<81>'), '<81>: a byte of a character (UTF-8), not a character on its own');
    assert.equal(wordNote('·the'), null);
  });

  it('the prediction chart and attribution read a predicted word as the input leaves off there', () => {
    const tokens = ['A', 'の 1/3', 'の 2/3', 'の 3/3', '<E3>', '<81>'];
    assert.equal(predictedWordAt(tokens, 5, '<AE>'), '…の', 'after <E3><81>, <AE> ends の');
    assert.equal(predictedWordAt(tokens, 4, '<81><AE>x'), '…のx');
    assert.equal(predictedWordAt(tokens, 0, '<AE>'), '<AE>', 'after A nothing is pending: the byte stays a byte');
    assert.equal(predictedWordAt(tokens, 9, '·the'), '·the', 'a position past the input: the label as it is');
    assert.equal(byteNote(['…の', '·the']), '');
    assert.equal(byteNote(['<AE>', '·the', '<E3><81>']), ' "<AE>", "<E3><81>" are bytes of a character (UTF-8) the word after would complete, not a character on its own.');
    assert.equal(byteNote(['<AE>']), byteNote(['<AE>']), 'the same answer twice (no pattern state kept between calls)');
  });
});
