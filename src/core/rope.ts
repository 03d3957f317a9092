// Rotary position embedding, Hugging Face's rotate-half convention (LlamaRotaryEmbedding and
// apply_rotary_pos_emb): dimension d < HS/2 of a head is paired with d + HS/2, and the pair is
// rotated by the angle pos · θ^(-2d/HS):
//   out[d]        = x[d]·cos − x[d + HS/2]·sin
//   out[d + HS/2] = x[d + HS/2]·cos + x[d]·sin
// The frequencies and angles are rounded to float32 as torch computes them.
// Partial rotary (rope.rotaryDims = R < HS: gpt_neox, phi3): the same on the first R dims of each
// head, with R in place of HS (pairs d, d + R/2; angle pos · θ^(-2d/R)); dims R … HS-1 pass through.
import type { RopeSpec } from './spec';

/** The dims of each head that are rotated: rope.rotaryDims (checked), else all HS. */
export function rotaryDimsOf(HS: number, rope: RopeSpec): number {
  const R = rope.rotaryDims;
  if (R === undefined) return HS;
  if (!(Number.isInteger(R) && R >= 0 && R <= HS && R % 2 === 0)) throw new RangeError(`rotaryDims must be an even whole number from 0 to ${HS}, not ${R}`);
  return R;
}

/**
 * The HS/2 frequencies (HS: the rotated dims, rotaryDimsOf), in float32 as torch computes them: inv_freq = 1 / θ^(2i/HS)
 * (`base ** (arange(0, dim, 2) / dim)`), then rescaled as Hugging Face's rope_type "linear"
 * (`inv_freq / factor`) or "llama3" (`_compute_llama3_parameters`).
 */
export function ropeInvFreq(HS: number, rope: RopeSpec): Float32Array {
  const f = Math.fround;
  const half = HS / 2;
  const inv = new Float32Array(half);
  for (let i = 0; i < half; i++) inv[i] = f(1 / f(Math.pow(rope.theta, f((2 * i) / HS))));
  const s = rope.scaling;
  if (!s) return inv;
  if (s.type === 'linear') {
    for (let i = 0; i < half; i++) inv[i] = f(inv[i] / s.factor);
    return inv;
  }
  // llama3: by wavelength 2π / inv_freq against the original context's
  const lowFreqWavelen = s.originalMaxPositions / s.lowFreqFactor;
  const highFreqWavelen = s.originalMaxPositions / s.highFreqFactor;
  for (let i = 0; i < half; i++) {
    const wavelen = f(f(2 * Math.PI) / inv[i]);
    const scaled = wavelen > lowFreqWavelen ? f(inv[i] / s.factor) : inv[i];
    const medium = !(wavelen < highFreqWavelen) && !(wavelen > lowFreqWavelen);
    if (!medium) {
      inv[i] = scaled;
      continue;
    }
    const smooth = f(f(f(s.originalMaxPositions / wavelen) - s.lowFreqFactor) / f(s.highFreqFactor - s.lowFreqFactor));
    // (1 - smooth) * inv / factor + smooth * inv, left to right as torch evaluates it
    inv[i] = f(f(f(f(1 - smooth) * scaled) / s.factor) + f(smooth * scaled));
  }
  return inv;
}

/**
 * cos and sin (T, R/2) of every position's angles (R = rotaryDimsOf(HS, rope)), read-only: the
 * last few asked are kept (every layer's q and k, in every run, ask for the same; gemma3's layers
 * take turns between two specs).
 */
export function ropeAngles(T: number, HS: number, rope: RopeSpec): { readonly cos: Float32Array; readonly sin: Float32Array } {
  const at = recentAngles.findIndex((a) => a.T === T && a.HS === HS && a.rope === rope);
  const hit = at >= 0 ? recentAngles.splice(at, 1)[0] : { T, HS, rope, ...computeAngles(T, HS, rope) };
  recentAngles.unshift(hit);
  if (recentAngles.length > KEPT_ANGLES) recentAngles.pop();
  return hit;
}

// (SmolLM2's 60 calls a forward took 1.6 ms of sines and cosines)
const KEPT_ANGLES = 4;
const recentAngles: Array<{ readonly T: number; readonly HS: number; readonly rope: RopeSpec; readonly cos: Float32Array; readonly sin: Float32Array }> = [];

function computeAngles(T: number, HS: number, rope: RopeSpec): { cos: Float32Array; sin: Float32Array } {
  const R = rotaryDimsOf(HS, rope);
  const half = R / 2;
  const cos = new Float32Array(T * half);
  const sin = new Float32Array(T * half);
  const inv = ropeInvFreq(R, rope);
  for (let i = 0; i < half; i++) {
    for (let t = 0; t < T; t++) {
      const angle = Math.fround(t * inv[i]);
      cos[t * half + i] = Math.cos(angle);
      sin[t * half + i] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

// x (H,T,HS) rotated in place, every head alike (its first R = rotaryDimsOf(HS, rope) dims; the rest kept)
export function ropeForward(x: Float32Array, H: number, T: number, HS: number, rope: RopeSpec, t0 = 0): void {
  const half = rotaryDimsOf(HS, rope) / 2;
  const { cos, sin } = ropeAngles(t0 + T, HS, rope);
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
