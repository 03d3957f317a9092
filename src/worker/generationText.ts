// What generation reads of a model file beyond its model: its settings ("generate", else the
// format's defaults) and the text of tokens (their bytes decoded, as the tokenizer's decoder
// joins them). The worker's generation job and `ffn-lens generate` both use these.

import type { DecodeSettings } from '../core/decode';
import { GENERATE_FIELDS } from '../model/format';
import type { ModelFile } from '../model/read';
import type { TokenText } from '../protocol/generation';

/** The file's "generate", or the format's defaults where it has none. */
export function fileSettings(file: ModelFile): DecodeSettings {
  const g = file.checkpoint?.request.generate;
  const d = (k: string): number => GENERATE_FIELDS[k].default as number;
  return { tokens: g?.tokens ?? d('tokens'), temperature: g?.temperature ?? d('temperature'), topK: g?.topK ?? d('top_k'), seed: g?.seed ?? d('seed') };
}

const utf8 = new TextDecoder('utf-8');

/** A token's own text: its bytes decoded (a piece of a character as U+FFFD), else its label. */
export function tokenTexts(file: ModelFile): (id: number) => TokenText {
  const tok = file.checkpoint?.tokenizer ?? null;
  return (id) => {
    const b = tok?.bytes?.(id) ?? null;
    return { id, text: b ? utf8.decode(b) : file.vocab[id] ?? `#${id}` };
  };
}

/** Tokens' text as one: their bytes joined, then decoded (a character split over tokens comes out whole). */
export function joinedText(file: ModelFile, ids: readonly number[]): string {
  const tok = file.checkpoint?.tokenizer ?? null;
  const parts = ids.map((id) => tok?.bytes?.(id) ?? null);
  if (parts.some((b) => b === null)) return ids.map((id) => file.vocab[id] ?? `#${id}`).join('');
  const all = new Uint8Array(parts.reduce((n, b) => n + b!.length, 0));
  let at = 0;
  for (const b of parts) {
    all.set(b!, at);
    at += b!.length;
  }
  return utf8.decode(all);
}
