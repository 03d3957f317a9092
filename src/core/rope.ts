// Rotary position embedding, Hugging Face's rotate-half convention (LlamaRotaryEmbedding and
// apply_rotary_pos_emb): dimension d < HS/2 of a head is paired with d + HS/2, and the pair is
// rotated by the angle pos · θ^(-2d/HS):
//   out[d]        = x[d]·cos − x[d + HS/2]·sin
//   out[d + HS/2] = x[d + HS/2]·cos + x[d]·sin
// The frequencies and angles are rounded to float32 as torch computes them.

/** cos and sin (T, HS/2) of every position's angles. */
export function ropeAngles(T: number, HS: number, theta: number): { cos: Float32Array; sin: Float32Array } {
  const half = HS / 2;
  const cos = new Float32Array(T * half);
  const sin = new Float32Array(T * half);
  for (let i = 0; i < half; i++) {
    // inv_freq = 1 / θ^(2i/HS), in float32 as torch's (base ** (arange(0, dim, 2) / dim))
    const invFreq = Math.fround(1 / Math.fround(Math.pow(theta, Math.fround((2 * i) / HS))));
    for (let t = 0; t < T; t++) {
      const angle = Math.fround(t * invFreq);
      cos[t * half + i] = Math.cos(angle);
      sin[t * half + i] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

// x (H,T,HS) rotated in place, every head alike
export function ropeForward(x: Float32Array, H: number, T: number, HS: number, theta: number, t0 = 0): void {
  const half = HS / 2;
  const { cos, sin } = ropeAngles(t0 + T, HS, theta);
  for (let h = 0; h < H; h++) {
    for (let t = 0; t < T; t++) {
      const o = (h * T + t) * HS;
      const p = t0 + t; // (x holds positions t0 … t0 + T - 1)
      for (let i = 0; i < half; i++) {
        const c = cos[p * half + i];
        const s = sin[p * half + i];
        const a = x[o + i];
        const b = x[o + i + half];
        x[o + i] = a * c - b * s;
        x[o + i + half] = b * c + a * s;
      }
    }
  }
}
