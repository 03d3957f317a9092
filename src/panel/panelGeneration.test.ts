import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { PanelSource } from '../editor/panelSource';
import type { ToWebview } from '../protocol/panel';
import type { ToWorker } from '../protocol/worker';
import type { GenerationMessage } from '../protocol/generation';
import { PanelGeneration } from './panelGeneration';

const ASKS = '{"checkpoint": "./m", "token_ids": [1, 2], "generate": {"tokens": 3}}';
const PLAIN = '{"checkpoint": "./m", "token_ids": [1, 2]}';

/** A document of this text at this version (what PanelGeneration reads of it). */
function fakeSource(state: { text: string; version: number }): PanelSource {
  const doc = {
    get version() { return state.version; },
    getText: () => state.text,
    lineCount: 1,
    lineAt: () => ({ range: { end: 0 } }),
    offsetAt: () => state.text.length,
  } as unknown as vscode.TextDocument;
  return { uri: {} as vscode.Uri, key: 'file:///m.ffn.json', get version() { return state.version; }, document: doc };
}

function setup(text: string) {
  const state = { text, version: 1 };
  const sent: ToWorker[] = [];
  const posted: ToWebview[] = [];
  const said: string[] = [];
  const branched: number[][] = [];
  const src = fakeSource(state);
  const g = new PanelGeneration({ send: (m) => sent.push(m), source: () => src, post: (m) => posted.push(m), say: (t) => said.push(t), branch: (_d, ids) => branched.push([...ids]) });
  return { state, sent, posted, said, branched, g };
}

const token = (version: number): GenerationMessage => ({ type: 'generation', event: 'token', doc: 'd', version, token: { index: 0, id: 5, text: 'x', top: [] }, done: 1, total: 3 });

describe('panel/panelGeneration: a panel\'s generation on the host', () => {
  it('a rendered file with "generate" turns generation on once; without it, never', () => {
    const t = setup(ASKS);
    t.g.rendered(1);
    t.g.rendered(1);
    assert.deepEqual(t.sent, [{ type: 'generate', doc: 'file:///m.ffn.json', on: true }]);
    assert.equal(t.g.active, true);
    const p = setup(PLAIN);
    p.g.rendered(1);
    assert.deepEqual(p.sent, []);
  });

  it('a render of an older version asks nothing', () => {
    const t = setup(ASKS);
    t.state.version = 2;
    t.g.rendered(1);
    assert.deepEqual(t.sent, []);
  });

  it('the key removed: off to the worker and to the webview', () => {
    const t = setup(ASKS);
    t.g.rendered(1);
    t.state.text = PLAIN;
    t.state.version = 2;
    t.g.rendered(2);
    assert.deepEqual(t.sent.map((m) => m.type === 'generate' && m.on), [true, false]);
    assert.deepEqual(t.posted, [{ type: 'generation', event: 'off' }]);
  });

  it('a message of an older text is dropped; of the current text (or -1: it could not begin) passed on', () => {
    const t = setup(ASKS);
    t.state.version = 3;
    t.g.fromWorker(token(2));
    t.g.fromWorker(token(3));
    t.g.fromWorker({ type: 'generation', event: 'end', doc: 'd', version: -1, reason: 'error', message: 'why', note: null, text: '', ms: 0 });
    assert.equal(t.g.stats.dropped, 1);
    assert.equal(t.g.stats.passed, 2);
    assert.deepEqual(t.posted.map((m) => m.type === 'generation' && 'version' in m && m.version), [3, -1]);
    assert.equal(t.g.stats.done, 1);
  });

  it('Cancel stops it until the file is edited; the edit\'s render starts it again', () => {
    const t = setup(ASKS);
    t.g.rendered(1);
    t.g.cancel();
    t.g.rendered(1);
    assert.deepEqual(t.sent.map((m) => m.type === 'generate' && m.on), [true, false]);
    t.state.version = 2;
    t.g.rendered(2);
    assert.deepEqual(t.sent.map((m) => m.type === 'generate' && m.on), [true, false, true]);
  });

  it('the webview (or the worker) starting again: generation asked for again after the replay\'s render', () => {
    const t = setup(ASKS);
    t.g.rendered(1);
    t.g.resubscribe();
    t.g.rendered(1);
    assert.deepEqual(t.sent.map((m) => m.type === 'generate' && m.on), [true, true]);
  });

  it('a branch of the current text is written; of an older one, said and not written', () => {
    const t = setup(ASKS);
    t.g.fromWebview({ type: 'branch', version: 1, ids: [7, 8], texts: ['a', 'b'] });
    assert.deepEqual(t.branched, [[7, 8]]);
    t.state.version = 2;
    t.g.fromWebview({ type: 'branch', version: 1, ids: [9], texts: ['c'] });
    assert.deepEqual(t.branched, [[7, 8]]);
    assert.match(t.said[0], /changed meanwhile/);
  });

  it('leaving the document turns the worker\'s generation for it off', () => {
    const t = setup(ASKS);
    t.g.rendered(1);
    t.g.leave();
    assert.deepEqual(t.sent.map((m) => m.type === 'generate' && m.on), [true, false]);
    assert.equal(t.g.active, false);
  });
});
