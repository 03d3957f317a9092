// Soft-capping (gemma2): c · tanh(s / c), which bounds a number to (−c, c) and leaves small ones
// almost as they are. On the attention scores (attn_logit_softcapping: attentionScores.ts) and on
// the head's logits (final_logit_softcapping: `head.logits` and each lens layer's logits).
//   out (N) = tanh(inp / c) · c

/** tanh(x / c) · c, each step rounded to float32 as torch's `tanh(x / c) * c` on a float32 tensor (c as float32). */
export function softcap(x: number, c: number): number {
  const cf = Math.fround(c);
  return Math.fround(Math.fround(Math.tanh(Math.fround(x / cf))) * cf);
}

// out (N) = softcap(inp (N), c) over [from, to); out may be inp
export function softcapForward(out: Float32Array, inp: Float32Array, c: number, from = 0, to = inp.length): void {
  for (let i = from; i < to; i++) out[i] = softcap(inp[i], c);
}
