// A token's raw bytes, as the tokenizer's decoder turns it into text: GPT-2's byte-level pieces
// through the byte-to-unicode table reversed, SentencePiece's byte fallback `<0xE3>` as its byte,
// any other piece as its UTF-8 (SentencePiece's `▁` as the space the decoder makes of it).

/** GPT-2's byte-to-unicode table, reversed: the char code of each byte's printable stand-in → the byte (-1: none). */
export const BYTE_OF = ((): Int16Array => {
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
  const table = new Int16Array(256 + n).fill(-1);
  bs.forEach((b, i) => (table[cs[i]] = b));
  return table;
})();

const encoder = new TextEncoder();

/**
 * The bytes a token stands for; null when it stands for none the decoder would join with its
 * neighbours (a byte-level vocabulary's added token such as `<|endoftext|>` that is not spelt in
 * the byte alphabet is its text, and an unknown id is null).
 */
export function tokenBytes(token: string | undefined, byteLevel: boolean): Uint8Array | null {
  if (token === undefined) return null;
  const byteTok = /^<0x([0-9A-Fa-f]{2})>$/.exec(token); // SentencePiece byte fallback
  if (byteTok) return Uint8Array.of(parseInt(byteTok[1], 16));
  if (byteLevel) {
    const out = new Uint8Array(token.length);
    for (let i = 0; i < token.length; i++) {
      const b = BYTE_OF[token.charCodeAt(i)] ?? -1;
      if (b < 0) return encoder.encode(token); // (not a byte-level piece: an added token, as its text)
      out[i] = b;
    }
    return out;
  }
  return encoder.encode(token.replace(/▁/g, ' '));
}
