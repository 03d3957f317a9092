// SiLU(x) = x·σ(x) = x / (1 + e^(-x)), as torch.nn.SiLU (the "Swish" of SwiGLU)
export function silu(x: number): number {
  return x / (1 + Math.exp(-x));
}
