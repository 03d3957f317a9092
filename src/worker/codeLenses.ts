// Code lenses above the model file's keys: the input's shape, a "Visualize layer i FFN" above each
// FFN, and each matrix's shape, role, parameter count and (ReLU-like FFNs) dead neurons.
import type { CodeLens } from '../protocol/worker';
import type { PathSegment } from '../model/problems';
import { matrixMeaning, type MatrixParam } from '../model/roles';
import { layerPath, nodeAt } from '../model/tree';
import { formatCount, plural } from '../util/numberFormat';
import { canDie, deadNeurons, type DocStages } from './docStages';

const LENS_MATRICES: MatrixParam[] = ['Wq', 'Wk', 'Wv', 'Wo', 'W1', 'Wg', 'W2'];

export function codeLenses(c: DocStages): CodeLens[] {
  const { spec, params } = c.model.model;
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
      if (at) out.push({ ...at, title: `Visualize layer ${i} FFN${dead ? ` · ${dead.dead} of ${dead.total} neurons dead` : ''}`, visualize: `layers.${i}.ffn.up` });
    }
    for (const param of LENS_MATRICES) {
      const sub = param === 'W1' || param === 'Wg' || param === 'W2' ? 'ffn' : 'attention';
      const at = keyRange([...base, sub, param]);
      const p = params.get(`layers.${i}.${sub === 'ffn' ? 'ffn' : 'attn'}.${param}`);
      if (!at || !p) continue;
      const [r, cc] = p.shape;
      let title = `${param} · ${matrixMeaning(param).name} · [${r} × ${cc}] · ${formatCount(r * cc)} params`;
      if (sub === 'ffn' && dead) title += ` · ${plural(dead.dead, 'dead neuron')}`;
      out.push({ ...at, title });
    }
  });
  const W = params.get('head.W');
  const at = keyRange(['head', 'W']);
  if (W && at) out.push({ ...at, title: `W · unembedding · [${W.shape[0]} × ${W.shape[1]}] · ${formatCount(W.shape[0] * W.shape[1])} params` });
  return out;
}
