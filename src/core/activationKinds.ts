// The FFN activations a model file may name: the list, how the panel names each, which are gated.
// Names only, no numbers: the spec (spec.ts) and the readers use these; the functions themselves
// are in activation.ts.

export type Activation = 'relu' | 'gelu' | 'gelu_tanh' | 'silu' | 'linear' | 'swiglu' | 'geglu' | 'reglu' | 'geglu_tanh';

/** The activations a model file may name (format.ts). `geglu_tanh` is a checkpoint's only (gemma), not yet in the file format. */
export const ACTIVATIONS: readonly Activation[] = ['relu', 'gelu', 'gelu_tanh', 'silu', 'linear', 'swiglu', 'geglu', 'reglu'];

const LABELS: Record<Activation, string> = {
  relu: 'ReLU', gelu: 'GELU', gelu_tanh: 'GELU (tanh)', silu: 'SiLU', linear: 'linear', swiglu: 'SwiGLU', geglu: 'GeGLU', reglu: 'ReGLU', geglu_tanh: 'GeGLU (tanh)',
};

/** How the panel and hovers name an activation. */
export function activationLabel(a: string): string {
  return LABELS[a as Activation] ?? a;
}

export function isGated(a: Activation): boolean {
  return a === 'swiglu' || a === 'geglu' || a === 'reglu' || a === 'geglu_tanh';
}

/** The plain activation a gated one applies to its gate (swiglu → silu), for charts and labels; a plain one itself. */
export function gateActivation(a: Activation): Activation {
  switch (a) {
    case 'swiglu': return 'silu';
    case 'geglu': return 'gelu';
    case 'reglu': return 'relu';
    case 'geglu_tanh': return 'gelu_tanh';
    default: return a;
  }
}
