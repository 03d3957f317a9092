// A tokenizer.json that is wrong in any part is refused in our words, at its place in the file,
// before the library trips over it; whatever the library still throws (loading, encoding, decoding)
// comes out as a TokenizerError in our words with the library's after. Fuzzed: thousands of
// hand-made tokenizers with one part replaced by a value of the wrong kind.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadTokenizer, TokenizerError } from './tokenizer';
import { mayBacktrack } from './backtracking';
import { rng } from '../core/rng';

const REPO = resolve(__dirname, '../../..');
const gpt2 = (): Record<string, unknown> => JSON.parse(readFileSync(join(REPO, 'media/tokenizers/gpt2/tokenizer.json'), 'utf8')) as Record<string, unknown>;

/** A small byte-level BPE with every part the fuzzer may spoil: a normalizer, a Sequence, a template. */
function small(): Record<string, unknown> {
  const bos = '<s>';
  return {
    version: '1.0',
    added_tokens: [{ id: 0, content: bos, special: true, single_word: false, lstrip: false, rstrip: false, normalized: false }, { id: 9, content: '<x>', special: false, single_word: false, lstrip: false, rstrip: false, normalized: true }],
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Replace', pattern: { String: '\t' }, content: ' ' }] },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: '\\s+|\\S+' }, behavior: 'Isolated', invert: false }, { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false }] },
    post_processor: { type: 'TemplateProcessing', single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }], pair: [], special_tokens: {} },
    decoder: { type: 'Sequence', decoders: [{ type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true }, { type: 'Strip', content: ' ', start: 0, stop: 0 }] },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, vocab: { a: 1, b: 2, ab: 3, 'Ġ': 4, 'Ġa': 5, c: 6, 'Ġab': 7, '!': 8 }, merges: ['a b', 'Ġ a', 'Ġa b'] },
  };
}

function refused(spec: unknown, config?: string): string {
  try {
    loadTokenizer(typeof spec === 'string' ? spec : JSON.stringify(spec), config);
  } catch (e) {
    assert.ok(e instanceof TokenizerError, `not a TokenizerError: ${String(e)}`);
    return e.message;
  }
  assert.fail('it loaded');
}

describe('tokenizer.json checked before the library reads it', () => {
  it('the small tokenizer the fuzzer spoils reads and tokenizes', () => {
    const t = loadTokenizer(JSON.stringify(small()));
    assert.deepEqual([...t.encode('ab a').ids], [0, 3, 4, 1]); // (the Split isolates the space: Ġ, a)
    assert.equal(t.decode([3, 5]), 'ab a');
  });

  it('says the place and the kind of a wrong part, quoting the value bounded', () => {
    const with_ = (f: (s: Record<string, any>) => void): Record<string, unknown> => { // eslint-disable-line @typescript-eslint/no-explicit-any
      const s = small();
      f(s);
      return s;
    };
    assert.equal(refused(with_((s) => (s.added_tokens[1].content = {}))), 'tokenizer.json: added_tokens[1].content must be a string, not {}');
    assert.equal(refused(with_((s) => (s.added_tokens = {}))), 'tokenizer.json: added_tokens must be a list, not {}');
    assert.equal(refused(with_((s) => (s.added_tokens[0].id = -1))), 'tokenizer.json: added_tokens[0].id must be an id (a whole number from 0 to 16777215), not -1');
    assert.equal(refused(with_((s) => (s.model.merges = 5))), 'tokenizer.json: model.merges must be a list of merges ("a b" or ["a", "b"]; [] for none), not 5');
    assert.equal(refused(with_((s) => (s.model.merges = ['a b', ['Ġ', 'a']]))), 'tokenizer.json: model.merges[1] must be a string "a b", as the first merge is, not ["Ġ", "a"]');
    assert.equal(refused(with_((s) => (s.model.vocab = [1, 2]))), 'tokenizer.json: model.vocab must be an object of tokens and their ids, not [1, 2]');
    assert.equal(refused(with_((s) => (s.model.vocab.ab = 'x'))), 'tokenizer.json: model.vocab["ab"] must be an id (a whole number from 0 to 16777215), not "x"');
    assert.equal(refused(with_((s) => (s.pre_tokenizer.pretokenizers[0].pattern = { Regex: 7 }))), 'tokenizer.json: pre_tokenizer.pretokenizers[0].pattern.Regex must be a string, not 7');
    assert.equal(refused(with_((s) => (s.pre_tokenizer.pretokenizers[0].behavior = 3))), 'tokenizer.json: pre_tokenizer.pretokenizers[0].behavior must be a string, not 3');
    assert.equal(refused(with_((s) => (s.normalizer.normalizers[1].type = 'Squash'))), 'tokenizer.json: normalizer.normalizers[1].type must be one of BertNormalizer, Precompiled, NFC, NFD, NFKC, NFKD, Strip, StripAccents, Lowercase, Sequence, Replace, Prepend, not "Squash"');
    assert.equal(refused(with_((s) => (s.decoder.decoders[1].start = 'x'))), 'tokenizer.json: decoder.decoders[1].start must be a whole number of at least 0, not "x"');
    assert.equal(refused(with_((s) => (s.post_processor.single[1].Sequence.id = 'B'))), 'tokenizer.json: post_processor.single[1].Sequence.id must be "A", not "B"');
    assert.equal(refused(with_((s) => (s.post_processor.single = ['x']))), 'tokenizer.json: post_processor.single[0] must be {"SpecialToken": {"id": …}} or {"Sequence": {"id": "A"}}, not "x"');
    // a FixedLength of 0 would never end (the library steps by it)
    assert.equal(refused(with_((s) => (s.pre_tokenizer = { type: 'FixedLength', length: 0 }))), 'tokenizer.json: pre_tokenizer.length must be a whole number of at least 1, not 0');
    assert.equal(refused(with_((s) => (s.decoder = { type: 'Replace', content: '' }))), 'tokenizer.json: decoder.pattern is missing: it must be {"Regex": "…"} or {"String": "…"}');
    assert.equal(refused(with_((s) => (s.model = { type: 'Unigram', vocab: [['a', 0], ['b']] }))), 'tokenizer.json: model.vocab[1] must be a [piece, score] pair, not ["b"]');
    assert.equal(refused(with_((s) => (s.model = { type: 'WordPiece', vocab: { a: 0 }, unk_token: '[UNK]' }))), 'tokenizer.json: model.continuing_subword_prefix is missing: it must be a string');
    assert.match(refused(with_((s) => (s.added_tokens[1].content = 'x'.repeat(1e6))), '{"additional_special_tokens": "<s>"}'), /^tokenizer_config\.json: additional_special_tokens must be a list, not "<s>"$/);
    // a long value is cut short, never written whole
    const long = refused(with_((s) => (s.added_tokens[1].content = { a: 'x'.repeat(1e6), b: [[[[1]]]] })));
    assert.ok(long.length < 200 && long.includes('…'), long);
  });

  it('100,000 nested brackets: a bounded message, no stack overflow (in the model type, in Sequences)', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const json = JSON.stringify(small()).replace('"type":"BPE"', `"type":${deep}`);
    const m = refused(json);
    assert.match(m, /^tokenizer\.json: model\.type is \[\[\[\[…\]\]\]\], which cannot be read here \(supported: BPE, WordPiece, Unigram\)$/);
    let seq = '{"type":"NFC"}';
    for (let i = 0; i < 100_000; i++) seq = `{"type":"Sequence","normalizers":[${seq}]}`;
    const n = refused(JSON.stringify(small()).replace(/"normalizer":\{.*?\]\}/, `"normalizer":${seq}`));
    assert.match(n, /^tokenizer\.json: normalizer(\.normalizers\[0\])+\.normalizers nests Sequences more than 16 deep/);
    assert.ok(n.length < 400);
  });

  it('a pattern the JavaScript engine refuses: the library\'s words after ours, and where', () => {
    const s = small() as { pre_tokenizer: { pretokenizers: Array<{ pattern: unknown }> } };
    s.pre_tokenizer.pretokenizers[0].pattern = { Regex: '(unclosed' };
    assert.match(refused(s), /^tokenizer\.json: pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex cannot be read: Invalid regular expression: .*Unterminated group$/);
  });

  it('GPT-2\'s own file reads; so do files without the keys Hugging Face always writes', () => {
    assert.equal(loadTokenizer(JSON.stringify(gpt2())).vocabSize, 50257);
    const bare = gpt2();
    for (const k of ['added_tokens', 'normalizer', 'pre_tokenizer', 'post_processor', 'decoder']) delete bare[k];
    assert.equal(loadTokenizer(JSON.stringify(bare)).encode('hello').ids.length > 0, true);
  });

  it('fuzzed: one part of a tokenizer replaced by a wrong value: a TokenizerError in our words, one line, bounded (or it works)', () => {
    const r = rng(20260612);
    const values: unknown[] = [{}, [], null, 0, -1, 1.5, 1e300, 'x', '', true, [[[[[[1]]]]]], { type: 'Sequence' }, { Regex: 5 }, { String: 'a' }, [{}], ['a b'], [['a']], 'x'.repeat(5000), { type: {} }];
    const texts = ['ab a', '', '<s> <x>\tabc', '😀 !', 'x'.repeat(300)];
    let loaded = 0;
    let refusedAt = 0;
    let library = 0;
    for (let n = 0; n < 3000; n++) {
      const spec = small();
      // a random path into the spec, then a random wrong value there
      let node: any = spec; // eslint-disable-line @typescript-eslint/no-explicit-any
      let key: string | number = '';
      for (let depth = 0; depth < 6; depth++) {
        const keys: Array<string | number> = Array.isArray(node) ? node.map((_: unknown, i: number) => i) : Object.keys(node);
        if (keys.length === 0) break;
        key = keys[Math.floor(r() * keys.length)];
        const child = node[key];
        if (child === null || typeof child !== 'object' || r() < 0.3) break;
        node = child;
      }
      node[key] = values[Math.floor(r() * values.length)];
      const json = JSON.stringify(spec);
      try {
        const t = loadTokenizer(json);
        loaded++;
        for (const text of texts) {
          try {
            const e = t.encode(text);
            e.ids.forEach((id) => t.label(id));
            t.decode(e.ids);
          } catch (err) {
            check(err, json);
            if (!/^the (tokenizer library failed on it|tokenizer gives the piece|ids cannot be decoded)/.test((err as Error).message)) assert.fail(`${(err as Error).message}\n${json.slice(0, 300)}`);
          }
        }
      } catch (err) {
        check(err, json);
        const m = (err as Error).message;
        if (/^tokenizer\.json( cannot be read|: \S+ cannot be read): /.test(m)) library++;
        else if (/^tokenizer\.json(:| has no)/.test(m)) refusedAt++;
        else assert.fail(`${m}\n${json.slice(0, 300)}`);
      }
    }
    assert.ok(refusedAt > 1000 && loaded > 200, `${refusedAt} refused at their place, ${loaded} loaded, ${library} by the library`);
    assert.equal(library, 0, `${library} of 3000 refused only by the library (its words after ours, no place)`);
  });

  it('mayBacktrack: nested repeats are flagged; real tokenizers\' patterns are not', () => {
    for (const p of ['(a+)+$', '(a*)*b', '(?:\\w+\\s?)*$', '((a+))+', '(a+){2,}', '(x|(a+))*']) assert.equal(mayBacktrack(p), true, p);
    for (const p of [
      "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
      "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}",
      '(a)+', '[(a+)]+', '\\(a+\\)+', ' ?\\p{L}+',
    ]) assert.equal(mayBacktrack(p), false, p);
  });
});

function check(err: unknown, json: string): void {
  assert.ok(err instanceof TokenizerError, `${String(err)}\n${json.slice(0, 300)}`);
  const m = err.message;
  assert.ok(!m.includes('\n') && m.length < 400 && !m.includes('undefined') && !/internal error/.test(m), `${m}\n${json.slice(0, 300)}`);
}
