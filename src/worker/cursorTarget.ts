// The panel follows the editor's cursor: a number of W1/Wg/b1/bg highlights its neuron (and the
// down-projection shows what that neuron writes), an input number its token, a W2 row or b2
// entry its output dimension.
import { PARAM, paramId, STAGE, stageId } from '../core/ids';
import type { CursorTarget } from '../protocol/worker';
import type { Source } from '../model/jsonc';
import { pathAt } from '../model/pathAt';
import { roleOf } from '../model/roles';
import { child } from '../model/tree';
import type { DocStages } from './docStages';
import { weightAt, type Param } from '../core/params';

export function cursorTarget(text: Source, c: DocStages, offset: number): CursorTarget | null {
  const hit = pathAt(text, c.root, offset);
  if (!hit) return null;
  const { spec, params } = c.file.model;
  const role = roleOf(hit.path, c.file.layout, !!child(c.root, 'layers'));
  if (!role) return null;
  let neuron: { layer: number; j: number } | null = null;
  if (role.kind === 'weight' && (role.param === 'W1' || role.param === 'Wg') && role.out !== null) neuron = { layer: role.layer, j: role.out };
  else if (role.kind === 'weight' && role.param === 'W2' && role.inp !== null) neuron = { layer: role.layer, j: role.inp };
  else if (role.kind === 'bias' && (role.param === 'b1' || role.param === 'bg') && role.index !== null) neuron = { layer: role.layer, j: role.index };
  if (neuron) {
    const f = spec.layers[neuron.layer]?.ffn;
    const act = c.stages.get(stageId(neuron.layer, STAGE.act));
    const W2 = params.get(paramId(neuron.layer, PARAM.W2));
    if (!f || !W2 || neuron.j >= f.F) return null;
    const writes = act ? neuronWrites(act.data, W2, spec.T, spec.C, f.F, neuron.j) : undefined;
    return { target: { kind: 'neuron', layer: neuron.layer, index: neuron.j }, ...(writes ? { writes: { data: writes, shape: [spec.T, spec.C] } } : {}) };
  }
  if ((role.kind === 'input' || role.kind === 'token-label') && role.token < spec.T) return { target: { kind: 'token', index: role.token } };
  if (role.kind === 'weight' && role.param === 'W2' && role.out !== null) return { target: { kind: 'dim', layer: role.layer, index: role.out } };
  if (role.kind === 'bias' && role.param === 'b2' && role.index !== null) return { target: { kind: 'dim', layer: role.layer, index: role.index } };
  return null;
}

// out (T,C) = act[:, j] · W2[:, j]ᵀ: what neuron j writes into each token; W2 of F inputs, C outputs
function neuronWrites(act: Float32Array, W2: Param, T: number, C: number, F: number, j: number): Float32Array {
  const out = new Float32Array(T * C);
  for (let i = 0; i < C; i++) {
    const wij = weightAt(W2, j, i, F, C);
    for (let t = 0; t < T; t++) out[t * C + i] = act[t * F + j] * wij;
  }
  return out;
}
