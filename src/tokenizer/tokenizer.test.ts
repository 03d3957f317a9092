// The tokenizer against an independent GPT-2 BPE (gpt-3-encoder) on a few hundred strings: every
// id the same, decode(encode(s)) = s, labels that show every space; and two hand-made tokenizers
// whose ids were worked out by hand: SentencePiece-style (Metaspace, byte fallback, BOS from the
// template) and Llama-3-style (a Split regex, then byte-level; BOS from the template).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadTokenizer, TokenizerError, visible, visibleReference, type TextTokenizer } from './tokenizer';
import { rng } from '../core/rng';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const gpt3 = require('gpt-3-encoder') as { encode(s: string): number[] };

const REPO = resolve(__dirname, '../../..');
const gpt2Json = (): string => readFileSync(join(REPO, 'media/tokenizers/gpt2/tokenizer.json'), 'utf8');

const PIECES = [
  'the', ' the', 'Michael', ' Jordan', ' plays', ' basketball', 'sport', 'THE', ' A', "'s", "'t", "'re", "'ve", "'ll", "'d", "'m", "'S", ' it', 'ing',
  ' ', ' ', '  ', '   ', '\n', '\n\n', '\r\n', '\t', ' \t ', ' \n ', '\u0000', '\u007f',
  '0', '7', '42', ' 1999', '3.14159', '1,000,000', '12345678901234567890', '-1e-9', '0x1F',
  '!', '?', '...', '—', '–', '"', "'", '(', ')', '[', ']', '{', '}', '#', '@', '$', '%', '&', '*', '+', '=', '/', '\\', '|', '<', '>', '~', '`', '^', '_', '«', '»', '¿',
  'café', 'naïve', 'Ångström', 'über', 'señor', 'façade', 'Œuvre', 'Đ', 'ß', 'e\u0301', // (an e and a combining acute)
  '日本語', '中文', '漢字', '東京', '한국어', '안녕하세요', 'こんにちは', 'ありがとう', 'Привет', 'Ελληνικά', 'עברית', 'العربية', 'हिन्दी', 'ไทย',
  '😀', '👍🏽', '👨‍👩‍👧‍👦', '👩🏽‍💻', '🏳️‍🌈', '❤️', '🇰🇷', '∑', '√2', '∞', '→', '€', '£', '¥', '𝔘𝔫𝔦', '\u00a0', '\u200b', '\ufeff', '\u2028',
];

/** Seeded random mixes of the pieces. */
function randomStrings(n: number, seed: number): string[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    let s = '';
    for (let i = 1 + Math.floor(r() * 8); i > 0; i--) s += PIECES[Math.floor(r() * PIECES.length)];
    return s;
  });
}

const EDGES = [
  'Michael Jordan plays the sport of', 'Hello world', 'Hello World', ' leading space', '  two leading', 'trailing space ', 'trailing two  ',
  'double  space', 'many       spaces', 'tab\there', '\ttab first', 'new\nline', 'crlf\r\nline', '\n\n\nx', 'x\n\n\n', ' \n \n ', '\n',
  "I'm sure they're right, aren't you? We'll see; I'd say so.", "'s", "''s", "it'S", "rock 'n' roll", 'GPT-2 costs $1,234.56 (2019)', 'x = y + 2 * z',
  'abc123def', '1'.repeat(100), 'x'.repeat(300), ' '.repeat(20) + 'a', 'a' + ' '.repeat(20), 'U.S.A. e.g. i.e.', 'https://example.com/a?b=c&d=e#f',
  'def f(x):\n    return x ** 2\n', '{"key": [1, 2.5, -3e10]}', '<p class="x">hi</p>', 'Ġ and ▁ as text', '<|endoftext', 'endoftext|>',
  'emoji 😀👍🏽 and 👨‍👩‍👧‍👦', '😀😀😀😀😀', '한국어 문장입니다', '日本語のテキスト', 'Ελληνικά και Русский', 'a\u00a0b', 'zero\u200bwidth', '   ',
];

/** A label's marks read back: `·` a space, `↵` a line break, `⇥` a tab, `␍`/`␀` the control, `<U+…>` the character. */
function unlabel(l: string): string {
  return l
    .replace(/<U\+([0-9A-F]{4,6})>/g, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/[␀-␟]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x2400))
    .replace(/␡/g, '\u007f').replace(/·/g, ' ').replace(/↵/g, '\n').replace(/⇥/g, '\t');
}

/** No label hides a character: no space, control or format character (a joiner inside an emoji sequence aside). */
function assertVisible(tok: TextTokenizer, ids: readonly number[], what: string): void {
  for (const id of ids) {
    const l = tok.label(id);
    assert.ok(l.length > 0, `${what}: #${id} has an empty label`);
    assert.ok(!/[\p{Cc}\p{Z}]|(?!\u200d)\p{Cf}/u.test(l), `${what}: #${id}'s label ${JSON.stringify(l)} hides a character`);
  }
}

describe('tokenizer (tokenizer.json via @huggingface/tokenizers)', () => {
  const tok = loadTokenizer(gpt2Json());

  it('GPT-2: the same ids as gpt-3-encoder on hand-picked and 400 random strings; decode gives the text back', () => {
    const cases = [...EDGES, ...randomStrings(400, 20261124)];
    for (const s of cases) {
      const want = gpt3.encode(s);
      const got = tok.encode(s);
      assert.deepEqual([...got.ids], want, JSON.stringify(s));
      assert.equal(got.tokens.length, got.ids.length);
      assert.equal(tok.decode(got.ids), s, JSON.stringify(s));
    }
    assert.ok(cases.length > 440);
    // (Hugging Face's tokenizer reads its special token in the text as that token; gpt-3-encoder spells it out)
    assert.deepEqual([...tok.encode('<|endoftext|> is').ids], [50256, 318]);
    assert.deepEqual([...tok.encode('').ids], []);
    assert.equal(tok.decode([]), '');
  });

  it('GPT-2 labels: every space, line break and control shown; read back, each gives its token\'s text', () => {
    let whole = 0;
    for (const s of [...EDGES, ...randomStrings(400, 7)]) {
      const ids = tok.encode(s).ids;
      assertVisible(tok, ids, JSON.stringify(s));
      for (const id of ids) {
        const l = tok.label(id);
        if (/<[0-9A-F]{2}>/.test(l)) continue; // a piece of a character: its bytes (below)
        assert.equal(unlabel(l), tok.decode([id]).replace(/\r\n/g, '\n'), `${JSON.stringify(s)}: #${id} ${l}`); // ('\r\n' in one token is one ↵)
        whole++;
      }
    }
    assert.ok(whole > 1000, `${whole} tokens of whole characters`);
  });

  it('GPT-2 labels by id: ·the, ↵, a piece of a character as its bytes, the special token, #id outside', () => {
    const id = (s: string): number => {
      const ids = tok.encode(s).ids;
      assert.equal(ids.length, 1, JSON.stringify(s));
      return ids[0];
    };
    assert.equal(tok.label(262), '·the');
    assert.equal(tok.label(id(' the')), '·the');
    assert.equal(tok.label(id('the')), 'the');
    assert.equal(tok.label(id('\n')), '↵');
    assert.equal(tok.label(id('\n\n')), '↵↵');
    assert.equal(tok.label(id('\t')), '⇥');
    assert.equal(tok.encode('   ').ids.map((i) => tok.label(i)).join(''), '···');
    assert.equal(tok.label(id(' café')), '·café');
    assert.equal(tok.label(id('\r')), '␍');
    assert.equal(tok.label(id('\u0000')), '␀');
    assert.equal(tok.label(50256), '<|endoftext|>');
    assert.equal(tok.label(60000), '#60000');
    assert.equal(tok.label(-1), '#-1');
    assert.equal(tok.vocabSize, 50257);
    const emoji = tok.encode('😀').ids; // one 4-byte character in several tokens
    assert.ok(emoji.length > 1 && emoji.every((i) => /^(<[0-9A-F]{2}>)+$/.test(tok.label(i))), emoji.map((i) => tok.label(i)).join(' '));
    assert.equal(emoji.map((i) => tok.label(i)).join(''), '<F0><9F><98><80>');
    assert.equal(tok.encode('a\u00a0b').ids.map((i) => tok.label(i)).join(''), 'a<U+00A0>b');
  });

  it('SentencePiece-style (Metaspace, byte fallback, BOS from the template): ids worked out by hand', () => {
    const sp = loadTokenizer(JSON.stringify({
      version: '1.0',
      added_tokens: [special(0, '<unk>'), special(1, '<s>')],
      normalizer: null,
      pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
      post_processor: { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }], pair: [], special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } } },
      decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
      model: {
        type: 'BPE', unk_token: '<unk>', byte_fallback: true, fuse_unk: true, dropout: null, continuing_subword_prefix: null, end_of_word_suffix: null,
        vocab: {
          '<unk>': 0, '<s>': 1, '<0x0A>': 2, '▁': 3, 'o': 4, 'n': 5, 'c': 6, 'e': 7, 'u': 8, 'p': 9,
          '▁o': 10, '▁on': 11, '▁onc': 12, '▁once': 13, '▁u': 14, '▁up': 15, '▁upo': 16, '▁upon': 17, '<0xE2>': 18, '<0x82>': 19, '<0xAC>': 20,
        },
        merges: ['▁ o', '▁o n', '▁on c', '▁onc e', '▁ u', '▁u p', '▁up o', '▁upo n'],
      },
    }));
    // "once upon" → ▁once ▁upon (the merges in order), <s> first
    assert.deepEqual([...sp.encode('once upon').ids], [1, 13, 17]);
    assert.deepEqual([...sp.encode('once upon').tokens], ['<s>', '▁once', '▁upon']);
    // no ▁ before "upon" after a line break: u p o n, and no merge applies without ▁; \n is the byte <0x0A>
    assert.deepEqual([...sp.encode('once\nupon').ids], [1, 13, 2, 8, 9, 4, 5]);
    // € is not in the vocabulary: its three UTF-8 bytes E2 82 AC
    assert.deepEqual([...sp.encode('€').ids], [1, 3, 18, 19, 20]);
    assert.equal(sp.label(13), '·once');
    assert.equal(sp.label(3), '·');
    assert.equal(sp.label(2), '↵');
    assert.equal(sp.label(18), '<E2>');
    assert.equal(sp.label(1), '<s>');
    assert.equal(sp.decode([13, 17]), 'once upon');
    assert.equal(sp.decode([13, 3, 18, 19, 20]), 'once €');
    // special tokens kept (the rows show them); the Strip decoder takes the space off the start of the
    // whole text, which here is <s> (as Hugging Face's own tokenizers do)
    assert.equal(sp.decode([1, 13]), '<s> once');
    assert.equal(sp.vocabSize, 21);
  });

  it('Llama-3-style (Split by its regex, byte-level, ignore_merges, BOS from the template): ids worked out by hand', () => {
    const L3_REGEX = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
    const bos = '<|begin_of_text|>';
    const l3 = loadTokenizer(JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [special(23, bos)],
      normalizer: null,
      pre_tokenizer: { type: 'Sequence', pretokenizers: [
        { type: 'Split', pattern: { Regex: L3_REGEX }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
      ] },
      post_processor: { type: 'Sequence', processors: [
        { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
        { type: 'TemplateProcessing', single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }], pair: [], special_tokens: { [bos]: { id: bos, ids: [23], tokens: [bos] } } },
      ] },
      decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
      model: {
        type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: true,
        vocab: {
          H: 1, i: 2, 'Ġ': 3, t: 4, h: 5, e: 6, 'Ġt': 7, 'Ġth': 8, 'Ġthe': 9, 'Ċ': 10, "'": 11, s: 12, "'s": 13,
          1: 14, 2: 15, 3: 16, 4: 17, 12: 18, 123: 19, 34: 20, '!': 21, Hi: 22, '<pad>': 0,
        },
        // (the newer layout: each merge a pair)
        merges: [['Ġ', 't'], ['Ġt', 'h'], ['Ġth', 'e'], ["'", 's'], ['1', '2'], ['3', '4'], ['12', '3']],
      },
    }));
    // "Hi" is in the vocabulary with no merge to it: ignore_merges takes it whole (22, not H i);
    // " the" → Ġthe; "'s" isolated by the regex; the space before digits on its own (Ġ); digits in
    // threes: 123 (1 2 → 12, 12 3 → 123; "3 4" outranks "12 3" but there is no 4 in "123") then 4
    // (GPT-2's regex would give Ġ1234 and 12|34); the line break Ċ.
    const e = l3.encode("Hi the's 1234\n");
    assert.deepEqual([...e.ids], [23, 22, 9, 13, 3, 19, 17, 10]);
    assert.deepEqual([...e.tokens], [bos, 'Hi', 'Ġthe', "'s", 'Ġ', '123', '4', 'Ċ']);
    assert.deepEqual([...l3.encode('1234').ids], [23, 19, 17]);
    assert.deepEqual(e.ids.map((id) => l3.label(id)), [bos, 'Hi', '·the', "'s", '·', '123', '4', '↵']);
    assert.equal(l3.decode(e.ids.slice(1)), "Hi the's 1234\n");
    assert.equal(l3.vocabSize, 24);
  });

  it('says plainly what is wrong with a file that is not a tokenizer it can read', () => {
    const refuses = (json: string, re: RegExp, config?: string): void =>
      assert.throws(() => loadTokenizer(json, config), (e: unknown) => e instanceof TokenizerError && re.test(e.message) && !e.message.includes('\n'), json.slice(0, 60));
    const gpt2 = JSON.parse(gpt2Json()) as { model: Record<string, unknown> };
    refuses('not json', /^tokenizer\.json is not JSON/);
    refuses('', /^tokenizer\.json is not JSON/);
    refuses('[1, 2]', /^tokenizer\.json is not a JSON object/);
    refuses('{"no": 1}', /^tokenizer\.json has no "model"/);
    refuses(JSON.stringify({ ...gpt2, model: { type: 'WordLevel', vocab: { a: 0 }, unk_token: '<unk>' } }), /^tokenizer\.json: model\.type is "WordLevel", .*supported: BPE, WordPiece, Unigram/);
    refuses(JSON.stringify({ ...gpt2, model: { vocab: { a: 0 } } }), /no "type"/); // (the library would take it for a model that gives no ids)
    refuses(JSON.stringify({ ...gpt2, pre_tokenizer: { type: 'Bogus' } }), /^tokenizer\.json: pre_tokenizer\.type must be one of .*ByteLevel.*, not "Bogus"$/);
    refuses(gpt2Json(), /^tokenizer_config\.json is not JSON/, '{"add_bos_token": tru');
    // a model of no type that is recognisably BPE reads
    const untyped = { ...gpt2.model };
    delete untyped.type;
    assert.deepEqual([...loadTokenizer(JSON.stringify({ ...gpt2, model: untyped })).encode(' the').ids], [262]);
    // tokenizer_config.json is optional and read when given
    assert.deepEqual([...loadTokenizer(gpt2Json(), '{"model_max_length": 1024}').encode(' the').ids], [262]);
  });

  it('visible(): the marks of each kind of token', () => {
    assert.equal(visible('Ġthe', true), '·the');
    assert.equal(visible('ĠĠĊĉ', true), '··↵⇥');
    assert.equal(visible('▁the', false), '·the');
    assert.equal(visible('<0x0A>', false), '↵');
    assert.equal(visible('<0x20>', false), '·');
    assert.equal(visible('<0xF0>', false), '<F0>');
    assert.equal(visible('the', false), 'the');
    assert.equal(visible('##ing', false), '##ing'); // WordPiece: as it is
    assert.equal(visible('<|endoftext|>', true), '<|endoftext|>'); // an added token is no byte-level piece
    assert.equal(visible('Ã©', true), 'é'); // byte-level é (C3 A9)
    assert.equal(visible('Ã', true), '<C3>');
    assert.equal(visible('a\r\nb\rc', false), 'a↵b␍c');
    assert.equal(visible('\u200b\ufeff\u00a0\u3000', false), '<U+200B><U+FEFF><U+00A0><U+3000>');
    assert.equal(visible('👨\u200d👩', false), '👨\u200d👩'); // a joiner inside an emoji sequence shows as the sequence
    assert.equal(visible('\u200d', false), '<U+200D>');
    assert.equal(visible('\u007f\u0007', false), '␡␇');
  });

  it('visible(): its one-pass form gives the reference\'s label for every piece of GPT-2\'s vocabulary', () => {
    const vocab = (JSON.parse(gpt2Json()) as { model: { vocab: Record<string, number> } }).model.vocab;
    const pieces = [...Object.keys(vocab), 'Ġ<0x41>', '<0x41>', 'ĠĠ', 'Ġ', ''];
    let differ = 0;
    for (const p of pieces) if (visible(p, true) !== visibleReference(p, true)) differ++;
    assert.equal(differ, 0, `${differ} of ${pieces.length} differ`);
    assert.equal(visible('<0x41>', true), visibleReference('<0x41>', true), 'a SentencePiece byte stays the reference\'s');
  });
});

function special(id: number, content: string): Record<string, unknown> {
  return { id, content, special: true, single_word: false, lstrip: false, rstrip: false, normalized: false };
}
