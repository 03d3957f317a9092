// The tokenizer against an independent GPT-2 BPE (gpt-3-encoder) on a few hundred strings: every
// id the same, decode(encode(s)) = s, labels that show spaces; and a hand-made SentencePiece-style
// tokenizer (Metaspace, BOS added by the post-processor) whose ids were worked out by hand.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadTokenizer, TokenizerError, visible } from './tokenizer';
import { rng } from '../util/rng';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const gpt3 = require('gpt-3-encoder') as { encode(s: string): number[] };

const REPO = resolve(__dirname, '../../..');
const gpt2Json = (): string => readFileSync(join(REPO, 'test/fixtures/tokenizers/gpt2/tokenizer.json'), 'utf8');

const PIECES = [
  'the', ' the', 'Michael', ' Jordan', ' plays', ' basketball', 'sport', "'s", "'t", "'re", "'ve", "'ll", "'d", ' it', 'ing',
  '  ', '   ', '\n', '\n\n', '\t', ' \t ', '0', '7', '42', ' 1999', '3.14159', '1,000,000', '12345678901234567890',
  '!', '?', '...', '—', '–', '"', '(', ')', '[', ']', '{', '}', '#', '@', '$', '%', '&', '*', '+', '=', '/', '\\', '|', '<', '>', '~', '`', '^', '_',
  'café', 'naïve', 'Ångström', 'über', 'señor', 'façade', 'Œuvre', 'Đ', 'ß',
  '日本語', '中文', '漢字', '東京', '한국어', '안녕하세요', 'こんにちは', 'ありがとう', 'Привет', 'Ελληνικά', 'עברית', 'العربية', 'हिन्दी',
  '😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '❤️', '🇰🇷', '∑', '√2', '∞', '→', '€', '£', '¥', '\u00a0', '\u200b', '\ufeff',
];

function randomString(r: () => number): string {
  const n = 1 + Math.floor(r() * 8);
  let s = '';
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(r() * PIECES.length)];
  return s;
}

describe('tokenizer (tokenizer.json via @huggingface/tokenizers)', () => {
  const tok = loadTokenizer(gpt2Json());

  it('GPT-2: the same ids as gpt-3-encoder on hand-picked and 400 random strings; decode gives the text back', () => {
    const r = rng(20261124);
    const cases = [
      'Michael Jordan plays the sport of', 'Hello world', ' leading space', 'trailing space ', 'double  space', 'tab\there', 'new\nline', '\n\n\nx',
      "I'm sure they're right, aren't you? We'll see; I'd say so.", 'GPT-2 costs $1,234.56 (2019)', 'x = y + 2 * z',
      'emoji 😀👍🏽 and 👨‍👩‍👧‍👦', '한국어 문장입니다', '日本語のテキスト', 'Ελληνικά και Русский', 'a\u00a0b', '   ', '',
      ...Array.from({ length: 400 }, () => randomString(r)),
    ];
    let n = 0;
    for (const s of cases) {
      if (s === '') continue;
      const want = gpt3.encode(s);
      const got = tok.encode(s).ids;
      assert.deepEqual([...got], want, JSON.stringify(s));
      assert.equal(tok.decode(got), s, JSON.stringify(s));
      n++;
    }
    assert.ok(n > 400);
    // (Hugging Face's tokenizer reads its special token in the text as that token; gpt-3-encoder spells it out)
    assert.deepEqual([...tok.encode('<|endoftext|> is').ids], [50256, 318]);
  });

  it('labels show spaces and line breaks; a piece of a character shows its bytes; ids outside are #id', () => {
    const id = (s: string): number => tok.encode(s).ids[0];
    assert.equal(tok.label(id(' the')), '·the');
    assert.equal(tok.label(id('\n')), '↵');
    assert.equal(tok.label(262), '·the');
    assert.equal(tok.label(50256), '<|endoftext|>');
    assert.equal(tok.label(60000), '#60000');
    assert.equal(tok.vocabSize, 50257);
    const emoji = tok.encode('😀').ids; // one 4-byte character in several tokens
    assert.ok(emoji.length > 1 && emoji.every((i) => /<[0-9A-F]{2}>/.test(tok.label(i))), emoji.map((i) => tok.label(i)).join(' '));
  });

  it('SentencePiece-style (Metaspace, byte fallback, BOS from the template): ids worked out by hand', () => {
    const json = JSON.stringify({
      version: '1.0',
      added_tokens: [{ id: 0, content: '<unk>', special: true, single_word: false, lstrip: false, rstrip: false, normalized: false }, { id: 1, content: '<s>', special: true, single_word: false, lstrip: false, rstrip: false, normalized: false }],
      normalizer: null,
      pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
      post_processor: { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }], pair: [], special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } } },
      decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
      model: {
        type: 'BPE', unk_token: '<unk>', byte_fallback: true, fuse_unk: true, dropout: null, continuing_subword_prefix: null, end_of_word_suffix: null,
        vocab: { '<unk>': 0, '<s>': 1, '<0x0A>': 2, '▁': 3, 'o': 4, 'n': 5, 'c': 6, 'e': 7, 'u': 8, 'p': 9, '▁o': 10, '▁on': 11, '▁onc': 12, '▁once': 13, '▁u': 14, '▁up': 15, '▁upo': 16, '▁upon': 17 },
        merges: ['▁ o', '▁o n', '▁on c', '▁onc e', '▁ u', '▁u p', '▁up o', '▁upo n'],
      },
    });
    const sp = loadTokenizer(json);
    // "once upon" → ▁once ▁upon, with <s> first
    assert.deepEqual([...sp.encode('once upon').ids], [1, 13, 17]);
    assert.deepEqual([...sp.encode('once\nupon').ids], [1, 13, 2, 8, 9, 4, 5]);
    assert.equal(sp.label(13), '·once');
    assert.equal(sp.label(2), '↵');
    assert.equal(sp.decode([13, 17]), 'once upon');
  });

  it('says plainly what is wrong with a file that is not a tokenizer', () => {
    assert.throws(() => loadTokenizer('{"no": 1}'), (e: unknown) => e instanceof TokenizerError && /has no "model"/.test(e.message));
    assert.throws(() => loadTokenizer('not json'), (e: unknown) => e instanceof TokenizerError && /not JSON/.test(e.message));
    assert.equal(visible('Ġthe', true), '·the');
    assert.equal(visible('▁the', false), '·the');
  });
});
