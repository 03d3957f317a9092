// The FFN's activation stage, plain or gated.
//   plain:  act = f(up)
//   gated:  act = f(gate) ⊙ up   (swiglu: f = SiLU, geglu: f = GELU, reglu: f = ReLU,
//           geglu_tanh: f = GELU-tanh, gemma's gelu_pytorch_tanh(gate) · up)
// GELU is the exact one (erf: gelu.ts), gpt_neox's `gelu`; GELU-tanh is gelu_new / gelu_pytorch_tanh.

import { isGated, type Activation } from './activationKinds';
import { activationFn } from './activationFns';
import type { StageOp } from './graph';
import { unionCols, type Cols } from './params';
import { expfInPlace, vectorExp } from './expf';
import { geluTanhExpArg } from './geluTanh';
import { siluExpArg } from './silu';

// (the names live below the functions, so the spec can name an activation without importing them)
export { ACTIVATIONS, activationLabel, gateActivation, isGated, type Activation } from './activationKinds';
export { activationFn } from './activationFns';

/** For f(x) = x / (1 + e^g(x)) (SiLU, GELU-tanh, and their gated forms): g, so a whole stage takes e^ in one vector pass. */
function sigmoidArg(a: Activation): ((x: number) => number) | null {
  switch (a) {
    case 'silu': case 'swiglu': return siluExpArg;
    case 'gelu_tanh': case 'geglu_tanh': return geluTanhExpArg;
    default: return null;
  }
}

// out (T,F) = f(up) or f(gate) ⊙ up; up, gate (T,F)
export function activationForward(
  out: Float32Array, up: Float32Array, gate: Float32Array | null, a: Activation, n: number,
): void {
  const f = activationFn(a);
  if (isGated(a)) {
    if (gate === null) throw new Error(`${a} needs the gate stage`);
    for (let i = 0; i < n; i++) out[i] = f(gate[i]) * up[i];
  } else {
    for (let i = 0; i < n; i++) out[i] = f(up[i]);
  }
}

export interface ActivationArgs {
  readonly up: string;
  /** The gate stage of a gated activation, else null. */
  readonly gate: string | null;
  readonly activation: Activation;
  /** One scale per neuron (0 for a neuron switched off by `ablate`); absent: ones. */
  readonly units: string;
  readonly F: number;
}

// act (T,F) = f(up) or f(gate) ⊙ up, times units (F) when given, on the columns `cols` (all: null)
export function activationColumns(act: Float32Array, up: Float32Array, gate: Float32Array | null, a: Activation, units: Float32Array | null, T: number, F: number, cols: Iterable<number> | null): void {
  const f = activationFn(a);
  const gated = isGated(a);
  if (gated && gate === null) throw new Error(`${a} needs the gate stage`);
  if (cols === null) {
    // the whole stage: one loop per case, f inlined by the JIT (a closure per element cost a third
    // of GPT-2-small's activation time)
    const n = T * F;
    if ((a === 'gelu' || a === 'geglu') && units === null) {
      const v = vectorExp();
      if (v !== null) {
        // exact GELU in WebAssembly, the f64 operations of gelu.ts
        if (gated) v.geluAct(act, gate!, up, n);
        else v.geluAct(act, up, null, n);
        return;
      }
    }
    const g = sigmoidArg(a);
    const v = g !== null && units === null ? vectorExp() : null;
    if (v !== null) {
      // every pass in WebAssembly, with the same f64 operations as the loops below
      const kind = a === 'gelu_tanh' || a === 'geglu_tanh' ? 'gelu_tanh' : 'silu';
      if (gated) v.sigmoidAct(act, gate!, up, n, kind);
      else v.sigmoidAct(act, up, null, n, kind);
      return;
    }
    if (g !== null) {
      // act holds g(x), then e^g(x) (expf's vector form: the bits f's scalar expf gives), then f(x)·…
      const x = gated ? gate! : up;
      for (let i = 0; i < n; i++) act[i] = g(x[i]);
      expfInPlace(act, 0, n);
      if (gated) {
        if (units) for (let i = 0, j = 0; i < n; i++, j = j + 1 === F ? 0 : j + 1) act[i] = (x[i] / (1 + act[i])) * up[i] * units[j];
        else for (let i = 0; i < n; i++) act[i] = (x[i] / (1 + act[i])) * up[i];
      } else if (units) for (let i = 0, j = 0; i < n; i++, j = j + 1 === F ? 0 : j + 1) act[i] = (x[i] / (1 + act[i])) * units[j];
      else for (let i = 0; i < n; i++) act[i] = x[i] / (1 + act[i]);
      return;
    }
    if (gated) {
      if (units) for (let i = 0, j = 0; i < n; i++, j = j + 1 === F ? 0 : j + 1) act[i] = f(gate![i]) * up[i] * units[j];
      else for (let i = 0; i < n; i++) act[i] = f(gate![i]) * up[i];
    } else if (units) for (let i = 0, j = 0; i < n; i++, j = j + 1 === F ? 0 : j + 1) act[i] = f(up[i]) * units[j];
    else for (let i = 0; i < n; i++) act[i] = f(up[i]);
    return;
  }
  // (the same operations in the same order as above, so a column recomputed is bit-identical)
  for (const j of cols) {
    for (let t = 0; t < T; t++) {
      const i = t * F + j;
      const v = gated ? f(gate![i]) * up[i] : f(up[i]);
      act[i] = units ? v * units[j] : v;
    }
  }
}

/** Elementwise: after an edit that changed some neurons' columns of up or gate (or their unit scales), only those columns. */
export const activationOp: StageOp<ActivationArgs> = {
  name: 'activation',
  append: 'rows',
  run(ctx, a) {
    const { T } = ctx;
    const up = ctx.input(a.up);
    const gate = a.gate === null ? null : ctx.input(a.gate);
    const units = ctx.param(a.units)?.data ?? null;
    let cols: Cols = ctx.full ? 'all' : unionCols(unionCols(ctx.changed(a.up), a.gate === null ? null : ctx.changed(a.gate)), ctx.paramChanged(a.units));
    if (cols === 'all' || ctx.previous === null) {
      const act = ctx.rows(a.F);
      activationColumns(act, up, gate, a.activation, units, T, a.F, null);
      return { data: act, changed: 'all' };
    }
    cols ??= new Set();
    const act = ctx.previous.slice();
    activationColumns(act, up, gate, a.activation, units, T, a.F, cols);
    return { data: act, changed: cols };
  },
};
