import * as assert from 'node:assert/strict';
import { planModel } from '../core/plan';
import { generateModelText } from '../model/generate';
import { readModel } from '../model/read';
import type { FromWorker } from '../protocol/worker';
import { planTokenDims } from './planTokens';
import { appendRows } from '../core/rowBuffer';
import { keptRows, StagePublisher } from './stagePublisher';
import { stageView } from './summary';
import type { Stage } from '../core/stages';

describe('StagePublisher: the summary\'s words and plan, sent only when the panel lacks them', () => {
  const file = readModel(generateModelText({ preset: 'tiny', vocab: 12, seed: 3 }), 'm.ffn.json').file!;
  const plan = planModel(file.model.spec);
  const setup = (): { pub: StagePublisher; model: (v: number) => Extract<FromWorker, { type: 'model' }> } => {
    const posted: FromWorker[] = [];
    const pub = new StagePublisher('doc', (m) => posted.push(m), (s) => s);
    pub.subscribe(true);
    const model = (v: number): Extract<FromWorker, { type: 'model' }> => {
      pub.postModel(v, [], { file, plan });
      const m = posted.at(-1)!;
      assert.ok(m.type === 'model' && m.summary);
      return m;
    };
    return { pub, model };
  };

  it('the plan goes once; a run stopped before its messages could arrive (forget) sends it again; a new subscriber gets it again', () => {
    const { pub, model } = setup();
    const first = model(1).summary!;
    assert.equal(first.stages?.length, plan.length);
    assert.deepEqual(first.vocab?.length, 12);
    const second = model(2).summary!;
    assert.equal(second.stages, null);
    assert.equal(second.vocab, null);
    assert.equal(second.planKey, first.planKey);
    pub.forget(2); // (version 2's messages went nowhere: what it carried is not held)
    assert.equal(model(3).summary!.stages, null, 'version 2 carried no plan: the panel holds version 1\'s');
    pub.forget(1);
    assert.equal(model(4).summary!.stages?.length, plan.length, 'version 1 carried it and was forgotten: sent again');
    pub.subscribe(true);
    assert.equal(model(5).summary!.stages?.length, plan.length);
  });

  it('an equal plan made anew (another spec object, as a full read makes) keeps its key; another shape changes it', () => {
    const { model, pub } = setup();
    const k = model(1).summary!.planKey;
    pub.postModel(2, [], { file, plan: planModel(file.model.spec) });
    const other = readModel(generateModelText({ preset: 'tiny', vocab: 12, seed: 3, dFf: 24 }), 'm.ffn.json').file!;
    assert.equal(model(3).summary!.planKey, k);
    pub.postModel(4, [], { file: other, plan: planModel(other.model.spec) });
    assert.notEqual(model(5).summary!.planKey, k, 'back to the first plan after another: a new key');
  });

  it('another token count keeps the plan\'s key (its dims that are T follow the summary\'s T): the plan is not sent again', () => {
    const posted: FromWorker[] = [];
    const pub = new StagePublisher('doc', (m) => posted.push(m), (s) => s);
    pub.subscribe(true);
    const summaryOf = (seq: number, v: number) => {
      const f = readModel(generateModelText({ preset: 'tiny', vocab: 12, seed: 3, seq }), 'm.ffn.json').file!;
      pub.postModel(v, [], { file: f, plan: planModel(f.model.spec) });
      const m = posted.at(-1)!;
      assert.ok(m.type === 'model' && m.summary);
      return { s: m.summary, T: f.model.spec.T, plan: planModel(f.model.spec) };
    };
    const a = summaryOf(4, 1);
    assert.equal(a.s.stages?.length, a.plan.length);
    assert.ok(a.s.tokenDims?.some((m) => m !== 0), 'some dims are T');
    const b = summaryOf(3, 2);
    assert.notEqual(b.T, a.T);
    assert.equal(b.s.planKey, a.s.planKey);
    assert.equal(b.s.stages, null, 'the plan is not sent again');
    assert.equal(b.s.tokenDims, null);
    assert.equal(b.s.layoutKey, a.s.layoutKey, 'only T changed: the panel keeps its cards (their shapes follow T)');
  });

  it('the dims that are T, kept from the plan before when only T changed, are those planning the model at T + 1 finds', () => {
    const posted: FromWorker[] = [];
    const pub = new StagePublisher('doc', (m) => posted.push(m), (s) => s);
    let v = 0;
    let key = -1;
    for (const [seq, dFf] of [[4, 16], [3, 16], [5, 16], [9, 16], [2, 16], [2, 24], [7, 24]]) {
      const f = readModel(generateModelText({ preset: 'tiny', vocab: 12, seed: 3, seq, dFf }), 'm.ffn.json').file!;
      const p = planModel(f.model.spec);
      pub.postModel(++v, [], { file: f, plan: p });
      const k = (posted.at(-1) as Extract<FromWorker, { type: 'model' }>).summary!.planKey;
      if (key >= 0) assert.equal(k === key, dFf === 16 || seq === 7, `T ${seq}, d_ff ${dFf}: the key follows the plan but for T`);
      key = k;
      pub.subscribe(true); // (the next summary carries the plan whole, with its dims)
      pub.postModel(++v, [], { file: f, plan: p });
      const m = posted.at(-1) as Extract<FromWorker, { type: 'model' }>;
      assert.deepEqual(m.summary!.tokenDims, planTokenDims(p.map(stageView), f.model.spec), `T ${seq}, d_ff ${dFf}`);
    }
  });

});

describe('StagePublisher: the rows after those the panel holds (a prompt typed)', () => {
  const stage = (id: string, rows: number, width: number, f: (r: number, c: number) => number) =>
    ({ id, shape: [rows, width], data: Float32Array.from({ length: rows * width }, (_, i) => f(Math.floor(i / width), i % width)) }) as unknown as Parameters<StagePublisher['postStage']>[0];

  it('a token more, or the last one replaced: a rows message from the first row that differs; the rest bit for bit', () => {
    const posted: FromWorker[] = [];
    const pub = new StagePublisher('doc', (m) => posted.push(m), (s) => s);
    pub.subscribe(true);
    pub.want(null);
    const f = (r: number, c: number): number => Math.sin(r * 7 + c);
    pub.postStage(stage('layers.0.out', 3, 5, f), 1, false);
    assert.equal(posted.at(-1)!.type, 'stage');
    pub.postStage(stage('layers.0.out', 4, 5, f), 2, false);
    const m = posted.at(-1)!;
    assert.ok(m.type === 'rows');
    assert.deepEqual([m.from, m.base, m.shape], [3, 1, [4, 5]]);
    assert.deepEqual([...new Float32Array(m.data)], Array.from({ length: 5 }, (_, c) => Math.fround(f(3, c))));
    pub.postStage(stage('layers.0.out', 4, 5, (r, c) => (r === 3 ? -f(r, c) : f(r, c))), 3, false);
    const last = posted.at(-1)!;
    assert.ok(last.type === 'rows' && last.from === 3 && last.base === 2, 'the last token replaced: its row alone');
    pub.postStage(stage('layers.0.out', 4, 5, (r, c) => f(r, c) + 1), 4, false);
    assert.equal(posted.at(-1)!.type, 'stage', 'the first row changed: the stage whole');
  });

  it('keptRows: leading rows equal bit for bit (−0 is not 0), 0 when none or when every row is', () => {
    const a = Float32Array.from([1, 2, 3, 4, 5, 6]);
    assert.equal(keptRows(a, Float32Array.from([1, 2, 3, 4, 9, 9]), 2), 2);
    assert.equal(keptRows(a, Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), 2), 3);
    assert.equal(keptRows(a, Float32Array.from([1, 2, 3, 4, 5, 6]), 2), 0, 'all equal: kept or whole, not rows');
    assert.equal(keptRows(Float32Array.from([0, 1]), Float32Array.from([-0, 1, 2, 3]), 2), 0);
    assert.equal(keptRows(a, Float32Array.from([1, 2]), 2), 0, 'fewer rows, all equal: whole');
  });

  it('keptRows: a token appended in place (rowBuffer.ts) keeps the held rows without reading them; a copy is compared', () => {
    const held = appendRows(Float32Array.from([1, 2, 3, 4]), 2, Float32Array.from([5, 6]), 3, 2);
    const now = appendRows(held, 3, Float32Array.from([7, 8]), 4, 2);
    assert.equal(now.buffer, held.buffer, 'in place');
    assert.equal(keptRows(held, now, 2), 3);
    assert.equal(keptRows(now, now.subarray(0, 6), 2), 0, 'fewer rows: whole');
    const other = appendRows(now.subarray(0, 4), 2, Float32Array.from([9, 9, 7, 8]), 4, 2); // (its row 2 replaced: a buffer of its own)
    assert.notEqual(other.buffer, now.buffer);
    assert.equal(keptRows(held, other, 2), 2, 'compared bit for bit');
  });
});

describe('StagePublisher: a stopped run forgets what it sent, not what an earlier run of the same version did', () => {
  const file = readModel(generateModelText({ preset: 'tiny', vocab: 12, seed: 3 }), 'm.ffn.json').file!;
  const plan = planModel(file.model.spec);
  const stage = (id: string, data: Float32Array, kept?: true): Stage => ({ id, shape: [2, 2], data, ...(kept ? { kept } : {}) });

  it('a run of version 1 again (a checkpoint loaded, a panel subscribed) that only names kept stages, stopped: version 2 still names them kept', () => {
    const posted: FromWorker[] = [];
    const pub = new StagePublisher('doc', (m) => posted.push(m), (s) => s);
    pub.subscribe(true);
    const a = new Float32Array([1, 2, 3, 4]);
    const b = new Float32Array([5, 6, 7, 8]);
    // run A of version 1: both whole
    pub.postModel(1, [], { file, plan });
    pub.postStage(stage('x', a), 1, false);
    pub.postStage(stage('y', b), 1, false);
    // run B of version 1: x kept, then stopped before y
    const B = pub.postModel(1, [], { file, plan });
    pub.postStage(stage('x', a, true), 1, false);
    pub.forget(B);
    // version 2: x and y unchanged (kept), z new
    const from = posted.length;
    pub.postModel(2, [], { file, plan });
    pub.postStage(stage('x', a, true), 2, false);
    pub.postStage(stage('y', b, true), 2, false);
    const kinds = posted.slice(from).filter((m) => m.type !== 'model').map((m) => `${(m as { id: string }).id}:${m.type}`);
    assert.deepEqual(kinds, ['x:kept', 'y:kept'], 'run A\'s stages are still the panel\'s');
    // (and what B sent whole is forgotten: a stopped run's whole stage goes again)
    const c = new Float32Array([9, 9, 9, 9]);
    const C = pub.postModel(3, [], { file, plan });
    pub.postStage(stage('x', c), 3, false);
    pub.forget(C);
    pub.postModel(4, [], { file, plan });
    const at = posted.length;
    pub.postStage(stage('x', c, true), 4, false);
    assert.equal(posted[at].type, 'stage', 'the stopped run\'s x goes whole');
  });
});
