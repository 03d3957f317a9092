// The FFN's activation stage, plain or gated.
//   plain:  act = f(up)
//   gated:  act = f(gate) ⊙ up   (swiglu: f = SiLU, geglu: f = GELU, reglu: f = ReLU)

import { gelu } from './gelu';
import { geluTanh } from './geluTanh';
import { relu } from './relu';
import { silu } from './silu';

export type Activation = 'relu' | 'gelu' | 'gelu_tanh' | 'silu' | 'linear' | 'swiglu' | 'geglu' | 'reglu';

export const ACTIVATIONS: readonly Activation[] = ['relu', 'gelu', 'gelu_tanh', 'silu', 'linear', 'swiglu', 'geglu', 'reglu'];

const LABELS: Record<Activation, string> = {
  relu: 'ReLU', gelu: 'GELU', gelu_tanh: 'GELU (tanh)', silu: 'SiLU', linear: 'linear', swiglu: 'SwiGLU', geglu: 'GeGLU', reglu: 'ReGLU',
};

/** How the panel and hovers name an activation. */
export function activationLabel(a: string): string {
  return LABELS[a as Activation] ?? a;
}

export function isGated(a: Activation): boolean {
  return a === 'swiglu' || a === 'geglu' || a === 'reglu';
}

const identity = (x: number): number => x;

/** The scalar function applied elementwise (to `up`, or to `gate` when gated). */
export function activationFn(a: Activation): (x: number) => number {
  switch (a) {
    case 'relu': case 'reglu': return relu;
    case 'gelu': case 'geglu': return gelu;
    case 'gelu_tanh': return geluTanh;
    case 'silu': case 'swiglu': return silu;
    case 'linear': return identity;
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
