// A model: what it computes (its spec) and its numbers (its params), and the reference forward
// pass: the block graph (plan.ts) walked once, every stage computed in full by its op. The
// incremental engine (engine.ts) must give the same numbers bit for bit.

import type { StageContext, StageDef } from './graph';
import type { MatmulKernel, Packed } from './kernel';
import type { Param, Params } from './params';
import { planModel } from './plan';
import type { ModelSpec } from './spec';
import type { Stage, StageSink } from './stages';
import { checkSize } from './tensor';

export interface Model {
  readonly spec: ModelSpec;
  readonly params: Params;
}

/** A matrix param packed for the kernel as B of out = x·B: K inputs, N outputs, as its layout stores it. */
export function packParam(kernel: MatmulKernel, p: Param, K: number, N: number): Packed {
  if (p.data.length < K * N) throw new RangeError(`a [${p.shape.join(', ')}] matrix cannot be packed as ${K} inputs × ${N} outputs`);
  return kernel.pack(p.data, K, N, p.layout === 'in_out' ? 'kn' : 'nk');
}

/** Every stage of `model`, in order; each also goes to `emit` the moment it exists. */
export function forward(model: Model, kernel: MatmulKernel, emit?: StageSink, plan: readonly StageDef[] = planModel(model.spec)): Stage[] {
  const out = new Map<string, Float32Array>();
  const stages: Stage[] = [];
  const packs = new Map<Param, Packed>();
  const ctx: StageContext = {
    T: model.spec.T,
    kernel,
    full: true,
    input: (id) => out.get(id)!,
    changed: () => 'all',
    param: (id) => model.params.get(id) ?? null,
    paramChanged: () => 'all',
    previous: null,
    kept: () => null,
    keep: () => undefined,
    packed: (id, K, N) => {
      const p = model.params.get(id)!;
      let packed = packs.get(p);
      if (!packed) packs.set(p, (packed = packParam(kernel, p, K, N)));
      return packed;
    },
  };
  try {
    for (const def of plan) {
      const { data } = def.op.run(ctx, def.args);
      checkSize(`stage ${def.id}`, def.shape, data);
      out.set(def.id, data);
      const s: Stage = { id: def.id, shape: def.shape as number[], data };
      stages.push(s);
      emit?.(s);
    }
  } finally {
    for (const p of packs.values()) kernel.release(p);
  }
  return stages;
}
