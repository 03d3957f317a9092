// The forward pass the editor runs on every edit: the block graph (plan.ts) walked as the
// reference forward walks it (model.ts), but keeping what it computed, so that after an edit a
// stage is computed again only when something it reads changed: an input stage, or a param. What
// changed is known exactly (which rows of a matrix, which elements of a vector, which columns of
// a stage), and the ops that can recompute only that part do (linear.ts, activation.ts,
// residual.ts, attentionContext.ts); the others recompute in full. Weights are packed once for
// the kernel and kept in step with their edits (one packed column per edited out_in row).
// Tests check every incremental result against a full computation, bit for bit.

import type { StageContext, StageDef } from './graph';
import type { MatmulKernel, Packed } from './kernel';
import { bLayoutOf, packParam, type Model } from './model';
import { rowsAreOutputs, weightsOf, type Cols, type Param, type ParamChanges } from './params';
import { appendRows, withRoom } from './rowBuffer';
import { planModel } from './plan';
import type { ModelSpec } from './spec';
import type { Stage, StageSink } from './stages';
import { checkSize } from './tensor';

interface Computed {
  /** op, shape and arguments: a stage whose key changed is computed afresh. */
  readonly key: string;
  readonly op: string;
  readonly data: Float32Array;
  readonly kept: Map<string, Float32Array>;
  /** The model it is of, the edits in place made before it (see Engine.epoch), the walk that computed it. */
  readonly model: Model;
  readonly epoch: number;
  readonly walk: number;
  /** The numbers of its input stages it was computed from (def.inputs' order). */
  readonly inputs: readonly Float32Array[];
}

/** The first T0 token rows of a stage are those of a stage of `oldT` tokens computed before (see Engine.keptRows). */
interface KeptRows { readonly T0: number; readonly oldT: number }

interface PackEntry { packed: Packed; K: number; N: number }

const keyOf = (d: StageDef): string => `${d.op.name}|${d.shape.join(',')}|${JSON.stringify(d.args)}`;

export class Engine {
  private model: Model | null = null;
  private spec: ModelSpec | null = null;
  private plan: readonly StageDef[] = [];
  private readonly computed = new Map<string, Computed>();
  /** By the Param object: a tied head and its embedding share one. */
  private readonly packs = new Map<Param, PackEntry>();
  /** The stages the walk under way has computed (null: none under way). */
  private unfinished: Set<string> | null = null;
  /** The last walk was stopped before its end: not every stage of `model` is held. */
  private partial = false;
  /**
   * Counts the runs given edits in place (a param changed without becoming another object): a
   * stage of an older model than the last run's (left by a stopped run) keeps rows only within one.
   */
  private epoch = 0;
  /** Walks begun: a stage the last walk did not compute (it stopped before) is of an older one. */
  private walks = 0;

  constructor(readonly kernel: MatmulKernel) {}

  dispose(): void {
    for (const e of this.packs.values()) this.kernel.release(e.packed);
    this.packs.clear();
    this.computed.clear();
    this.unfinished = null;
    this.partial = false;
    this.model = null;
    this.spec = null;
  }

  /**
   * Computes `model`'s stages. `edits`: params changed in place since the last run (a row typed
   * over in the text); params that are other objects than in the last run's model count as changed
   * in full. Each stage goes to `emit` as it is computed, marked `kept` when its numbers are the
   * very ones of the last run.
   */
  run(model: Model, edits: ParamChanges = new Map(), emit?: StageSink): Stage[] {
    const walk = this.walk(model, edits, emit);
    for (;;) {
      const r = walk.next();
      if (r.done) return r.value;
    }
  }

  /**
   * The same run a stage at a time: it yields after each stage, so that its caller can read newer
   * edits between two stages and stop it there (`return()`). A walk stopped, or left unfinished
   * when the next one begins, leaves the engine as of its model for the stages it computed; the
   * stages it did not reach hold an older model's numbers: the next run keeps one whose op, param
   * objects and input numbers are those it was computed from, with no edit in place since
   * (unchangedSince), and computes the others afresh, but for their rows of the token ids both
   * keep when no param changed since (a prompt typed: each key stops the run before). So the
   * next run takes only the edits made after this one's (its own were applied when it began).
   */
  *walk(model: Model, edits: ParamChanges = new Map(), emit?: StageSink): Generator<string, Stage[], void> {
    this.abandon();
    if (edits.size) this.epoch++;
    const lastWalk = this.walks++;
    const rowsOf = new Map<Model, KeptRows>();
    const keptOf = (from: Model): KeptRows => {
      let r = rowsOf.get(from);
      if (!r) rowsOf.set(from, (r = this.keptRows(from, model, edits)));
      return r;
    };
    const changes = this.paramChanges(model, edits);
    this.model = model;
    this.planOf(model.spec);
    const plan = this.plan;
    const stageChanged = new Map<string, Cols>();
    const out = new Map<string, Float32Array>();
    const stages: Stage[] = [];
    const reached = new Set<string>();
    this.unfinished = reached;
    try {
      for (const def of plan) {
        if (this.unfinished !== reached) throw new Error('engine: another run began while this one was under way');
        const s = this.stage(model, lastWalk, keptOf, plan, def, out, stageChanged, changes);
        reached.add(def.id);
        stages.push(s);
        emit?.(s);
        yield def.id;
      }
    } finally {
      // finished (every stage reached: the stages of an older plan are dropped) or stopped
      if (this.unfinished === reached) this.abandon(reached.size < plan.length);
    }
    return stages;
  }

  /** Whether a walk is under way (begun, neither finished nor stopped). */
  get walking(): boolean {
    return this.unfinished !== null;
  }

  /**
   * A walk ended: the stages of another plan are forgotten. Left unfinished, the stages it did not
   * reach stay as an older model's (see walk()): only their rows of the token ids kept are used.
   */
  private abandon(partial = true): void {
    const reached = this.unfinished;
    if (!reached) return;
    this.unfinished = null;
    const planned = new Set(this.plan.map((d) => d.id));
    for (const id of [...this.computed.keys()]) if (!reached.has(id) && !(partial && planned.has(id))) this.computed.delete(id);
    this.partial = partial;
  }

  /** One stage of a run: as the last run's if nothing it reads changed, else computed (in part if it can). */
  private stage(model: Model, lastWalk: number, keptOf: (from: Model) => KeptRows, plan: readonly StageDef[], def: StageDef, out: Map<string, Float32Array>, stageChanged: Map<string, Cols>, changes: Map<string, Cols>): Stage {
    const key = keyOf(def);
    const found = this.computed.get(def.id);
    // (a stage an older run than the last computed, the last stopped before it: its rows alone, if the edits are the same)
    const prev = found?.walk === lastWalk ? found : undefined;
    const { T0, oldT } = found && (prev || found.epoch === this.epoch) ? keptOf(found.model) : { T0: 0, oldT: 0 };
    const same = prev !== undefined && prev.key === key;
    const untouched = same && def.inputs.every((i) => stageChanged.get(i) === null) && def.params.every((p) => (changes.get(p) ?? null) === null);
    // (a stage a stopped walk did not reach: still its model's if nothing it reads changed since)
    const older = !prev && found !== undefined && this.unchangedSince(found, def, key, model, out);
    let data: Float32Array;
    let changed: Cols;
    let kept: Map<string, Float32Array>;
    if (untouched || older) {
      data = found!.data;
      changed = null;
      kept = found!.kept;
    } else if (T0 > 0 && found !== undefined && found.op === def.op.name && def.op.append) {
      // the first T0 tokens kept (the rest appended or replaced): their rows are the last run's
      kept = new Map();
      data = this.append(model, plan, def, T0, T0 === oldT ? found.data : firstRows(def, found.data, oldT, T0), out);
      changed = 'all';
    } else {
      kept = new Map(same ? prev.kept : []);
      const ctx = this.context(model, same ? prev.data : null, !same, kept, out, stageChanged, changes, true);
      ({ data, changed } = def.op.run(ctx, def.args));
      checkSize(`stage ${def.id}`, def.shape, data);
      if (!same) changed = 'all';
    }
    this.computed.set(def.id, { key, op: def.op.name, data, kept, model, epoch: this.epoch, walk: this.walks, inputs: def.inputs.map((i) => out.get(i)!) });
    out.set(def.id, data);
    stageChanged.set(def.id, changed);
    return changed === null ? { id: def.id, shape: def.shape as number[], data, kept: true }
      : changed !== 'all' && prev && prev.data !== data ? { id: def.id, shape: def.shape as number[], data, cols: changed, base: prev.data }
        : { id: def.id, shape: def.shape as number[], data };
  }

  /**
   * Whether `found`, computed by a walk before the last (which stopped before it), is what `def`
   * computes now: no edit in place since (the epoch), the same op and shape, the very param
   * objects, and the very numbers of its inputs it was computed from (a typed burst stops each
   * run early; the last run would otherwise compute everything after the stop afresh).
   */
  private unchangedSince(found: Computed, def: StageDef, key: string, model: Model, out: Map<string, Float32Array>): boolean {
    return found.epoch === this.epoch && found.key === key
      && def.params.every((p) => found.model.params.get(p) === model.params.get(p))
      && def.inputs.every((i, k) => out.get(i) === found.inputs[k]);
  }

  /** The model of the last run (what patched() works from). */
  get current(): Model | null {
    return this.model;
  }

  /**
   * Every stage of another model (another input: the induction test's sequence), computed in full
   * with this engine's packed weights, leaving its last run as it was for the next edit.
   */
  forwardOnce(model: Model): Stage[] {
    const out = new Map<string, Float32Array>();
    const stages: Stage[] = [];
    for (const def of planModel(model.spec)) {
      const { data } = def.op.run(this.context(model, null, true, new Map(), out, new Map(), new Map()), def.args);
      checkSize(`stage ${def.id}`, def.shape, data);
      out.set(def.id, data);
      stages.push({ id: def.id, shape: def.shape as number[], data });
    }
    return stages;
  }

  /**
   * Activation patching: stage `want` of the last run's model (the last run must be of `model`)
   * had stage `patch.id` held `patch.data` instead, everything that reads it computed again and
   * nothing else; the engine's own state is left as it was. In a causal model, rows before
   * `patch.firstRow` cannot change (nothing reads a later token), so only the rows from there are
   * computed, as for appended tokens; `lastRowOnly` computes only the last row of `want` (a
   * row-wise stage: the logits a patching metric reads).
   */
  patched(model: Model, patch: { readonly id: string; readonly data: Float32Array; readonly firstRow: number }, want: string, lastRowOnly = false): Float32Array {
    if (model !== this.model || this.partial || this.unfinished) throw new Error('patched(): run this model first (to its end)');
    const plan = this.planOf(model.spec);
    const at = plan.findIndex((d) => d.id === patch.id);
    if (at < 0) throw new Error(`patched(): no stage ${patch.id}`);
    const { T } = model.spec;
    const causal = model.spec.layers.every((l) => !l.attention || l.attention.causal);
    const first = causal ? Math.max(0, Math.min(patch.firstRow, T)) : 0;
    const out = new Map<string, Float32Array>();
    for (const [id, c] of this.computed) out.set(id, c.data);
    out.set(patch.id, patch.data);
    if (patch.id === want) return patch.data;
    const dirty = new Set([patch.id]);
    for (const def of plan.slice(at + 1)) {
      if (!def.inputs.some((i) => dirty.has(i))) continue;
      const T0 = def.id === want && lastRowOnly && def.op.append === 'rows' ? Math.max(first, T - 1) : first;
      const base = this.computed.get(def.id)!.data;
      const data = T0 > 0 && def.op.append
        ? this.append(model, plan, def, T0, firstRows(def, base, T, T0), out)
        : def.op.run(this.context(model, null, true, new Map(), out, new Map(), new Map()), def.args).data;
      out.set(def.id, data);
      dirty.add(def.id);
      if (def.id === want) return data;
    }
    return out.get(want)!; // (want does not read the patched stage)
  }

  /**
   * T0 > 0 when `model` is the last run's with its first T0 token ids kept and the rest replaced or
   * appended (a prompt typed at its end: a token more, or the last one another), in a causal
   * model: the same params (the same objects, no edits), the same spec but for T and the token ids.
   * Then every stage's first T0 rows are the last run's (nothing reads a later token: every
   * attention is causal), and only the rows from T0 are computed. At least the last row is
   * computed (T0 < T). 0 otherwise. `oldT`: the last run's T, whose stages hold those rows.
   */
  private keptRows(old: Model | null, model: Model, edits: ParamChanges): KeptRows {
    const none = { T0: 0, oldT: 0 };
    if (!old || old === model || edits.size) return none;
    const a = old.spec;
    const b = model.spec;
    if (a.embedding.kind !== 'tokens' || b.embedding.kind !== 'tokens') return none;
    if (!b.layers.every((l) => !l.attention || l.attention.causal)) return none;
    const was = a.embedding.ids;
    const ids = b.embedding.ids;
    let T0 = 0;
    while (T0 < was.length && T0 < ids.length - 1 && ids[T0] === was[T0]) T0++;
    if (T0 === 0) return none;
    const rest = (s: ModelSpec): string => JSON.stringify({ ...s, T: 0, embedding: { ...s.embedding, ids: [] }, eps: [...s.eps] });
    if (rest(a) !== rest(b)) return none;
    if (old.params.size !== model.params.size) return none;
    for (const [id, p] of model.params) if (old.params.get(id) !== p) return none;
    return { T0, oldT: a.T };
  }

  /** A stage of T rows whose first T0 are `previous`'s (see StageOp.append). */
  private append(model: Model, plan: readonly StageDef[], def: StageDef, T0: number, previous: Float32Array, out: Map<string, Float32Array>): Float32Array {
    const how = def.op.append!;
    const { T } = model.spec;
    const ctx = this.context(model, previous, true, new Map(), out, new Map(), new Map());
    if (how !== 'rows') return how(ctx, def.args, T0, previous);
    // row by row: the op on rows T0… of each [T, …] input, as if the input had T − T0 tokens
    const width = (id: string): number => {
      const shape = plan.find((d) => d.id === id)!.shape;
      return shape.slice(1).reduce((x, y) => x * y, 1);
    };
    const rows: StageContext = { ...ctx, T: T - T0, previous: null, kept: () => null, keep: () => undefined, input: (id) => out.get(id)!.subarray(T0 * width(id)), rows: (w) => new Float32Array((T - T0) * w) };
    const fresh = def.op.run(rows, def.args).data;
    // (the rows kept are not copied when the new go after them in place: rowBuffer.ts)
    return appendRows(previous, T0, fresh, T, def.shape.slice(1).reduce((x, y) => x * y, 1));
  }

  /** The stages of a model of this spec (planned once per spec). */
  planOf(spec: ModelSpec): readonly StageDef[] {
    if (spec !== this.spec) {
      this.plan = planModel(spec);
      this.spec = spec;
    }
    return this.plan;
  }

  /** Edits, plus every param that is not the same object as in the last model; packs kept in step. */
  private paramChanges(model: Model, edits: ParamChanges): Map<string, Cols> {
    const changes = new Map(edits);
    const old = this.model;
    if (old !== model) {
      if (old) {
        for (const [id, p] of model.params) if (old.params.get(id) !== p) changes.set(id, 'all');
        for (const id of old.params.keys()) if (!model.params.has(id)) changes.set(id, 'all');
      }
      // packs of params the new model no longer holds are freed
      const live = new Set(model.params.values());
      for (const [p, e] of this.packs) {
        if (live.has(p)) continue;
        this.kernel.release(e.packed);
        this.packs.delete(p);
      }
    }
    // a param edited in place: its packed copy follows (an out_in row is one packed column)
    for (const [id, c] of edits) {
      const p = model.params.get(id);
      const e = p && this.packs.get(p);
      if (!p || !e || c === null) continue;
      if (c !== 'all' && rowsAreOutputs(p)) this.kernel.repackColumns(e.packed, weightsOf(p), bLayoutOf(p), [...c]);
      else {
        this.kernel.release(e.packed);
        this.packs.delete(p);
      }
    }
    return changes;
  }

  // room: the run's row-by-row stages with rows to spare for a token appended next (not for
  // patched runs, whose stages are read once)
  private context(model: Model, previous: Float32Array | null, full: boolean, kept: Map<string, Float32Array>, out: Map<string, Float32Array>, stageChanged: Map<string, Cols>, changes: Map<string, Cols>, room = false): StageContext {
    const { T } = model.spec;
    return {
      T: model.spec.T,
      kernel: this.kernel,
      full,
      input: (id) => out.get(id)!,
      changed: (id) => (full || !stageChanged.has(id) ? 'all' : stageChanged.get(id)!),
      param: (id) => model.params.get(id) ?? null,
      paramChanged: (id) => (full ? 'all' : changes.get(id) ?? null),
      previous,
      kept: (name) => kept.get(name) ?? null,
      keep: (name, data) => void (data === null ? kept.delete(name) : kept.set(name, data)),
      packed: (id, K, N) => this.packed(model, id, K, N),
      rows: (w) => (room ? withRoom(T, w) : new Float32Array(T * w)),
    };
  }

  private packed(model: Model, id: string, K: number, N: number): Packed {
    const p = model.params.get(id);
    if (!p) throw new Error(`no param ${id} to pack`);
    let e = this.packs.get(p);
    if (e && (e.K !== K || e.N !== N)) {
      this.kernel.release(e.packed);
      e = undefined;
    }
    if (!e) this.packs.set(p, (e = { packed: packParam(this.kernel, p, K, N), K, N }));
    return e.packed;
  }
}

// The first T0 tokens of a stage of T (what StageOp.append takes as `previous`): rows of a [T, …]
// stage, each head's rows of a per-head [H, T, …] one, as wide as they were (attention's [H, T, T]
// rows are T keys wide: the op reads the first T0 of them).
function firstRows(def: StageDef, data: Float32Array, T: number, T0: number): Float32Array {
  if (!def.perHead || def.shape.length !== 3) return data.subarray(0, (data.length / T) * T0);
  const H = def.shape[0];
  const W = data.length / (H * T);
  const out = new Float32Array(H * T0 * W);
  for (let h = 0; h < H; h++) out.set(data.subarray(h * T * W, (h * T + T0) * W), h * T0 * W);
  return out;
}
