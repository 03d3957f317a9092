// out (N) = a (N) + b (N): the residual connection.
export function residualForward(out: Float32Array, a: Float32Array, b: Float32Array, n: number): void {
  for (let i = 0; i < n; i++) out[i] = a[i] + b[i];
}
