// How the panel names a stage's axes and shape.
import type { AxisKind } from '../../src/protocol/stages';

/** `[5 tokens × 32]`, or `[4 heads × 5 tokens × 2]`. */
export function shapeLabel(shape: readonly number[]): string {
  if (shape.length === 3) return `[${shape[0]} head${shape[0] === 1 ? '' : 's'} × ${shape[1]} tokens × ${shape[2]}]`;
  return `[${shape[0]} token${shape[0] === 1 ? '' : 's'} × ${shape[1]}]`;
}

export function axisName(a: AxisKind): string {
  return { token: 'token', dim: 'dimension', neuron: 'neuron', 'head-dim': 'head dimension', key: 'key token', vocab: 'word' }[a];
}
