// Compare: a document's stages shown as differences from a baseline's (src/worker/baseline.ts) of
// the same shape; the probabilities stay as they are (the panel shows the two predictions side by
// side), and a stage the baseline lacks or has in another shape goes as it is.
import type { Engine } from '../core/engine';
import type { Stage } from '../core/stages';
import type { ModelFile } from '../model/read';
import type { CompareMessage, ForDoc } from '../protocol/stageMessages';
import type { CompareSpec } from '../protocol/worker';
import type { CheckpointStore } from '../checkpoint/store';
import { Baseline, type BaselineRun } from './baseline';
import { HEAD_PROBS } from './vocabStages';

export class Comparison {
  private baseline: Baseline | null = null;
  /** The baseline's run for the version being posted. */
  private run: BaselineRun | null = null;

  constructor(private readonly doc: string, private readonly store: CheckpointStore | null) {}

  get on(): boolean {
    return this.baseline !== null;
  }

  /** Compare with this baseline, or not (null). */
  set(spec: CompareSpec | null): void {
    this.baseline = spec ? new Baseline(spec, this.store) : null;
    this.run = null;
  }

  /** The compare message of a run of `version` (null when off): the baseline's run for `file`, first. */
  begin(version: number, file: ModelFile, engine: Engine, loaded: () => void): ForDoc<CompareMessage> | null {
    this.run = this.baseline ? this.baseline.for(file, engine, loaded) : null;
    const b = this.run;
    if (!b) return null;
    const plan = engine.planOf(file.model.spec);
    const incomparable = b.stages ? plan.filter((d) => b.stages!.get(d.id)?.length !== d.shape.reduce((x, y) => x * y, 1)).map((d) => d.id) : [];
    return { type: 'compare', doc: this.doc, version, label: b.stages || b.error ? b.label : `${b.label} (reading its checkpoint…)`, error: b.error, incomparable, top: b.top };
  }

  /** What the panel is shown of `s`: its difference from the baseline's stage of the same shape, else `s`. */
  shown(s: Stage): Stage {
    const base = this.run?.stages?.get(s.id);
    if (!base || base.length !== s.data.length || s.id === HEAD_PROBS) return s;
    const diff = new Float32Array(s.data.length);
    for (let i = 0; i < diff.length; i++) diff[i] = s.data[i] - base[i];
    return { id: s.id, shape: s.shape, data: diff };
  }
}
