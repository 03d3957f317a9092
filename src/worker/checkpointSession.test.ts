// A document that names a checkpoint, through the worker's session: the checkpoint loads (the
// session says so while it does), the stages come, and edits recompute what they change only:
// an `ablate` entry in the last layer leaves every stage before it kept; a token appended to the
// input leaves the earlier rows as they were; every state bit for bit the reference forward of a
// fresh read. Errors are reported at their key, and the panel hears nothing stale.
import * as assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { forward } from '../core/forward';
import { tsKernel } from '../core/kernel';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointResolver } from '../checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../checkpoint/store';
import { readModel } from '../model/read';
import type { FromWorker } from '../protocol/worker';
import { DocSession } from './session';
import { fmt } from './docStages';
import { applyStageMessage, type StageView } from '../../test/helpers/stageView';

const REPO = resolve(__dirname, '../../..');
const FILE = join(REPO, 'samples', 'model.ffn.json');
const TEXT = `{
  "version": 1,
  "checkpoint": "./stories260K",
  "token_ids": [1, 403, 407],
  "ablate": []
}`;

class Harness {
  readonly messages: FromWorker[] = [];
  private waiters: Array<{ test: (m: FromWorker) => boolean; resolve: (m: FromWorker) => void }> = [];
  readonly session: DocSession;
  text = TEXT;
  version = 1;

  /** `says`: the panel says it shows every stage (else it has not said what it shows). */
  constructor(readonly store = new CheckpointStore(nodeFiles), says = true) {
    this.session = new DocSession('doc', FILE, TEXT, 1, (m) => {
      this.messages.push(m);
      this.waiters = this.waiters.filter((w) => (w.test(m) ? (w.resolve(m), false) : true));
    }, () => tsKernel, () => 0, false, store);
    this.session.subscribe(true);
    if (says) this.session.want(null); // (a panel that shows every stage)
  }

  next(test: (m: FromWorker) => boolean, ms = 10000): Promise<FromWorker> {
    const seen = this.messages.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error('no such message')), ms);
      this.waiters.push({ test, resolve: (m) => { clearTimeout(timer); res(m); } });
    });
  }

  replace(find: string, by: string): void {
    const at = this.text.indexOf(find);
    assert.ok(at >= 0, find);
    this.text = this.text.slice(0, at) + by + this.text.slice(at + find.length);
    this.messages.length = 0;
    this.session.change(++this.version, [{ offset: at, length: find.length, text: by }], this.text.length);
  }

  /** The stages of `version` as the panel got them (kept ones from before), against a fresh read + forward. */
  async check(version: number, kept: Map<string, Float32Array>): Promise<{ keptIds: string[]; sentIds: string[] }> {
    await this.next((m) => m.type === 'done' && m.version === version);
    const keptIds: string[] = [];
    const sentIds: string[] = [];
    const view: StageView = new Map([...kept].map(([id, data]) => [id, { shape: [], data }]));
    for (const m of this.messages) {
      if (!('version' in m) || m.version !== version) continue;
      assert.equal(applyStageMessage(view, m), null);
      if ((m.type === 'stage' && m.offset === 0) || m.type === 'cols' || m.type === 'same') sentIds.push(m.id);
      if (m.type === 'kept') keptIds.push(m.id);
    }
    for (const [id, v] of view) kept.set(id, v.data);
    const fresh = await resolveReadNow(readModel(this.text, FILE), FILE, this.store, new CheckpointResolver());
    assert.ok(fresh.file);
    for (const s of forward(fresh.file.model, tsKernel)) {
      const got = kept.get(s.id);
      assert.ok(got, s.id);
      assert.ok(Buffer.from(got.buffer).equals(Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength)), `${s.id} bit for bit (version ${version})`);
    }
    return { keptIds, sentIds };
  }
}

describe('a checkpoint document in the worker', () => {
  it('a panel that has not said what it shows gets what a new panel of a deep model shows, then the layers it asks for', async () => {
    const h = new Harness(undefined, false);
    await h.next((m) => m.type === 'done' && m.version === 1);
    const sent = (): string[] => h.messages.flatMap((m) => ((m.type === 'stage' && m.offset === 0) || m.type === 'same' ? [m.id] : []));
    // stories260K has 5 layers: outside them and each layer's out, nothing inside a layer
    const first = sent();
    assert.deepEqual(first.filter((id) => /^layers\.\d+\./.test(id)), [0, 1, 2, 3, 4].map((i) => `layers.${i}.out`).filter((id) => first.includes(id)));
    assert.ok(first.includes('input') && first.includes('head.probs') && first.includes('layers.4.out'), first.join(' '));
    assert.ok(!first.includes('layers.2.ffn.up'));
    // a layer opened: its stages come at once, from the run already made
    h.messages.length = 0;
    h.session.want([...first, 'layers.2.ffn.up', 'layers.2.attn.weights']);
    assert.deepEqual(sent().sort(), ['layers.2.attn.weights', 'layers.2.ffn.up']);
  });

  it('the words go to the panel once: an edit that keeps the layout sends none, nor do new tokens (the same cards, the same words); a new subscriber gets them again', async () => {
    const h = new Harness();
    const model = async (version: number): Promise<Extract<FromWorker, { type: 'model' }>> => (await h.next((m) => m.type === 'model' && m.version === version && m.summary !== null)) as Extract<FromWorker, { type: 'model' }>;
    const first = await model(1);
    assert.equal(first.summary!.vocab?.length, 512, 'stories260K\'s 512 words, the first time');
    await h.next((m) => m.type === 'done' && m.version === 1);
    h.replace('"ablate": []', '"ablate": ["layers.4.ffn.neuron.17"]');
    const same = await model(2);
    assert.equal(same.summary!.layoutKey, first.summary!.layoutKey);
    assert.equal(same.summary!.vocab, null, 'the same layout: no words');
    await h.next((m) => m.type === 'done' && m.version === 2);
    h.replace('[1, 403, 407]', '[1, 403, 407, 261]');
    const more = await model(3);
    assert.equal(more.summary!.layoutKey, first.summary!.layoutKey, 'a token more: the same cards (their shapes follow T)');
    assert.equal(more.summary!.vocabKey, first.summary!.vocabKey);
    assert.equal(more.summary!.vocab, null, 'the same words: not sent again (a prompt typed)');
    await h.next((m) => m.type === 'done' && m.version === 3);
    h.messages.length = 0;
    h.session.subscribe(true); // (a panel reloaded holds nothing)
    assert.equal((await model(3)).summary!.vocab?.length, 512);
  });

  it('the plan (the summary\'s stages) goes to the panel only when it changed: an ablate, another token or a token more keeps it (its dims that are T follow T), a new subscriber gets it again', async () => {
    const h = new Harness();
    const model = async (version: number): Promise<Extract<FromWorker, { type: 'model' }>> => (await h.next((m) => m.type === 'model' && m.version === version && m.summary !== null)) as Extract<FromWorker, { type: 'model' }>;
    const first = await model(1);
    const stages = first.summary!.stages;
    assert.ok(stages && stages.length > 50 && stages.some((s) => s.id === 'layers.4.out'), 'the whole plan, the first time');
    await h.next((m) => m.type === 'done' && m.version === 1);
    h.replace('"ablate": []', '"ablate": ["layers.4.ffn.neuron.17"]');
    const ablated = await model(2);
    assert.equal(ablated.summary!.planKey, first.summary!.planKey);
    assert.equal(ablated.summary!.stages, null, 'an ablate: the same plan, not sent');
    await h.next((m) => m.type === 'done' && m.version === 2);
    h.replace('[1, 403, 407]', '[1, 403, 408]');
    const other = await model(3);
    assert.equal(other.summary!.layoutKey, first.summary!.layoutKey, 'other tokens: the same cards');
    assert.equal(other.summary!.stages, null, 'other tokens, as many: the same plan, not sent');
    await h.next((m) => m.type === 'done' && m.version === 3);
    h.replace('[1, 403, 408]', '[1, 403, 408, 261]');
    const more = await model(4);
    assert.equal(more.summary!.planKey, first.summary!.planKey);
    assert.equal(more.summary!.stages, null, 'a token more: the same plan but for T, not sent');
    assert.equal(more.summary!.T, 4);
    const up = stages.findIndex((s) => s.id === 'layers.0.ffn.up');
    assert.deepEqual([stages[up].shape, first.summary!.tokenDims?.[up]], [[3, 172], 1], 'layers.0.ffn.up: [T, F], its dim 0 is T');
    await h.next((m) => m.type === 'done' && m.version === 4);
    h.messages.length = 0;
    h.session.subscribe(true); // (a panel reloaded holds nothing)
    const replayed = await model(4);
    assert.equal(replayed.summary!.planKey, more.summary!.planKey);
    assert.deepEqual(replayed.summary!.stages?.find((s) => s.id === 'layers.0.ffn.up')?.shape, [4, 172], 'a new subscriber: the plan whole, its shapes of 4 tokens');
  });

  it('loads the checkpoint once, then recomputes only what an edit changes, bit for bit', async () => {
    const h = new Harness();
    await h.next((m) => m.type === 'loading');
    const panel = new Map<string, Float32Array>();
    await h.check(1, panel);

    // ablate a neuron of the last layer: nothing before its FFN activation is computed again
    h.replace('"ablate": []', '"ablate": ["layers.4.ffn.neuron.17"]');
    const a = await h.check(2, panel);
    assert.ok(a.keptIds.includes('layers.3.out') && a.keptIds.includes('layers.4.ffn.up') && a.keptIds.includes('layers.4.attn.weights'), a.keptIds.join(' '));
    assert.ok(a.sentIds.includes('layers.4.ffn.act') && a.sentIds.includes('head.probs'));
    assert.ok(!a.sentIds.some((id) => /^layers\.[0-3]\./.test(id)), a.sentIds.join(' '));

    // a token appended: every stage again (new shapes), the earlier rows unchanged
    const before = panel.get('layers.2.ffn.up')!;
    h.replace('[1, 403, 407]', '[1, 403, 407, 261]');
    await h.check(3, panel);
    const after = panel.get('layers.2.ffn.up')!;
    assert.equal(after.length, (before.length / 3) * 4);
    assert.ok(Buffer.from(after.buffer, 0, before.byteLength).equals(Buffer.from(before.buffer)), 'the first three rows as before');
    h.session.dispose();
  });

  it('a key that changes the layout (the logit lens on, then off) sends every stage in full: the panel builds its cards anew', async () => {
    const h = new Harness();
    await h.check(1, new Map());
    h.replace('"ablate": []', '"ablate": [], "lens": true');
    const on = await h.check(2, new Map()); // (a panel of another layout holds nothing: a 'kept' fails here)
    assert.equal(on.keptIds.length, 0);
    assert.ok(on.sentIds.includes('layers.2.lens.logits') && on.sentIds.includes('layers.0.out'), on.sentIds.join(' '));
    h.replace(', "lens": true', '');
    const off = await h.check(3, new Map());
    assert.equal(off.keptIds.length, 0);
    assert.ok(!off.sentIds.some((id) => id.includes('.lens.')));
    h.session.dispose();
  });

  it('a kept or changed-columns stage names the version whose numbers it builds on, so a panel that missed that version can tell', async () => {
    const h = new Harness();
    await h.next((m) => m.type === 'done' && m.version === 1);
    const view: StageView = new Map();
    for (const m of h.messages) assert.equal(applyStageMessage(view, m), null);
    // version 2's messages are dropped on the way (stale at the host); version 3 builds on them
    h.replace('"ablate": []', '"ablate": ["layers.2.ffn.neuron.17"]');
    await h.next((m) => m.type === 'done' && m.version === 2);
    h.replace('"layers.2.ffn.neuron.17"', '"layers.2.ffn.neuron.17", "layers.4.ffn.neuron.3"');
    await h.next((m) => m.type === 'done' && m.version === 3);
    const complaints = h.messages.map((m) => applyStageMessage(view, m)).filter((c) => c !== null);
    assert.ok(complaints.includes('kept layers.3.out as sent in version 2, held: 1'), complaints.join('; '));
    // the stages unchanged since version 1 are still good to keep
    assert.ok(h.messages.some((m) => m.type === 'kept' && m.id === 'layers.1.out' && m.base === 1));
    h.session.dispose();
  });

  it('hovers over an ablate entry say what the unit does per token and what the entry changes; a lens above "checkpoint" describes the model', async () => {
    const h = new Harness();
    await h.next((m) => m.type === 'done' && m.version === 1);
    h.replace('"ablate": []', '"ablate": ["layers.4.ffn.neuron.17", "layers.0.attn.head.3"]');
    await h.next((m) => m.type === 'done' && m.version === 2);
    const at = h.text.indexOf('layers.4.ffn.neuron.17') + 3;
    const r = h.session.query({ kind: 'hover', offset: at });
    assert.ok(r && r.kind === 'hover' && r.hover);
    assert.match(r.hover.markdown, /neuron 17 of layer 4's FFN, switched off/);
    assert.match(r.hover.markdown, /\| token \| gate \| up \| act \(after the edit\) \|/);
    assert.match(r.hover.markdown, /Next after #407: `#\d+` [\d.]+ % with this entry/);
    const head = h.session.query({ kind: 'hover', offset: h.text.indexOf('layers.0.attn.head.3') + 3 });
    assert.ok(head && head.kind === 'hover' && head.hover && /head 3 of layer 0's attention/.test(head.hover.markdown) && /attends most to/.test(head.hover.markdown));
    const l = h.session.query({ kind: 'codeLenses' });
    assert.ok(l && l.kind === 'codeLenses');
    assert.match(l.codeLenses[0].title, /^llama · 5 layers · d_model 64 · 8 heads \(4 key\/value\) · d_ff 172 · vocab 512 · 260,032 params · F32$/);
    assert.match(l.codeLenses[1].title, /^3 tokens: #1 #403 #407$/);
    h.session.dispose();
  });

  it('a hover over a weights entry gives the checkpoint\'s number it replaces and, for a neuron\'s input weights, the neuron per token', async () => {
    const h = new Harness();
    await h.next((m) => m.type === 'done' && m.version === 1);
    h.replace('"ablate": []', '"ablate": [], "weights": {"layers.2.ffn.W1[5][0]": 1.5}');
    await h.next((m) => m.type === 'done' && m.version === 2);
    const r = h.session.query({ kind: 'hover', offset: h.text.indexOf('layers.2.ffn.W1[5][0]') + 3 });
    assert.ok(r && r.kind === 'hover' && r.hover);
    // llama's W1 (mlp.up_proj) is stored [d_ff, d_model] = [172, 64]: neuron 5's first input weight at 5 · 64
    const ck = h.store.checkpoint(resolve(REPO, 'samples', 'stories260K'));
    assert.ok(ck.state === 'ready');
    const own = ck.value.params.get('layers.2.ffn.W1')!;
    assert.deepEqual(own.shape, [172, 64]);
    const was = own.data![5 * 64];
    assert.ok(r.hover.markdown.includes(`In the checkpoint: ${fmt(was)}; in this entry: ${fmt(1.5)}`), r.hover.markdown);
    assert.notEqual(was, 1.5);
    assert.match(r.hover.markdown, /Neuron 5 of layer 2's FFN, with the entry:/);
    assert.match(r.hover.markdown, /\| token \| gate \| up \| act/);
    h.session.dispose();
  });

  it('an error of the checkpoint (an id outside the vocabulary, a missing folder) is a problem at its key', async () => {
    const h = new Harness();
    await h.next((m) => m.type === 'done' && m.version === 1);
    h.replace('407]', '4070]');
    const m = await h.next((x) => x.type === 'model' && x.version === 2);
    assert.ok(m.type === 'model');
    assert.equal(m.summary, null);
    assert.deepEqual(m.problems.map((p) => [p.line, p.col, p.path]), [[4, 25, 'token_ids[2]']], 'at the entry');
    assert.match(m.problems[0].message, /4070, outside the vocabulary: ids go from 0 to 511/);
    h.replace('"./stories260K"', '"./nowhere"');
    const n = await h.next((x) => x.type === 'model' && x.version === 3 && x.problems.length > 0);
    assert.ok(n.type === 'model');
    assert.match(n.problems[0].message, /no config\.json in .*nowhere/);
    assert.deepEqual([n.problems[0].line, n.problems[0].col], [3, 17]);
    h.session.dispose();
  });

  it('a hostile checkpoint or input is that document\'s problem, said at its key: another document of the same worker computes on', async () => {
    // stories260K's tensors under a config.json that claims 100,000,000 layers
    const lying = mkdtempSync(join(tmpdir(), 'ffn-lying-'));
    const config = JSON.parse(readFileSync(join(REPO, 'samples', 'stories260K', 'config.json'), 'utf8')) as object;
    writeFileSync(join(lying, 'config.json'), JSON.stringify({ ...config, num_hidden_layers: 1e8 }));
    copyFileSync(join(REPO, 'samples', 'stories260K', 'model.safetensors'), join(lying, 'model.safetensors'));
    const store = new CheckpointStore(nodeFiles);
    const good = new Harness(store);
    const bad = new Harness(store);
    await good.next((m) => m.type === 'done' && m.version === 1);
    await bad.next((m) => m.type === 'done' && m.version === 1);

    bad.replace('"./stories260K"', JSON.stringify(lying));
    const m = await bad.next((x) => x.type === 'model' && x.version === 2 && x.problems.length > 0);
    assert.ok(m.type === 'model');
    assert.deepEqual(m.problems.map((p) => [p.path, p.message]), [['checkpoint', 'config.json says num_hidden_layers 100,000,000, but the tensors hold 5 layers (model.layers.0 … model.layers.4)']]);

    bad.replace(JSON.stringify(lying), '"./stories260K"');
    bad.replace('[1, 403, 407]', `[${Array.from({ length: 5000 }, () => 1).join(', ')}]`);
    const n = await bad.next((x) => x.type === 'model' && x.version === 4 && x.problems.length > 0);
    assert.ok(n.type === 'model');
    assert.deepEqual(n.problems.map((p) => p.path), ['token_ids']);
    assert.equal(n.problems[0].message, 'the input has 5000 tokens; this llama model has positions for 512');

    const kept = new Map<string, Float32Array>();
    await good.check(1, kept);
    good.replace('407]', '407, 432]');
    await good.check(2, kept); // (the new token's rows alone, on the panel's)
    good.session.dispose();
    bad.session.dispose();
  });
});
