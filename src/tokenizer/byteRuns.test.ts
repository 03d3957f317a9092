import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTokenizer } from './tokenizer';
import { charLength, decodeRuns, pieceLabel, sequenceLabels, type Piece } from './byteRuns';
import { tokenBytes } from './tokenBytes';

const B = (...b: number[]): Uint8Array => Uint8Array.of(...b);
/** Labels of tokens given as bytes, each token's own label its bytes as `<XX>` / ASCII. */
function labels(...tokens: (Uint8Array | null)[]): string[] {
  const own = tokens.map((t) => (t ? [...t].map((b) => (b < 0x80 ? String.fromCharCode(b) : `<${b.toString(16).toUpperCase()}>`)).join('') : '#9'));
  return decodeRuns(tokens).map((p, t) => pieceLabel(p, own[t]));
}

describe('byteRuns: tokens decoded together as UTF-8', () => {
  it('a 3-byte character over 3 byte tokens (の = E3 81 AE)', () => {
    assert.deepEqual(labels(B(0xe3), B(0x81), B(0xae)), ['の 1/3', 'の 2/3', 'の 3/3']);
    const p = decodeRuns([B(0xe3), B(0x81), B(0xae)]);
    assert.deepEqual(p[1], [{ kind: 'shared', char: 'の', from: 2, to: 2, of: 3 }]);
  });

  it('a 2-byte character over 2 tokens (é = C3 A9), a 4-byte one over 2, 3 and 4 (😀 = F0 9F 98 80)', () => {
    assert.deepEqual(labels(B(0xc3), B(0xa9)), ['é 1/2', 'é 2/2']);
    assert.deepEqual(labels(B(0xf0, 0x9f), B(0x98, 0x80)), ['😀 1-2/4', '😀 3-4/4']);
    assert.deepEqual(labels(B(0xf0), B(0x9f, 0x98), B(0x80)), ['😀 1/4', '😀 2-3/4', '😀 4/4']);
    assert.deepEqual(labels(B(0xf0), B(0x9f), B(0x98), B(0x80)), ['😀 1/4', '😀 2/4', '😀 3/4', '😀 4/4']);
  });

  it('ASCII between and around; a token that ends one character and begins the next', () => {
    assert.deepEqual(labels(B(0x41), B(0xe3), B(0x81), B(0xae), B(0x42)), ['A', 'の 1/3', 'の 2/3', 'の 3/3', 'B']);
    // E3 81 | AE C3 | A9: の then é, the middle token holding the end of one and the start of the other
    assert.deepEqual(labels(B(0xe3, 0x81), B(0xae, 0xc3), B(0xa9)), ['の 1-2/3', 'のé 3/3 1/2', 'é 2/2']);
    // a token with a whole character of its own and ASCII keeps them; a space shows as ·
    assert.deepEqual(labels(B(0x20, 0xe3), B(0x81, 0xae, 0x21)), ['·の 1/3', 'の! 2-3/3']);
    // whole characters within one token: its own label, untouched
    assert.deepEqual(labels(B(0xe3, 0x81, 0xae), B(0x41)), ['<E3><81><AE>', 'A']);
  });

  it('bytes that form no character stay bytes: incomplete, stray, overlong, surrogate, past U+10FFFF', () => {
    assert.deepEqual(labels(B(0xe3), B(0x81)), ['<E3>', '<81>'], 'the input ends before the character does');
    assert.deepEqual(labels(B(0xe3), B(0x41)), ['<E3>', 'A']);
    assert.deepEqual(labels(B(0x81), B(0xe3), B(0x81), B(0xae)), ['<81>', 'の 1/3', 'の 2/3', 'の 3/3'], 'a stray continuation before a character');
    assert.deepEqual(decodeRuns([B(0xc0), B(0x80)]), [[{ kind: 'byte', byte: 0xc0 }], [{ kind: 'byte', byte: 0x80 }]], 'overlong');
    assert.deepEqual(labels(B(0xed), B(0xa0), B(0x80)), ['<ED>', '<A0>', '<80>'], 'a surrogate is no character');
    assert.deepEqual(labels(B(0xf4), B(0x90), B(0x80), B(0x80)), ['<F4>', '<90>', '<80>', '<80>'], 'past U+10FFFF');
    // a token with no bytes known breaks the run
    assert.deepEqual(labels(B(0xe3), null, B(0x81, 0xae)), ['<E3>', '#9', '<81><AE>']);
    // a mixed token: its stray byte shown as a byte beside the character it shares
    const mixed: Piece[] | null = decodeRuns([B(0x81, 0xe3), B(0x81, 0xae)])[0];
    assert.equal(pieceLabel(mixed, 'own'), '<81>の 1/3');
  });

  it('charLength follows Unicode table 3-7', () => {
    assert.equal(charLength([0x41], 0), 1);
    assert.equal(charLength([0xc2, 0x80], 0), 2);
    assert.equal(charLength([0xc1, 0xbf], 0), 0);
    assert.equal(charLength([0xe0, 0x9f, 0x80], 0), 0);
    assert.equal(charLength([0xe0, 0xa0, 0x80], 0), 3);
    assert.equal(charLength([0xf0, 0x8f, 0x80, 0x80], 0), 0);
    assert.equal(charLength([0xf4, 0x8f, 0xbf, 0xbf], 0), 4);
    assert.equal(charLength([0xf5, 0x80, 0x80, 0x80], 0), 0);
    assert.equal(charLength([0xe3, 0x81], 0), 0);
  });

  it('tokenBytes: SentencePiece byte fallback, GPT-2 byte-level pieces, plain pieces', () => {
    assert.deepEqual([...tokenBytes('<0xE3>', false)!], [0xe3]);
    assert.deepEqual([...tokenBytes('▁the', false)!], [0x20, 0x74, 0x68, 0x65]);
    // GPT-2's alphabet: Ġ is the space, ã is E3 (itself), ģ is 81, ® is AE (itself)
    assert.deepEqual([...tokenBytes('Ġãģ', true)!], [0x20, 0xe3, 0x81]);
    assert.deepEqual([...tokenBytes('®', true)!], [0xae]);
    assert.deepEqual([...tokenBytes('<|endoftext|>', true)!], [...Buffer.from('<|endoftext|>')]);
    assert.equal(tokenBytes(undefined, true), null);
  });

  it('sequenceLabels: GPT-2 pieces that split a character, decoded; own labels without a tokenizer of bytes', () => {
    const vocab = ['·<E3><81>', '<AE>', 'A'];
    const pieces = ['Ġãģ', '®', 'A'];
    const tok = { bytes: (id: number) => tokenBytes(pieces[id], true) };
    assert.deepEqual(sequenceLabels([2, 0, 1, 2], tok, vocab), ['A', '·の 1-2/3', 'の 3/3', 'A']);
    assert.deepEqual(sequenceLabels([0, 2], tok, vocab), ['·<E3><81>', 'A']);
    assert.deepEqual(sequenceLabels([0, 1, 7], null, vocab), ['·<E3><81>', '<AE>', '#7']);
    assert.deepEqual(sequenceLabels([0, 1], { label: () => '' }, vocab), ['·<E3><81>', '<AE>']);
  });

  it('the real GPT-2 tokenizer: each character its pieces split is shown whole, as its decoder decodes the ids', () => {
    const t = loadTokenizer(readFileSync(join(__dirname, '../../../media/tokenizers/gpt2/tokenizer.json'), 'utf8'));
    const { ids } = t.encode('日本の猫 😀 café');
    const vocab: string[] = [];
    for (const id of ids) vocab[id] = t.label(id);
    assert.deepEqual(ids.map((id) => vocab[id]), ['<E6><97>', '<A5>', '<E6><9C>', '<AC>', '<E3><81><AE><E7>', '<8C>', '<AB>', '·<F0><9F><98>', '<80>', '·café']);
    assert.deepEqual(sequenceLabels(ids, t, vocab), ['日 1-2/3', '日 3/3', '本 1-2/3', '本 3/3', 'の猫 1/3', '猫 2/3', '猫 3/3', '·😀 1-3/4', '😀 4/4', '·café']);
    assert.equal(t.decode(ids), '日本の猫 😀 café');
  });
});
