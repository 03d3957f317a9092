// Warnings only the computed stages can give: NaN or ∞ produced, every neuron of an FFN dead,
// an attention row with nothing to see.
import { activationLabel } from '../core/activation';
import { parseStageId, STAGE, stageId } from '../core/ids';
import type { PathSegment } from '../model/problems';
import { layerPath, nodeAt } from '../model/tree';
import { quote } from '../common/quote';
import { canDie, deadNeurons, type DocStages } from './docStages';

export interface RuntimeProblem {
  readonly code: 'dead-neurons' | 'nan' | 'masked-row';
  readonly message: string;
  readonly path: PathSegment[];
  readonly start: number;
  readonly end: number;
}

export function runtimeProblems(c: DocStages): RuntimeProblem[] {
  const m = c.file;
  const { spec } = m.model;
  const out: RuntimeProblem[] = [];
  const keyAt = (path: PathSegment[]): { start: number; end: number } => {
    const parent = nodeAt(c.root, path.slice(0, -1));
    const p = parent?.kind === 'object' ? [...parent.props].reverse().find((x) => x.key === path[path.length - 1]) : undefined;
    if (p) return { start: p.keyStart, end: p.keyEnd };
    const folder = m.checkpoint?.request.folderAt; // (a checkpoint file has no inline layers: the checkpoint is what the warning is about)
    return folder ? { start: folder.start, end: folder.end } : { start: 0, end: 1 };
  };
  // NaN or ±∞: the first stage that has one, and why.
  for (const s of c.stages.values()) {
    const bad = firstNonFinite(s.data);
    if (bad < 0) continue;
    const { layer } = parseStageId(s.id);
    const def = c.plan.find((d) => d.id === s.id);
    const path: PathSegment[] = layer >= 0 ? [...layerPath(c.root, layer), def?.group === 'attention' ? 'attention' : def?.group === 'ffn' ? 'ffn' : 'input'] : ['input'];
    const v = s.data[bad];
    const why = Number.isNaN(v)
      ? 'a value overflowed float32 earlier (∞ − ∞ or ∞ · 0 gives NaN)'
      : `a value exceeded float32's range (±3.4e38): the inputs or weights are too large`;
    out.push({ code: 'nan', path, ...keyAt(path), message: `${Number.isNaN(v) ? 'NaN' : 'Infinity'} produced in stage ${s.id} (first at index ${bad}): ${why}` });
    break;
  }
  spec.layers.forEach((L, i) => {
    const base = layerPath(c.root, i);
    if (L.ffn && canDie(L.ffn.activation)) {
      const d = deadNeurons(c, i);
      if (d && d.dead === d.total) {
        out.push({ code: 'dead-neurons', path: [...base, 'ffn'], ...keyAt([...base, 'ffn']), message: `every neuron of layer ${i}'s FFN is dead for this input: ${activationLabel(L.ffn.activation)} gives 0 for all ${d.total} neurons and every token, so the FFN adds only b2` });
      }
    }
    if (L.attention) {
      const wts = c.stages.get(stageId(i, STAGE.weights));
      if (!wts) return;
      const T = spec.T;
      for (let h = 0; h < L.attention.NH; h++) {
        for (let q = 0; q < T; q++) {
          let sum = 0;
          for (let k = 0; k < T; k++) sum += wts.data[(h * T + q) * T + k];
          if (sum === 0) {
            out.push({ code: 'masked-row', path: [...base, 'attention'], ...keyAt([...base, 'attention']), message: `head ${h}, token ${quote(m.tokens[q] ?? `t${q}`)}: every key is masked or its scores are −∞, so the attention row is all zeros` });
            return;
          }
        }
      }
    }
  });
  return out;
}

/**
 * The index of the first NaN or ±∞ in `data`, or −1. Each run scans every stage (GPT-2-small's
 * logits alone are T × 50,257 numbers), so blocks are summed as x · 0 first, without a branch per
 * number: the sum is NaN exactly when the block holds a NaN or an ∞.
 */
export function firstNonFinite(data: Float32Array): number {
  const BLOCK = 4096;
  for (let at = 0; at < data.length; at += BLOCK) {
    const end = Math.min(data.length, at + BLOCK);
    let z = 0;
    for (let i = at; i < end; i++) z += data[i] * 0;
    if (z === z) continue;
    for (let i = at; i < end; i++) if (!Number.isFinite(data[i])) return i;
  }
  return -1;
}
