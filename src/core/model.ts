// A model: what it computes (its spec) and its numbers (its params).

import type { MatmulKernel, Packed } from './kernel';
import type { Param, Params } from './params';
import type { ModelSpec } from './spec';

export interface Model {
  readonly spec: ModelSpec;
  readonly params: Params;
}

/** A matrix param packed for the kernel as B of out = x·B: K inputs, N outputs, as its layout stores it. */
export function packParam(kernel: MatmulKernel, p: Param, K: number, N: number): Packed {
  if (p.data.length < K * N) throw new RangeError(`a [${p.shape.join(', ')}] matrix cannot be packed as ${K} inputs × ${N} outputs`);
  return kernel.pack(p.data, K, N, p.layout === 'in_out' ? 'kn' : 'nk');
}
