// A Hugging Face tokenizer.json, read with @huggingface/tokenizers (the Hub's own format and
// algorithms; nothing of BPE is written here). Row labels show a token's spaces and line breaks
// visibly (GPT-2's byte-level `Ġthe` and SentencePiece's `▁the` are both `·the`). No Node
// built-ins: the caller reads the files (the worker on desktop, workspace.fs on the web).

import { Tokenizer } from '@huggingface/tokenizers';
import { describeValue } from '../common/quote';
import { TokenizerError } from './tokenizerError';
import { BYTE_OF, tokenBytes } from './tokenBytes';
import { checkTokenizerConfig, checkTokenizerJson, type CheckedTokenizer, type FilePattern } from './tokenizerJson';
import { checkSpecialTokens, postProcessorWith, specialTokens, type SpecialTokens } from './specialTokens';

export { TokenizerError } from './tokenizerError';

export interface TextTokenizer {
  /** The ids of a text, special tokens added as transformers adds them (specialTokens.ts: Llama's and Gemma's BOS). */
  encode(text: string): { readonly ids: readonly number[]; readonly tokens: readonly string[] };
  /** The text of ids, special tokens included (`<s>`), nothing cleaned up: decode(encode(s)) = s without them. */
  decode(ids: readonly number[]): string;
  /** A token's string for a row or column label, spaces shown as `·`, line breaks as `↵` (`#id` outside the vocabulary). */
  label(id: number): string;
  /** 1 + the largest id it knows, added tokens included (the model's vocabulary may be larger, padded). */
  readonly vocabSize: number;
}

/** A tokenizer as loaded here: also its raw tokens, and the file's own patterns (what may run long). */
export interface LoadedTokenizer extends TextTokenizer {
  /** The token of an id as the vocabulary spells it (`Ġthe`), undefined outside it. */
  token(id: number): string | undefined;
  /** The bytes a token stands for, as the decoder joins them (`<0xE3>` → E3); null outside the vocabulary. */
  bytes(id: number): Uint8Array | null;
  readonly byteLevel: boolean;
  readonly patterns: readonly FilePattern[];
  /** The special tokens a text gets, and whether tokenizer.json's post_processor or tokenizer_config.json decided them. */
  readonly special: SpecialTokens;
}

/**
 * `json`: a tokenizer.json's text (`file`: its name, for messages); `configJson`: its
 * tokenizer_config.json's, if there is one. Every failure, the library's too, is a TokenizerError
 * in our words with the library's after them. `vet`: a last look at the checked file before the
 * library runs anything of it (it may throw a TokenizerError).
 */
export function loadTokenizer(json: string, configJson?: string, file = 'tokenizer.json', vet?: (checked: CheckedTokenizer) => void): LoadedTokenizer {
  const spec = parse(json, file);
  const config = configJson === undefined ? {} : parse(configJson, 'tokenizer_config.json');
  const checked = checkTokenizerJson(spec, file);
  checkTokenizerConfig(config, 'tokenizer_config.json');
  vet?.(checked);
  const post = Object.prototype.hasOwnProperty.call(spec, 'post_processor') ? spec.post_processor : null;
  const special = specialTokens(config, post);
  let tok: Tokenizer;
  try {
    // (the keys Hugging Face always writes; a hand-made file may leave them out)
    tok = new Tokenizer({ added_tokens: [], normalizer: null, pre_tokenizer: null, decoder: null, ...spec, post_processor: postProcessorWith(special, post) }, config);
  } catch (e) {
    // (the library's words after ours, at the pattern the JavaScript engine refuses when it is one)
    const at = where(e, checked.patterns);
    throw new TokenizerError(`${file}${at ? `: ${at}` : ''} cannot be read: ${firstLine(e)}`);
  }
  checkSpecialTokens(special, (t) => tok.token_to_id(t) !== undefined, file);
  const { byteLevel, patterns } = checked;
  const vocab = (tok.model?.vocab ?? []) as unknown[];
  const vocabSize = vocab.length; // indexed by id, added tokens included
  const token = (id: number): string | undefined => {
    const raw = Number.isInteger(id) && id >= 0 ? vocab[id] : undefined;
    return typeof raw === 'string' ? raw : undefined;
  };
  return {
    encode(text) {
      let e: { ids: unknown[]; tokens: unknown[] };
      try {
        e = tok.encode(text);
      } catch (err) {
        throw new TokenizerError(`the tokenizer library failed on it: ${firstLine(err)}`);
      }
      const bad = e.ids.findIndex((id) => !Number.isInteger(id));
      if (bad >= 0) throw new TokenizerError(`the tokenizer gives the piece ${describeValue(e.tokens[bad])}, which is not in its vocabulary`);
      return { ids: e.ids as number[], tokens: e.tokens.map(String) };
    },
    decode(ids) {
      if (ids.length === 0) return ''; // (the library refuses an empty list)
      try {
        return tok.decode([...ids], { clean_up_tokenization_spaces: false }); // the text as it was, spaces before punctuation kept
      } catch (err) {
        throw new TokenizerError(`the ids cannot be decoded: ${firstLine(err)}`);
      }
    },
    label: labelsOf(token, byteLevel),
    token,
    bytes: (id) => tokenBytes(token(id), byteLevel),
    vocabSize,
    byteLevel,
    patterns,
    special,
  };
}

function parse(text: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    // (not the engine's detail: it quotes the file's first characters, and the file may be any file)
    throw new TokenizerError(`${what} is not JSON`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new TokenizerError(`${what} is not a JSON object`);
  return v as Record<string, unknown>;
}

/** The library's message, its first line, bounded. */
export function firstLine(e: unknown): string {
  let m: string;
  try {
    m = e instanceof Error ? e.message : typeof e === 'string' ? e : describeValue(e);
  } catch {
    m = 'an unknown error';
  }
  const line = m.split('\n')[0];
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

/** A pattern the JavaScript engine refuses: where it is (the library names none). */
function where(e: unknown, patterns: readonly FilePattern[]): string {
  if (!(e instanceof SyntaxError)) return '';
  for (const p of patterns) {
    try {
      new RegExp(p.source, 'u');
    } catch {
      return p.at;
    }
  }
  return '';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const hexByte = (b: number): string => `<${b.toString(16).toUpperCase().padStart(2, '0')}>`;

/**
 * A token's text with its whitespace made visible: space `·`, line break `↵`, tab `⇥`, carriage
 * return `␍`, other control characters as their control pictures (`␀`), other invisible
 * characters as `<U+00A0>`; a byte that is a piece of a character (byte-level BPE, SentencePiece's
 * `<0xE2>`) as `<E2>`.
 */
export function visible(token: string, byteLevel: boolean): string {
  return (byteLevel ? visibleAsciiPiece(token) : null) ?? visibleReference(token, byteLevel);
}

/**
 * Most of a byte-level vocabulary in one pass: a piece of printable ASCII and spaces ('Ġthe' →
 * '·the'); null for anything else (visibleReference then). GPT-2's 50,257 labels in ~20 ms
 * instead of ~90, on the way to the first view of a checkpoint.
 */
function visibleAsciiPiece(token: string): string | null {
  if (token.length === 0 || token.startsWith('<0x')) return null;
  let out = '';
  for (let i = 0; i < token.length; i++) {
    const b = BYTE_OF[token.charCodeAt(i)] ?? -1;
    if (b === 0x20) out += '·';
    else if (b > 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else return null;
  }
  return out;
}

/** visible(), every case written out: the reference its fast path is tested against. */
export function visibleReference(token: string, byteLevel: boolean): string {
  let text = token;
  const byteTok = /^<0x([0-9A-Fa-f]{2})>$/.exec(token); // SentencePiece byte fallback
  if (byteTok) {
    const b = parseInt(byteTok[1], 16);
    text = b < 0x80 ? String.fromCharCode(b) : hexByte(b);
  } else if (byteLevel && !/^[!-~]*$/.test(token)) { // (printable ASCII stands for itself)
    let ascii = '';
    let i = 0;
    for (; i < token.length; i++) {
      const b = BYTE_OF[token.charCodeAt(i)] ?? -1;
      if (b < 0 || b >= 0x80) break;
      ascii += String.fromCharCode(b);
    }
    if (i === token.length) text = ascii; // most of a vocabulary ('Ġthe')
    else {
      const bytes: number[] = [];
      for (const ch of token) bytes.push(BYTE_OF[ch.charCodeAt(0)] ?? -1);
      if (bytes.every((b) => b >= 0)) { // (else not a byte-level piece, an added token: as it is)
        try {
          text = utf8.decode(Uint8Array.from(bytes));
        } catch {
          // a piece of a multi-byte character: ASCII as itself, the rest as bytes
          text = bytes.map((b) => (b < 0x80 ? String.fromCharCode(b) : hexByte(b))).join('');
        }
      }
    }
  }
  return ANY_INVISIBLE.test(text) ? text.replace(/▁/g, ' ').replace(INVISIBLE, show) : text;
}

const INVISIBLE = /\r\n|[\p{Cc}\p{Cf}\p{Z}]/gu; // controls, spaces, format characters (zero-width, BOM…)
const ANY_INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}▁]/u;
const SHOWS = /[^\p{Cc}\p{Cf}\p{Z}]/u;

function show(c: string, at: number, text: string): string {
  if (c === ' ') return '·';
  if (c === '\n' || c === '\r\n') return '↵';
  if (c === '\t') return '⇥';
  const code = c.codePointAt(0)!;
  if (code < 0x20) return String.fromCodePoint(0x2400 + code); // ␀ … ␟ (␍ for a lone \r)
  if (code === 0x7f) return '␡';
  // a zero-width joiner inside an emoji sequence shows as the sequence
  if (code === 0x200d && SHOWS.test(text[at - 1] ?? '') && SHOWS.test(text[at + 1] ?? '')) return c;
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** A label per id, made once each (`#id` outside the vocabulary): the in-process and the threaded tokenizer's. */
export function labelsOf(token: (id: number) => string | undefined, byteLevel: boolean): (id: number) => string {
  const labels = new Map<number, string>();
  return (id) => {
    let l = labels.get(id);
    if (l === undefined) {
      const raw = token(id);
      l = raw === undefined ? `#${id}` : visible(raw, byteLevel);
      labels.set(id, l);
    }
    return l;
  };
}
