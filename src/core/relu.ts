// ReLU(x) = max(0, x)
export function relu(x: number): number {
  return x > 0 ? x : 0;
}
