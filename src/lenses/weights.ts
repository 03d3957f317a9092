// Reading a linear layer's matrix by what it connects, whatever its layout: the lenses take single
// rows and columns of W (a head's slice of Wo, a neuron's column of W2, a word's row of the head),
// never the whole product the forward computes.
//   y = x·W' + b,  W' (K,N): K inputs, N outputs; stored (N,K) in out_in, (K,N) in in_out, as
//   panels of 16 outputs in 'panels' (core/params.ts)

import { weightAt, weightIndex, type Param } from '../core/params';

// W'[k][n] of a (K inputs, N outputs) matrix param (a 16-bit one widened: core/params.ts)
export { weightAt };

// d (K) = W' · u: what each input contributes to the direction u (N) of the outputs
export function backProject(p: Param | null, u: ArrayLike<number>, K: number, N: number): Float64Array {
  const out = new Float64Array(K);
  if (p === null) {
    for (let k = 0; k < K; k++) out[k] = u[k];
    return out;
  }
  for (let k = 0; k < K; k++) {
    let s = 0;
    if (p.half) for (let n = 0; n < N; n++) s += weightAt(p, k, n, K, N) * u[n];
    else if (p.layout === 'in_out') for (let n = 0, o = k * N; n < N; n++) s += p.data[o + n] * u[n];
    else if (p.layout === 'panels') for (let n = 0; n < N; n++) s += p.data[weightIndex('panels', k, n, K, N)] * u[n];
    else for (let n = 0; n < N; n++) s += p.data[n * K + k] * u[n];
    out[k] = s;
  }
  return out;
}

export function dot(a: ArrayLike<number>, b: ArrayLike<number>, n = a.length): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
