// Texts for tests of real tokenizers: a fixed, varied list (ASCII, runs of spaces and line breaks,
// digits, code, CJK, emoji, combining accents, right-to-left scripts, the text of special tokens
// and byte pieces written out) and seeded mixes of its pieces. Test data only.

import { rng } from '../../src/core/rng';

/** Pieces the mixes are made of. */
export const PIECES: readonly string[] = [
  'the', ' the', 'Michael', ' Jordan', ' plays', ' basketball', 'THE', ' A', "'s", "'t", "'re", "'ll", "'M", ' it', 'ing',
  ' ', '  ', '   ', '\n', '\n\n', '\n\n\n', '\r\n', '\t', '\t\t', ' \t ', ' \n ', '\u0000', '\u007f',
  '0', '7', '42', ' 1999', '3.14159', '1,000,000', '12345678901234567890', '-1e-9', '0x1F',
  '!', '?', '...', '—', '"', '(', ')', '[', ']', '{', '}', '#', '@', '$', '%', '&', '*', '+', '=', '/', '\\', '|', '<', '>', '~', '`', '^', '_', '«', '»',
  'café', 'naïve', 'Ångström', 'über', 'señor', 'e\u0301', 'n\u0303', 'A\u030a', 'ß', 'Œuvre',
  '日本語', '中文', '東京', '한국어', '안녕하세요', 'こんにちは', 'Привет', 'Ελληνικά', 'עברית', 'שָׁלוֹם', 'العربية', 'مَرْحَبًا', 'हिन्दी', 'ไทย',
  '😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '❤️', '🇰🇷', '∑', '√2', '∞', '→', '€', '𝔘𝔫𝔦', '\u00a0', '\u200b', '\ufeff', '\u200f',
  '<s>', '</s>', '<bos>', '<eos>', '<unk>', '<pad>', '<|begin_of_text|>', '<|endoftext|>', '<|im_start|>', '<start_of_turn>', '<0xE3>', '▁', 'Ġ', '<h1>', '<think>',
];

/** Hand-picked texts: edges of each kind. */
export const EDGES: readonly string[] = [
  'Michael Jordan plays the sport of', 'Hello world', 'Hello World', ' leading space', '  two leading', 'trailing space ', 'trailing two  ',
  'double  space', 'many       spaces', ' '.repeat(40), 'tab\there', '\ttab first', 'new\nline', 'crlf\r\nline', '\n\n\nx', 'x\n\n\n', ' \n \n ', '\n', '\n'.repeat(40), '\t'.repeat(9),
  "I'm sure they're right, aren't you? We'll see; I'd say so.", "rock 'n' roll", 'GPT-2 costs $1,234.56 (2019)', 'x = y + 2 * z',
  'abc123def', '1'.repeat(100), '2024-11-24T10:00:00Z', '3.141592653589793', 'x'.repeat(300), 'U.S.A. e.g. i.e.', 'https://example.com/a?b=c&d=e#f',
  'def f(x):\n    return x ** 2\n', '{"key": [1, 2.5, -3e10]}', '<p class="x">hi</p>', 'for (let i = 0; i < n; i++) {\n\tsum += a[i];\n}',
  'SELECT * FROM t WHERE id = 42;', '#include <stdio.h>\nint main(void) { return 0; }', '    indented\n        more',
  'Ġ and ▁ as text', '▁▁▁', '<0x41><0xE3>', '<|endoftext', 'endoftext|>', '<s>', '</s>', '<bos>', 'a<bos>b', '<s> Hello', 'Hello</s>',
  '<|begin_of_text|>Hello', 'x<|begin_of_text|>', '<|im_start|>user\nhi<|im_end|>', '<start_of_turn>user\nhi<end_of_turn>', '<think>\n</think>',
  '<table><tr><td>1</td></tr></table>', '<mask> [multimodal]', '<unk><pad>', '<unused0>',
  'emoji 😀👍🏽 and 👨‍👩‍👧‍👦', '😀😀😀😀😀', '🦀🦕🪐', '한국어 문장입니다', '日本語のテキストです。', '我爱北京天安门', 'Ελληνικά και Русский', 'a\u00a0b', 'zero\u200bwidth',
  'e\u0301te\u0301', 'Ame\u0301lie', 'Ñ vs N\u0303', 'ﬁ ligature', 'Ｆｕｌｌｗｉｄｔｈ', '①②③', 'x²+y²', 'שלום עולם', 'مرحبا بالعالم', 'English עברית mixed',
  'ٱلسَّلَامُ عَلَيْكُمْ', 'हिन्दी भाषा', 'ภาษาไทย', 'Tiếng Việt có dấu', 'Ǆemal', 'İstanbul ıi', '\u202eRTL override', '   ', '',
];

/** `n` seeded mixes of one to eight pieces. */
export function mixes(n: number, seed: number): string[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    let s = '';
    for (let i = 1 + Math.floor(r() * 8); i > 0; i--) s += PIECES[Math.floor(r() * PIECES.length)];
    return s;
  });
}

/** The texts the real tokenizers are checked on: the edges and 250 mixes. */
export const CORPUS: readonly string[] = [...EDGES, ...mixes(250, 20261129)];
