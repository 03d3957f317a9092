// The FFN activations a model file may name: the list, how the panel names each, which are gated.
// Names only, no numbers: the spec (spec.ts) and the readers use these; the functions themselves
// are in activation.ts.

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
