// The reference forward pass: the block graph (plan.ts) walked once, every stage computed in full
// by its op, in the order the model computes them (llm.c's gpt2_forward, written once for every
// architecture). The incremental engine (engine.ts) must give the same numbers bit for bit.

import type { StageContext, StageDef } from './graph';
import { tsKernel, type MatmulKernel, type Packed } from './kernel';
import { packParam, type Model } from './model';
import type { Param } from './params';
import { planModel } from './plan';
import type { Stage, StageSink } from './stages';
import { checkSize } from './tensor';

/** Every stage of `model`, in order; each also goes to `emit` the moment it exists. */
export function forward(model: Model, kernel: MatmulKernel = tsKernel, emit?: StageSink, plan: readonly StageDef[] = planModel(model.spec)): Stage[] {
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
    rows: (w) => new Float32Array(model.spec.T * w),
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
