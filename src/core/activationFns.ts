// Each activation as a scalar function: what the ops apply elementwise and the panel's activation
// chart draws (plain code, no WebAssembly: the webview imports it).
import type { Activation } from './activationKinds';
import { gelu } from './gelu';
import { geluTanh } from './geluTanh';
import { relu } from './relu';
import { silu } from './silu';

const identity = (x: number): number => x;

/** The scalar function applied elementwise (to `up`, or to `gate` when gated). */
export function activationFn(a: Activation): (x: number) => number {
  switch (a) {
    case 'relu': case 'reglu': return relu;
    case 'gelu': case 'geglu': return gelu;
    case 'gelu_tanh': case 'geglu_tanh': return geluTanh;
    case 'silu': case 'swiglu': return silu;
    case 'linear': return identity;
  }
}
