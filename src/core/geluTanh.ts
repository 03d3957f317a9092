// GELU, tanh approximation, as torch.nn.GELU(approximate="tanh"):
// x/2 · (1 + tanh(√(2/π) · (x + 0.044715·x³)))
const SQRT_2_OVER_PI = 0.7978845608028654;

export function geluTanh(x: number): number {
  return 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)));
}
