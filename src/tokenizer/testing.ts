// Tokenizers for tests: a tiny byte-level BPE with a pattern of the test's choosing, and the text
// that makes `(a+)+$` backtrack for minutes.

/** 34 a's and a `!`: `(a+)+$` tries every way of splitting the a's (2^34) before it gives up. */
export const HOSTILE_TEXT = `${'a'.repeat(34)}!`;

/** A tiny byte-level BPE whose own pattern is `pattern`, at the pre-tokenizer or the normalizer. */
export function patternTokenizer(pattern: string, at: 'pre_tokenizer' | 'normalizer' = 'pre_tokenizer'): string {
  const vocab: Record<string, number> = { '<s>': 0, a: 1, '!': 2, aa: 3, 'Ġ': 4, b: 5 };
  const split = { type: 'Split', pattern: { Regex: pattern }, behavior: 'Isolated', invert: false };
  return JSON.stringify({
    version: '1.0',
    // (a normalized added token: the library runs the normalizer on it while loading)
    added_tokens: at === 'normalizer' ? [{ id: 6, content: HOSTILE_TEXT, special: false, single_word: false, lstrip: false, rstrip: false, normalized: true }] : [],
    normalizer: at === 'normalizer' ? { type: 'Replace', pattern: { Regex: pattern }, content: 'b' } : null,
    pre_tokenizer: at === 'pre_tokenizer' ? { type: 'Sequence', pretokenizers: [split, { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false }] } : { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, vocab, merges: ['a a'] },
  });
}
