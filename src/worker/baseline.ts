// Compare: the stages of a baseline model, against which the panel shows the document's stages as
// differences ("what did my edit change"). The baseline is the same file without its ablate /
// scale / weights (a checkpoint file), the file as committed (HEAD), or another model file, sent
// by the host as text. Computed with the document's engine (its packed weights: a checkpoint's
// unchanged tensors are not packed twice) and kept until what it depends on changes.

import { STAGE } from '../core/ids';
import type { Engine } from '../core/engine';
import type { Model } from '../core/model';
import { CheckpointResolver } from '../checkpoint/resolve';
import type { LoadedSae } from '../checkpoint/saeFiles';
import { resolveRead, type CheckpointStore } from '../checkpoint/store';
import { readModel, type ModelFile } from '../model/read';
import type { CompareSpec } from '../protocol/worker';
import type { TopWords } from '../protocol/stages';
import { topWords } from './vocabStages';

/** Words kept per token for the baseline's prediction (shown beside the edited model's). */
export const BASELINE_TOP = 20;

export interface BaselineRun {
  readonly label: string;
  /** The baseline's stages by id; null while its checkpoint loads or when it has an error. */
  readonly stages: ReadonlyMap<string, Float32Array> | null;
  readonly error: string | null;
  /** Per token, its top words and their probabilities: [T][BASELINE_TOP] flattened. */
  readonly top: TopWords | null;
}

const LABELS = { plain: 'without ablate, scale and weights', plainSae: 'without ablate, scale, weights and SAE edits', unsteered: 'without its steer' } as const;

export class Baseline {
  private key: string | null = null;
  private run: BaselineRun | null = null;
  private loading = false;
  private readonly resolver = new CheckpointResolver();
  /** The unsteered model the run was of (kind 'unsteered'). */
  private unsteeredModel: Model | null = null;
  /** The plain baseline's label: it says the SAE edits are left out when the file attaches SAEs. */
  private plainLabel: string = LABELS.plain;

  constructor(readonly spec: CompareSpec, private readonly store: CheckpointStore | null) {}

  get label(): string {
    return this.spec.kind === 'plain' ? this.plainLabel : this.spec.kind === 'unsteered' ? LABELS.unsteered : this.spec.label;
  }

  /**
   * The baseline for the document as read now (`file`: its model). `onLoaded`: a checkpoint the
   * baseline names came in (compute again).
   */
  for(file: ModelFile, engine: Engine, onLoaded: () => void): BaselineRun {
    const s = this.spec;
    if (s.kind === 'plain') {
      const c = file.checkpoint;
      if (!c) return this.fail('this model file names no checkpoint, so it has no "ablate", "scale" or "weights" to leave out: compare with the file as committed (HEAD) or with another model file');
      const r = c.request;
      // (the SAEs kept, observing: with no edit each hands its stage on as it is; the steer kept too)
      const saes = (r.saes ?? []).map((s) => [s.path, s.site, s.scalingFactor]);
      const steers = (r.steers ?? []).map((s) => [s.site, s.alpha, s.positions, s.source]);
      const key = JSON.stringify([r.folder, r.tokenizer, r.prompt, r.tokenIds, r.tokens, r.temperature, r.lens, c.source.paramCount, saes, steers]);
      if (key === this.key && this.run) return this.run;
      this.key = key;
      this.plainLabel = saes.length ? LABELS.plainSae : LABELS.plain;
      const loaded = (c.saes ?? []) as readonly LoadedSae[];
      const res = this.resolver.resolve({ ...r, ablate: [], scale: [], weights: [], saeEdits: [] }, c.source, c.tokenizer, loaded, this.store?.kernel);
      if (!res.file) return this.fail(`the file without its overrides does not resolve: ${res.problems[0]?.message ?? 'unknown problem'}`);
      return (this.run = this.compute(res.file, engine));
    }
    if (s.kind === 'unsteered') return this.unsteered(file, engine);
    if (s.text === this.key && this.run && !this.loading) return this.run;
    this.key = s.text;
    const base = readModel(s.text, s.fileName);
    const r = (base.checkpoint || base.file?.saeKeys) && this.store ? resolveRead(base, s.fileName, this.store, this.resolver) : { read: base };
    if ('loading' in r) {
      this.loading = true;
      void r.loading.then(() => {
        this.loading = false;
        this.key = null;
        onLoaded();
      });
      return (this.run = { label: this.label, stages: null, error: null, top: null });
    }
    const m = r.read.file;
    if (!m) {
      const p = r.read.problems.find((x) => x.severity === 'error');
      return this.fail(`${this.label} does not read as a model${p ? `: ${p.message}` : ''}`);
    }
    return (this.run = this.compute(m, engine));
  }

  /** The same file without its steer (resolve.ts made it): run again only when it changed. */
  private unsteered(file: ModelFile, engine: Engine): BaselineRun {
    const m = file.checkpoint?.unsteered;
    if (!m) {
      this.key = null;
      return this.fail('this file has no "steer": add one, e.g. "steer": { "layers.6.out": { "contrast": ["Love", "Hate"], "alpha": 4 } }, to compare the steered prediction with the unsteered one');
    }
    const key = JSON.stringify({ ...m.spec, eps: [...m.spec.eps] });
    const last = this.unsteeredModel;
    if (this.run?.stages && key === this.key && last && last.params.size === m.params.size && [...m.params].every(([id, p]) => last.params.get(id) === p)) return this.run;
    this.key = key;
    this.unsteeredModel = m;
    return (this.run = this.compute(m, engine));
  }

  private fail(error: string): BaselineRun {
    this.run = { label: this.label, stages: null, error, top: null };
    return this.run;
  }

  private compute(m: ModelFile | Model, engine: Engine): BaselineRun {
    const model = 'model' in m ? m.model : m;
    const stages = new Map(engine.forwardOnce(model).map((s) => [s.id, s.data]));
    const probs = stages.get(STAGE.probs);
    const head = model.spec.head;
    const top = probs && head ? topWords(probs, model.spec.T, head.V, BASELINE_TOP) : null;
    return { label: this.label, stages, error: null, top };
  }
}
