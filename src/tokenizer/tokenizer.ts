// A Hugging Face tokenizer.json, read with @huggingface/tokenizers (the Hub's own format and
// algorithms; nothing of BPE is written here). Row labels show a token's spaces and line breaks
// visibly (GPT-2's byte-level `Ġthe` and SentencePiece's `▁the` are both `·the`). No Node
// built-ins: the caller reads the files (the worker on desktop, workspace.fs on the web).

import { Tokenizer } from '@huggingface/tokenizers';

export class TokenizerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenizerError';
  }
}

export interface TextTokenizer {
  /** The ids of a text, special tokens added as the tokenizer's post-processor says (Llama's BOS). */
  encode(text: string): { readonly ids: readonly number[]; readonly tokens: readonly string[] };
  decode(ids: readonly number[]): string;
  /** A token's string for a row or column label, spaces shown as `·`, line breaks as `↵`. */
  label(id: number): string;
  /** Ids it knows (the model's vocabulary may be larger, padded). */
  readonly vocabSize: number;
}

export function loadTokenizer(json: string, configJson?: string): TextTokenizer {
  let spec: { model?: { type?: string; vocab?: unknown }; added_tokens?: Array<{ id: number }> };
  let config: Record<string, unknown> = {};
  try {
    spec = JSON.parse(json) as typeof spec;
    if (configJson) config = JSON.parse(configJson) as Record<string, unknown>;
  } catch {
    throw new TokenizerError('the tokenizer is not JSON (expected a Hugging Face tokenizer.json)');
  }
  if (!spec || typeof spec !== 'object' || !spec.model) throw new TokenizerError('the tokenizer has no "model": is it a Hugging Face tokenizer.json?');
  let tok: Tokenizer;
  try {
    tok = new Tokenizer(spec, config);
  } catch (e) {
    throw new TokenizerError(`the tokenizer cannot be read: ${(e as Error).message.split('\n')[0]}`);
  }
  const byteLevel = usesByteLevel(spec);
  let vocabSize = 0;
  const vocab = spec.model.vocab;
  if (vocab && typeof vocab === 'object') vocabSize = Array.isArray(vocab) ? vocab.length : Object.keys(vocab).length;
  for (const a of spec.added_tokens ?? []) vocabSize = Math.max(vocabSize, a.id + 1);
  const labels = new Map<number, string>();
  return {
    encode(text) {
      const e = tok.encode(text);
      return { ids: e.ids, tokens: e.tokens };
    },
    decode: (ids) => tok.decode([...ids], { clean_up_tokenization_spaces: false }), // (the text as it was, spaces before punctuation kept)
    label(id) {
      let l = labels.get(id);
      if (l === undefined) {
        const raw = tok.id_to_token(id);
        l = raw === undefined ? `#${id}` : visible(raw, byteLevel);
        labels.set(id, l);
      }
      return l;
    },
    vocabSize,
  };
}

function usesByteLevel(spec: unknown): boolean {
  const s = JSON.stringify((spec as { pre_tokenizer?: unknown; decoder?: unknown }).pre_tokenizer ?? null) + JSON.stringify((spec as { decoder?: unknown }).decoder ?? null);
  return s.includes('ByteLevel');
}

/** GPT-2's byte-to-unicode table, reversed: the printable stand-in of each byte → the byte. */
const BYTE_OF = ((): Map<string, number> => {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  return new Map(bs.map((b, i) => [String.fromCharCode(cs[i]), b]));
})();

/** A token's text with its whitespace made visible. */
export function visible(token: string, byteLevel: boolean): string {
  let text = token;
  const byteTok = /^<0x([0-9A-Fa-f]{2})>$/.exec(token); // SentencePiece byte fallback
  if (byteTok) text = String.fromCharCode(parseInt(byteTok[1], 16));
  else if (byteLevel) {
    const bytes: number[] = [];
    let ok = true;
    for (const ch of token) {
      const b = BYTE_OF.get(ch);
      if (b === undefined) { ok = false; break; }
      bytes.push(b);
    }
    if (ok) {
      const d = new TextDecoder('utf-8', { fatal: false }).decode(new Uint8Array(bytes));
      // a piece of a multi-byte character shows as its bytes
      text = d.includes('\ufffd') ? bytes.map((b) => (b < 128 ? String.fromCharCode(b) : `<${b.toString(16).toUpperCase().padStart(2, '0')}>`)).join('') : d;
    }
  }
  return text.replace(/▁/g, ' ').replace(/ /g, '·').replace(/\r?\n/g, '↵').replace(/\t/g, '⇥');
}
