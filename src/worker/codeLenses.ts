// Code lenses above the model file's keys: the input's shape, a "Visualize layer i FFN" above each
// FFN, and each matrix's shape, role, parameter count and (ReLU-like FFNs) dead neurons.
import { PARAM, paramId, STAGE, stageId } from '../core/ids';
import { LAYER_PARAMS } from '../core/paramTable';
import type { CodeLens } from '../protocol/worker';
import type { PathSegment } from '../model/problems';
import { matrixMeaning, type MatrixParam } from '../model/roles';
import { layerPath, nodeAt } from '../model/tree';
import { formatCount, plural } from '../common/numberFormat';
import { canDie, deadNeurons, type DocStages } from './docStages';

/** A layer's matrices (the param table's), each with a lens above its key in the model file. */
const LENS_MATRICES = LAYER_PARAMS.filter((r) => r.role === 'matrix' && r.key !== null);

export function codeLenses(c: DocStages): CodeLens[] {
  const { spec, params } = c.file.model;
  const out: CodeLens[] = [];
  const keyRange = (path: PathSegment[]): { start: number; end: number } | null => {
    const parent = nodeAt(c.root, path.slice(0, -1));
    if (!parent || parent.kind !== 'object') return null;
    const p = [...parent.props].reverse().find((x) => x.key === path[path.length - 1]);
    return p ? { start: p.keyStart, end: p.keyEnd } : null;
  };
  const inputAt = keyRange(['input']);
  if (inputAt) out.push({ ...inputAt, title: `input · ${plural(spec.T, 'token')} × d_model ${spec.C}` });
  spec.layers.forEach((L, i) => {
    const base = layerPath(c.root, i);
    const dead = L.ffn && canDie(L.ffn.activation) ? deadNeurons(c, i) : null;
    if (L.ffn) {
      const at = keyRange([...base, 'ffn']);
      if (at) out.push({ ...at, title: `Visualize layer ${i} FFN${dead ? ` · ${dead.dead} of ${dead.total} neurons dead` : ''}`, visualize: stageId(i, STAGE.up) });
    }
    for (const row of LENS_MATRICES) {
      const param = row.key as MatrixParam;
      const sub = row.sub;
      const at = keyRange([...base, sub, param]);
      const p = params.get(paramId(i, row.kind));
      if (!at || !p) continue;
      const [r, cc] = p.shape;
      let title = `${param} · ${matrixMeaning(param).name} · [${r} × ${cc}] · ${formatCount(r * cc)} params`;
      if (sub === 'ffn' && dead) title += ` · ${plural(dead.dead, 'dead neuron')}`;
      out.push({ ...at, title });
    }
  });
  const W = params.get(PARAM.headW);
  const at = keyRange(['head', 'W']);
  if (W && at) out.push({ ...at, title: `W · unembedding · [${W.shape[0]} × ${W.shape[1]}] · ${formatCount(W.shape[0] * W.shape[1])} params` });
  return out;
}
