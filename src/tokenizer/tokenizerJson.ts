// A tokenizer.json checked before @huggingface/tokenizers sees it: the library trusts its input
// (`config.merges.map is not a function`, `text.replace is not a function`, a stack overflow on
// nested Sequences, a FixedLength of 0 that never ends), so every part it reads is checked here for
// the kind of value Hugging Face writes there, and a wrong one is said at its place in the file
// (`tokenizer.json: added_tokens[1].content must be a string, not {}`). The walk is bounded (Sequence
// nesting, pattern length), never recursive without a limit, and quotes values with describeValue.

import { describeValue } from '../common/quote';
import { TokenizerError } from './tokenizerError';

/** A regular expression the file gives (a Split, Replace's pattern), where it stands. */
export interface FilePattern {
  readonly at: string;
  readonly source: string;
}

export interface CheckedTokenizer {
  /** Every `{"Regex": …}` of the normalizer, pre-tokenizer and decoder: what may run long. */
  readonly patterns: readonly FilePattern[];
  /** A ByteLevel pre-tokenizer or decoder: labels read its pieces as bytes. */
  readonly byteLevel: boolean;
}

/** The model kinds the library implements (an unknown `type` would quietly give no ids). */
export const MODELS = ['BPE', 'WordPiece', 'Unigram'] as const;
/** Ids above this are no vocabulary's (the library would make an array this long). */
export const MAX_ID = 2 ** 24 - 1;
/** Sequences inside Sequences deeper than this are no real tokenizer's. */
const MAX_DEPTH = 16;
/** Real tokenizers' patterns are a few hundred characters; the library rewrites one in quadratic time. */
export const MAX_PATTERN = 10_000;

type Obj = Record<string, unknown>;
type Kind = 'string' | 'string?' | 'bool' | 'int' | 'number?' | 'pattern' | 'list' | 'pair';
/** Per component type: the fields the library reads and the kind each must be (absent is allowed unless the kind says required). */
type Fields = Readonly<Record<string, Readonly<Record<string, Kind>>>>;

const NORMALIZERS: Fields = {
  BertNormalizer: {}, Precompiled: {}, NFC: {}, NFD: {}, NFKC: {}, NFKD: {}, Strip: {}, StripAccents: {}, Lowercase: {},
  Sequence: { normalizers: 'list' },
  Replace: { pattern: 'pattern', content: 'string' },
  Prepend: { prepend: 'string' },
};
const PRE_TOKENIZERS: Fields = {
  BertPreTokenizer: {}, Whitespace: {}, WhitespaceSplit: {}, Punctuation: { behavior: 'string' },
  Sequence: { pretokenizers: 'list' },
  Metaspace: { replacement: 'string', str_rep: 'string', prepend_scheme: 'string', split: 'bool' },
  ByteLevel: { add_prefix_space: 'bool', trim_offsets: 'bool', use_regex: 'bool' },
  Split: { pattern: 'pattern', behavior: 'string', invert: 'bool' },
  Replace: { pattern: 'pattern', content: 'string' },
  Digits: { individual_digits: 'bool' },
  FixedLength: { length: 'int' },
};
const POST_PROCESSORS: Fields = {
  TemplateProcessing: {}, // (its single/pair templates: templateItems)
  ByteLevel: { add_prefix_space: 'bool', trim_offsets: 'bool', use_regex: 'bool' },
  BertProcessing: { sep: 'pair', cls: 'pair' },
  RobertaProcessing: { sep: 'pair', cls: 'pair', trim_offsets: 'bool', add_prefix_space: 'bool' },
  Sequence: { processors: 'list' },
};
const DECODERS: Fields = {
  ByteLevel: { add_prefix_space: 'bool', trim_offsets: 'bool', use_regex: 'bool' },
  WordPiece: { prefix: 'string', cleanup: 'bool' },
  Metaspace: { replacement: 'string', prepend_scheme: 'string', split: 'bool' },
  BPEDecoder: { suffix: 'string' },
  CTC: { pad_token: 'string', word_delimiter_token: 'string', cleanup: 'bool' },
  Sequence: { decoders: 'list' },
  Replace: { pattern: 'pattern', content: 'string' },
  Fuse: {}, ByteFallback: {},
  Strip: { content: 'string', start: 'int', stop: 'int' },
};
/** Where a Sequence keeps its parts, per component. */
const PARTS = { normalizer: 'normalizers', pre_tokenizer: 'pretokenizers', post_processor: 'processors', decoder: 'decoders' } as const;
const TABLES = { normalizer: NORMALIZERS, pre_tokenizer: PRE_TOKENIZERS, post_processor: POST_PROCESSORS, decoder: DECODERS } as const;
const REQUIRED: ReadonlySet<string> = new Set(['Replace.pattern', 'Split.pattern', 'Prepend.prepend', 'BertProcessing.sep', 'BertProcessing.cls', 'RobertaProcessing.sep', 'RobertaProcessing.cls']);

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Obj, k: string): unknown => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

/** Checks a parsed tokenizer.json (`file`: its name, for messages); throws TokenizerError at the first wrong part. */
export function checkTokenizerJson(spec: Obj, file: string): CheckedTokenizer {
  const c = new Checker(file);
  const patterns: FilePattern[] = [];
  let byteLevel = false;
  for (const part of ['normalizer', 'pre_tokenizer', 'post_processor', 'decoder'] as const) {
    // a stack, not recursion: a Sequence's parts are pushed with their depth
    const stack: Array<{ v: unknown; at: string; depth: number }> = [{ v: own(spec, part), at: part, depth: 0 }];
    while (stack.length > 0) {
      const { v, at, depth } = stack.pop()!;
      if ((v === null || v === undefined) && depth === 0) continue;
      const type = c.component(v, at, TABLES[part], depth);
      if (type === 'ByteLevel' && part !== 'post_processor') byteLevel = true;
      const o = v as Obj;
      for (const [key, kind] of Object.entries(TABLES[part][type])) {
        const value = c.field(o, key, `${at}.${key}`, kind, REQUIRED.has(`${type}.${key}`));
        if (kind === 'pattern' && value !== undefined && 'Regex' in (value as Obj)) patterns.push({ at: `${at}.${key}.Regex`, source: (value as { Regex: string }).Regex });
        if (kind === 'list' && Array.isArray(value)) {
          if (depth + 1 > MAX_DEPTH) throw new TokenizerError(`${file}: ${at}.${key} nests Sequences more than ${MAX_DEPTH} deep, which no tokenizer does`);
          for (let i = value.length - 1; i >= 0; i--) stack.push({ v: value[i], at: `${at}.${PARTS[part]}[${i}]`, depth: depth + 1 });
        }
      }
      if (part === 'post_processor' && type === 'TemplateProcessing') {
        c.templateItems(own(o, 'single'), `${at}.single`, ['A']);
        c.templateItems(own(o, 'pair'), `${at}.pair`, ['A', 'B']);
      }
    }
  }
  c.model(own(spec, 'model'));
  c.addedTokens(own(spec, 'added_tokens'));
  return { patterns, byteLevel };
}

/** Checks a parsed tokenizer_config.json (the library reads a few of its keys). */
export function checkTokenizerConfig(config: Obj, file: string): void {
  const c = new Checker(file);
  const extra = own(config, 'additional_special_tokens');
  if (extra !== undefined && extra !== null && !Array.isArray(extra)) c.fail('additional_special_tokens', 'a list', extra);
  // (what decides the prompt's special tokens: specialTokens.ts)
  for (const key of ['add_bos_token', 'add_eos_token']) {
    const v = own(config, key);
    if (v !== undefined && v !== null && typeof v !== 'boolean') c.fail(key, 'true, false or null', v);
  }
  for (const key of ['bos_token', 'eos_token']) {
    const v = own(config, key);
    const content = isObj(v) ? own(v, 'content') : undefined;
    if (v !== undefined && v !== null && typeof v !== 'string' && typeof content !== 'string') c.fail(key, 'a token (a string, or an object with its "content"), or null', v);
  }
  c.field(config, 'tokenizer_class', 'tokenizer_class', 'string?', false);
}

/** The model's type, as the library would take it when the file gives none (null: none it tokenizes with). */
export function modelType(model: Obj): string | null {
  const type = own(model, 'type');
  if (type !== undefined) return typeof type === 'string' ? type : null;
  const vocab = own(model, 'vocab');
  if (Array.isArray(vocab)) return 'Unigram';
  if (!vocab || !('continuing_subword_prefix' in model) || !('unk_token' in model)) return null;
  return 'merges' in model ? 'BPE' : 'WordPiece';
}

class Checker {
  constructor(private readonly file: string) {}

  fail(at: string, expected: string, v: unknown): never {
    throw new TokenizerError(v === undefined ? `${this.file}: ${at} is missing: it must be ${expected}` : `${this.file}: ${at} must be ${expected}, not ${describeValue(v)}`);
  }

  /** A normalizer, pre-tokenizer, post-processor or decoder: an object of a known type; its type. */
  component(v: unknown, at: string, table: Fields, depth: number): string {
    const kinds = Object.keys(table);
    if (!isObj(v)) this.fail(at, depth === 0 ? 'null or an object with a "type"' : 'an object with a "type"', v);
    const type = own(v, 'type');
    if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(table, type)) {
      this.fail(`${at}.type`, `one of ${kinds.join(', ')}`, type);
    }
    return type as string;
  }

  field(o: Obj, key: string, at: string, kind: Kind, required: boolean): unknown {
    const v = own(o, key);
    if (v === undefined) {
      if (required) this.fail(at, KIND_WORDS[kind], v);
      return v;
    }
    switch (kind) {
      case 'string': if (typeof v !== 'string') this.fail(at, 'a string', v); break;
      case 'string?': if (v !== null && typeof v !== 'string') this.fail(at, 'a string or null', v); break;
      case 'bool': if (typeof v !== 'boolean') this.fail(at, 'true or false', v); break;
      case 'number?': if (v !== null && typeof v !== 'number') this.fail(at, 'a number or null', v); break;
      case 'int': if (!Number.isSafeInteger(v) || (v as number) < (key === 'length' ? 1 : 0)) this.fail(at, key === 'length' ? 'a whole number of at least 1' : 'a whole number of at least 0', v); break;
      case 'list': if (!Array.isArray(v)) this.fail(at, 'a list', v); break;
      case 'pair': if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || !isId(v[1])) this.fail(at, 'a [token, id] pair', v); break;
      case 'pattern': this.pattern(v, at); break;
    }
    return v;
  }

  /** `{"Regex": "…"}` or `{"String": "…"}`. */
  private pattern(v: unknown, at: string): void {
    const expected = '{"Regex": "…"} or {"String": "…"}';
    if (!isObj(v)) this.fail(at, expected, v);
    const key = 'Regex' in v ? 'Regex' : 'String' in v ? 'String' : null;
    if (!key) this.fail(at, expected, v);
    const s = own(v, key);
    if (typeof s !== 'string') this.fail(`${at}.${key}`, 'a string', s);
    if (s.length > MAX_PATTERN) this.fail(`${at}.${key}`, `at most ${MAX_PATTERN.toLocaleString('en-US')} characters long`, s);
  }

  /** A TemplateProcessing template: a list of {"SpecialToken": {"id": token}} and {"Sequence": {"id": "A"}}. */
  templateItems(v: unknown, at: string, sequences: readonly string[]): void {
    if (v === undefined && sequences.length === 2) return; // (the pair template: never used here)
    if (!Array.isArray(v)) this.fail(at, 'a list of {"SpecialToken": …} and {"Sequence": …}', v);
    v.forEach((item, i) => {
      const here = `${at}[${i}]`;
      if (!isObj(item) || (!isObj(own(item, 'SpecialToken')) && !isObj(own(item, 'Sequence')))) this.fail(here, '{"SpecialToken": {"id": …}} or {"Sequence": {"id": "A"}}', item);
      const special = own(item, 'SpecialToken');
      if (isObj(special)) {
        if (typeof own(special, 'id') !== 'string') this.fail(`${here}.SpecialToken.id`, 'a token (a string)', own(special, 'id'));
      } else {
        const id = own(own(item, 'Sequence') as Obj, 'id');
        if (typeof id !== 'string' || !sequences.includes(id)) this.fail(`${here}.Sequence.id`, sequences.map((s) => `"${s}"`).join(' or '), id);
      }
    });
  }

  model(model: unknown): void {
    if (model === undefined) throw new TokenizerError(`${this.file} has no "model": is it a Hugging Face tokenizer.json?`);
    if (!isObj(model)) this.fail('model', 'an object with the vocabulary', model);
    const type = modelType(model);
    if (type === null && own(model, 'type') === undefined) throw new TokenizerError(`${this.file}: model has no "type" and is none of ${MODELS.join(', ')}`);
    if (!MODELS.includes(type as (typeof MODELS)[number])) {
      throw new TokenizerError(`${this.file}: model.type is ${describeValue(own(model, 'type'))}, which cannot be read here (supported: ${MODELS.join(', ')})`);
    }
    const vocab = own(model, 'vocab');
    if (type === 'Unigram') {
      if (!Array.isArray(vocab) || vocab.length === 0) this.fail('model.vocab', 'a non-empty list of [piece, score] pairs', vocab);
      for (let i = 0; i < vocab.length; i++) {
        const e: unknown = vocab[i];
        if (!Array.isArray(e) || e.length !== 2 || typeof e[0] !== 'string' || typeof e[1] !== 'number') this.fail(`model.vocab[${i}]`, 'a [piece, score] pair', e);
      }
      const unk = own(model, 'unk_id');
      if (unk !== undefined && unk !== null && !(isId(unk) && unk < vocab.length)) this.fail('model.unk_id', `null or an id from 0 to ${vocab.length - 1}`, unk);
      this.field(model, 'byte_fallback', 'model.byte_fallback', 'bool', false);
      return;
    }
    if (!isObj(vocab)) this.fail('model.vocab', 'an object of tokens and their ids', vocab);
    for (const token in vocab) {
      if (Object.prototype.hasOwnProperty.call(vocab, token) && !isId(vocab[token])) this.fail(`model.vocab[${describeValue(token)}]`, `an id (a whole number from 0 to ${MAX_ID})`, vocab[token]);
    }
    this.field(model, 'unk_token', 'model.unk_token', type === 'WordPiece' ? 'string' : 'string?', false);
    this.field(model, 'continuing_subword_prefix', 'model.continuing_subword_prefix', type === 'WordPiece' ? 'string' : 'string?', type === 'WordPiece');
    if (type === 'WordPiece') {
      this.field(model, 'max_input_chars_per_word', 'model.max_input_chars_per_word', 'int', false);
      return;
    }
    for (const key of ['end_of_word_suffix', 'continuing_subword_suffix']) this.field(model, key, `model.${key}`, 'string?', false);
    for (const key of ['byte_fallback', 'fuse_unk', 'ignore_merges']) this.field(model, key, `model.${key}`, 'bool', false);
    this.field(model, 'dropout', 'model.dropout', 'number?', false);
    this.merges(own(model, 'merges'));
  }

  /** BPE merges: all "a b" strings, or all ["a", "b"] pairs. */
  private merges(merges: unknown): void {
    if (!Array.isArray(merges)) this.fail('model.merges', 'a list of merges ("a b" or ["a", "b"]; [] for none)', merges);
    const pairs = Array.isArray(merges[0]);
    for (let i = 0; i < merges.length; i++) {
      const m: unknown = merges[i];
      const ok = pairs ? Array.isArray(m) && m.length === 2 && typeof m[0] === 'string' && typeof m[1] === 'string' : typeof m === 'string';
      if (!ok) this.fail(`model.merges[${i}]`, pairs ? 'a ["a", "b"] pair, as the first merge is' : 'a string "a b", as the first merge is', m);
    }
  }

  addedTokens(list: unknown): void {
    if (list === undefined) return;
    if (!Array.isArray(list)) this.fail('added_tokens', 'a list', list);
    for (let i = 0; i < list.length; i++) {
      const t: unknown = list[i];
      const at = `added_tokens[${i}]`;
      if (!isObj(t)) this.fail(at, 'an object with "id" and "content"', t);
      if (!isId(own(t, 'id'))) this.fail(`${at}.id`, `an id (a whole number from 0 to ${MAX_ID})`, own(t, 'id'));
      if (typeof own(t, 'content') !== 'string') this.fail(`${at}.content`, 'a string', own(t, 'content'));
      for (const key of ['single_word', 'lstrip', 'rstrip', 'special', 'normalized']) this.field(t, key, `${at}.${key}`, 'bool', false);
    }
  }
}

const KIND_WORDS: Readonly<Record<Kind, string>> = {
  string: 'a string', 'string?': 'a string or null', bool: 'true or false', int: 'a whole number', 'number?': 'a number or null',
  pattern: '{"Regex": "…"} or {"String": "…"}', list: 'a list', pair: 'a [token, id] pair',
};

function isId(v: unknown): v is number {
  return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_ID;
}
