// The worker's document session: positions of problems follow edits, a panel that subscribes
// mid-flight gets every stage, unchanged stages are only named, a burst of edits runs once.
import * as assert from 'node:assert/strict';
import type { FromWorker, TextChange } from '../../../src/protocol/worker';
import { tsKernel } from '../../../src/core/kernel';
import { DocSession } from '../../../src/worker/session';
import { applyStageMessage, type StageView } from '../../helpers/stageView';
import { generateModelText } from '../../../src/model/generate';
import { readModel } from '../../../src/model/read';
import { forward } from '../../../src/core/forward';

const TEXT = `{
  "version": 1,
  "input": [[1, 0, 1.5], [0, 1, 0]],
  "ffn": { "actvation": "relu", "W1": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "b1": [0.1, 0, -0.2],
           "W2": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "b2": [-0.2, 0.1, 0.3] }
}`;

class Harness {
  readonly messages: FromWorker[] = [];
  private waiters: Array<{ test: (m: FromWorker) => boolean; resolve: (m: FromWorker) => void }> = [];
  readonly session: DocSession;
  text = TEXT;
  version = 1;

  constructor(debounceMs = 30, text = TEXT) {
    this.text = text;
    this.session = new DocSession('doc', 'm.ffn.json', text, 1, (m) => {
      this.messages.push(m);
      this.waiters = this.waiters.filter((w) => (w.test(m) ? (w.resolve(m), false) : true));
    }, () => tsKernel, () => debounceMs);
  }

  next(test: (m: FromWorker) => boolean, ms = 5000): Promise<FromWorker> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no such message')), ms);
      this.waiters.push({ test, resolve: (m) => { clearTimeout(timer); resolve(m); } });
    });
  }

  done(version: number): Promise<FromWorker> {
    return this.next((m) => m.type === 'done' && m.version === version);
  }

  /** Replaces the first `find` after `after` (the number itself, so the edit stays inside its row). */
  edit(find: string, by: string, after = ''): void {
    const at = this.text.indexOf(find, after ? this.text.indexOf(after) : 0);
    assert.ok(at >= 0, find);
    const c: TextChange = { offset: at, length: find.length, text: by };
    this.text = this.text.slice(0, at) + by + this.text.slice(at + find.length);
    this.session.change(++this.version, [c], this.text.length);
  }
}

describe('DocSession (the compute worker, per document)', () => {
  it('problem positions follow an edit that moves them (the line index is per version)', async () => {
    const h = new Harness();
    const m1 = await h.next((m) => m.type === 'model' && m.version === 1);
    assert.ok(m1.type === 'model');
    assert.deepEqual(m1.problems.map((p) => [p.code, p.line, p.col]), [['unknown-key', 4, 12]]);
    h.edit('{\n  "version"', '{\n\n\n  "version"'); // two lines more above it
    const m2 = await h.next((m) => m.type === 'model' && m.version === 2);
    assert.ok(m2.type === 'model');
    assert.deepEqual(m2.problems.map((p) => [p.code, p.line, p.col]), [['unknown-key', 6, 12]]);
    h.session.dispose();
  });

  it('after an edit inside a row, unchanged stages are only named (kept), changed ones sent', async () => {
    const h = new Harness();
    h.session.subscribe(true);
    await h.done(1);
    h.messages.length = 0;
    h.edit('-0.2', '-0.5', '"b2"');
    await h.done(2);
    const kept = h.messages.filter((m) => m.type === 'kept').map((m) => (m as { id: string }).id);
    const sent = h.messages.filter((m) => m.type === 'stage').map((m) => (m as { id: string }).id);
    const same = h.messages.filter((m) => m.type === 'same').map((m) => `${(m as { id: string }).id} = ${(m as { of: string }).of}`);
    assert.deepEqual(kept, ['input', 'layers.0.ffn.up', 'layers.0.ffn.act']);
    assert.deepEqual(sent, ['layers.0.ffn.down'], 'the one stage the edit changed, in full');
    assert.deepEqual(same, ['layers.0.out = layers.0.ffn.down', 'output = layers.0.ffn.down'], 'its aliases named, not sent again');
    h.session.dispose();
  });

  it('a panel that subscribes while a run is pending gets every stage in full', async () => {
    const h = new Harness();
    await h.done(1); // computed without a subscriber
    h.edit('-0.2', '-0.5', '"b2"'); // an incremental edit: its run would call most stages unchanged
    h.session.subscribe(true);
    h.messages.length = 0;
    await h.done(2);
    assert.equal(h.messages.filter((m) => m.type === 'kept' || m.type === 'cols').length, 0);
    assert.equal(h.messages.filter((m) => m.type === 'stage' || m.type === 'same').length, 6, 'every stage, in full or named as the numbers of one sent');
    h.session.dispose();
  });

  it('the first change after a quiet spell runs at once; a burst runs once, after the last change', async () => {
    const h = new Harness(80);
    await h.done(1);
    await new Promise((r) => setTimeout(r, 120));
    h.edit('-0.2', '-0.3', '"b2"');
    await h.done(2); // at once (leading edge)
    h.messages.length = 0;
    h.edit('-0.3', '-0.4', '"b2"');
    h.edit('-0.4', '-0.5', '"b2"');
    h.edit('-0.5', '-0.6', '"b2"');
    await h.done(5);
    const runs = h.messages.filter((m) => m.type === 'model').map((m) => m.version);
    assert.deepEqual(runs, [5], 'the burst ran once, for its last version');
    h.session.dispose();
  });

  it('answers queries, and a hover in a file that does not read says so', async () => {
    const h = new Harness();
    await h.done(1);
    const r = h.session.query({ kind: 'hover', offset: h.text.indexOf('0.1') + 1 });
    assert.ok(r?.kind === 'hover' && r.hover);
    assert.match(r.hover.markdown, /bias of neuron 0/);
    h.edit('"W2": [', '"W2": [[,');
    const r2 = h.session.query({ kind: 'hover', offset: h.text.indexOf('0.1') + 1 });
    assert.ok(r2?.kind === 'hover' && r2.hover);
    assert.match(r2.hover.markdown, /does not read as a model/);
    h.session.dispose();
  });
});

describe('DocSession: a stage across a vocabulary wider than the panel draws goes pooled to its width', () => {
  // 40 words, a panel 8 columns wide: head.logits and head.probs go as 8 values of each token
  // (largest |v| of words 0-4, 5-9, …) and the word of each; the chart's top words beside them
  // (d_ff as wide as the vocabulary: the FFN's stages go whole, the plan says their columns are neurons)
  const text = generateModelText({ preset: 'tiny', vocab: 40, dFf: 40, seed: 5 });
  const whole = (): Map<string, Float32Array> => new Map(forward(readModel(text, 'm.ffn.json').file!.model, tsKernel).map((s) => [s.id, s.data]));

  it('head.logits and head.probs: [T][8] values then [T][8] words, each the word of largest |v| of its block; the top words of head.probs after it', async () => {
    const h = new Harness(30, text);
    h.session.want(null, 8);
    h.session.subscribe(true);
    await h.done(1);
    const want = whole();
    const T = 4;
    for (const id of ['head.logits', 'head.probs']) {
      const m = h.messages.find((x) => x.type === 'stage' && x.id === id);
      assert.ok(m?.type === 'stage');
      assert.equal(m.pooled, 8);
      assert.deepEqual(m.shape, [T, 40], 'the stage\'s own shape');
      assert.equal(m.total, 2 * T * 8);
      const got = new Float32Array(m.data);
      const full = want.get(id)!;
      for (let r = 0; r < T; r++) for (let c = 0; c < 8; c++) {
        const w = got[T * 8 + r * 8 + c];
        assert.ok(w >= 5 * c && w < 5 * c + 5, `${id} row ${r} column ${c}: word ${w}`);
        assert.equal(got[r * 8 + c], full[r * 40 + w]);
        for (let k = 5 * c; k < 5 * c + 5; k++) assert.ok(Math.abs(full[r * 40 + k]) <= Math.abs(got[r * 8 + c]));
      }
    }
    const at = h.messages.findIndex((x) => x.type === 'top');
    assert.ok(at > h.messages.findIndex((x) => x.type === 'stage' && x.id === 'head.probs'), 'the top words after head.probs');
    const top = h.messages[at];
    assert.ok(top.type === 'top');
    const probs = want.get('head.probs')!;
    const last = Array.from(probs.subarray(3 * 40, 4 * 40)).map((p, id) => ({ p, id })).sort((a, b) => b.p - a.p || a.id - b.id);
    assert.deepEqual(top.top.ids.slice(3 * top.top.k, 3 * top.top.k + 5), last.slice(0, 5).map((x) => x.id));
    // the other stages whole; the export of a pooled one asks for every number
    const ffn = h.messages.find((x) => x.type === 'stage' && x.id === 'layers.0.ffn.up');
    assert.ok(ffn?.type === 'stage' && ffn.pooled === undefined && ffn.total === T * 40, 'ffn.up [4, 40] whole');
    const all = h.session.query({ kind: 'stage', stageId: 'head.logits' });
    assert.ok(all?.kind === 'stage' && 'data' in all);
    assert.deepEqual(new Float32Array(all.data), want.get('head.logits'));
    assert.equal(all.tokens.length, T);
    h.session.dispose();
  });

  it('a wider panel (want … 64 columns) gets them again, whole (40 words fit)', async () => {
    const h = new Harness(30, text);
    h.session.want(null, 8);
    h.session.subscribe(true);
    await h.done(1);
    h.messages.length = 0;
    h.session.want(null, 64);
    const m = h.messages.find((x) => x.type === 'stage' && x.id === 'head.logits');
    assert.ok(m?.type === 'stage' && m.pooled === undefined && m.total === 4 * 40);
    h.session.dispose();
  });
});

describe('DocSession: an edit that changes a few columns sends those columns', () => {
  it('an edit of a W1 number of a d = 64 model: ffn.up and ffn.act go as one column each; what the panel holds equals a fresh forward', async () => {
    const text = generateModelText({ preset: 'd64', seed: 5 });
    const posted: FromWorker[] = [];
    const s = new DocSession('doc', 'm.ffn.json', text, 1, (m) => posted.push(m), () => tsKernel, () => 0);
    s.subscribe(true);
    s.flush();
    // a number of the first row of W1 (out_in: one neuron's input weights)
    const w1 = text.indexOf('"W1"');
    const m = /-?\d+\.\d+/g;
    m.lastIndex = w1;
    const hit = m.exec(text)!;
    const next = text.slice(0, hit.index) + '9.5' + text.slice(hit.index + hit[0].length);
    s.change(2, [{ offset: hit.index, length: hit[0].length, text: '9.5' }], next.length);
    s.flush();
    const cols = posted.filter((x) => x.type === 'cols' && x.version === 2) as Array<Extract<FromWorker, { type: 'cols' }>>;
    assert.deepEqual(cols.map((c) => `${c.id} ${c.cols.join(',')}`), ['layers.0.ffn.up 0', 'layers.0.ffn.act 0']);
    const view: StageView = new Map();
    for (const x of posted) assert.equal(applyStageMessage(view, x), null);
    const fresh = forward(readModel(next, 'm.ffn.json').file!.model, tsKernel);
    for (const st of fresh) assert.ok(Buffer.from(view.get(st.id)!.data.buffer).equals(Buffer.from(st.data.buffer, st.data.byteOffset, st.data.byteLength)), st.id);
    s.dispose();
  });
});
