// A model: what it computes (its spec) and its numbers (its params).

import type { MatmulKernel, Packed } from './kernel';
import type { BLayout } from './matmulNaive';
import { panelsLength, storedLength, weightsOf, type Param, type Params } from './params';
import type { ModelSpec } from './spec';

export interface Model {
  readonly spec: ModelSpec;
  readonly params: Params;
}

/** A matrix param packed for the kernel as B of out = x·B: K inputs, N outputs, as its layout stores it. */
export function packParam(kernel: MatmulKernel, p: Param, K: number, N: number): Packed {
  const bLayout = bLayoutOf(p);
  if (storedLength(p) < (bLayout === 'panels' ? panelsLength(K, N) : K * N) || (bLayout === 'panels' && (p.shape[0] !== N || p.shape[1] !== K))) {
    throw new RangeError(`a [${p.shape.join(', ')}] matrix cannot be packed as ${K} inputs × ${N} outputs`);
  }
  return kernel.pack(weightsOf(p), K, N, bLayout);
}

/** How the kernel reads a matrix param as B of out = x·B. */
export function bLayoutOf(p: Param): BLayout {
  return p.layout === 'in_out' ? 'kn' : p.layout === 'panels' ? 'panels' : 'nk';
}
