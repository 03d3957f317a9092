// A norm read with its scale frozen at this run's value (TransformerLens' apply_ln_to_stack): an
// affine map of its input, so what each part of the input contributes along an output direction
// is linear in the part and the parts add up. The norm's settings (gain, shift, eps, (1 + w)) are
// read from its stage in the plan, so the lens reads the norm exactly as the forward computed it.
//   RMSNorm:   y = g ⊙ x / r,                 r = √(mean(x²) + ε)     d' = g ⊙ d / r
//   LayerNorm: y = g ⊙ (x − mean x) / σ + β,  σ = √(var(x) + ε)      d' = g ⊙ d / σ − mean(g ⊙ d / σ), constant β · d
//   (g: the gain, or 1 + w for gemma's (1 + w) RMSNorm; 1 without a gain)

import type { StageDef } from '../core/graph';
import { STAGE } from '../core/ids';
import type { Params } from '../core/params';
import { dot } from './weights';

/** A norm stage's settings as its op reads them (layernorm.ts's NormArgs, rmsnorm.ts's onePlus). */
interface NormStageArgs {
  readonly x: string;
  readonly gamma: string;
  readonly beta: string | null;
  readonly eps: number;
  readonly onePlus?: boolean;
}

export interface FrozenNorm {
  /** The input direction d' (C) such that part · d' is the part's share of y · d. */
  readonly dir: Float64Array;
  /** What the norm adds along d whatever its input (β · d; 0 for RMSNorm). */
  readonly constant: number;
}

export function isNormStage(def: StageDef): boolean {
  return def.op.name === 'rmsnorm' || def.op.name === 'layernorm';
}

/** The input stage a norm stage normalizes. */
export function normInput(def: StageDef): string {
  return (def.args as NormStageArgs).x;
}

/** The norm `def` at the input row `x` (C), frozen, read along the output direction `d` (C). */
export function frozenNorm(def: StageDef, params: Params, x: ArrayLike<number>, d: ArrayLike<number>, C: number): FrozenNorm {
  const a = def.args as NormStageArgs;
  const w = params.get(a.gamma)?.data;
  const gain = (c: number): number => (w ? (a.onePlus ? 1 + w[c] : w[c]) : 1);
  const dir = new Float64Array(C);
  if (def.op.name === 'rmsnorm') {
    let ss = 0;
    for (let c = 0; c < C; c++) ss += x[c] * x[c];
    const r = Math.sqrt(ss / C + a.eps);
    for (let c = 0; c < C; c++) dir[c] = (gain(c) * d[c]) / r;
    return { dir, constant: 0 };
  }
  let m = 0;
  for (let c = 0; c < C; c++) m += x[c];
  m /= C;
  let v = 0;
  for (let c = 0; c < C; c++) v += (x[c] - m) * (x[c] - m);
  const sigma = Math.sqrt(v / C + a.eps);
  let md = 0;
  for (let c = 0; c < C; c++) md += (dir[c] = (gain(c) * d[c]) / sigma);
  md /= C;
  for (let c = 0; c < C; c++) dir[c] -= md;
  const beta = a.beta === null ? undefined : params.get(a.beta)?.data;
  return { dir, constant: beta ? dot(beta, d, C) : 0 };
}

/** The norm stage of the plan that reads `id` (a sublayer's post-norm: `ln1_post` reads `attn.out`), or null. */
export function normReading(plan: readonly StageDef[], id: string): StageDef | null {
  return plan.find((s) => isNormStage(s) && normInput(s) === id) ?? null;
}

/**
 * The stream the final norm reads (the output, without one): the last layer's `out`, or what is
 * read in its place after an SAE's splice or a steer there (the plan's own input of that stage).
 */
export function finalStream(plan: readonly StageDef[]): string {
  const def = plan.find((d) => d.id === STAGE.lnF) ?? plan.find((d) => d.id === STAGE.output);
  if (!def) throw new Error('a plan with no output');
  return def.inputs[0];
}
