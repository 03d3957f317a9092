// What the header says while a render comes (webview/renderProgress.ts): nothing for a fast
// render; after PROGRESS_AFTER_MS without it complete, "computing…" or "n of N stages…", the count
// following each stage, and nothing once it is complete. The wait is run by hand: no test waits.
import * as assert from 'node:assert/strict';
import { PROGRESS_AFTER_MS, RenderProgress, type Later } from '../../../webview/renderProgress';

/** A RenderProgress whose wait is held, to be run (`fire`) or seen stopped. */
function rig() {
  const said: Array<string | null> = [];
  let received: number | null = 0;
  const waits: Array<{ fn: () => void; ms: number; stopped: boolean }> = [];
  const after: Later = (fn, ms) => {
    const w = { fn, ms, stopped: false };
    waits.push(w);
    return () => { w.stopped = true; };
  };
  const p = new RenderProgress({ progress: (t) => said.push(t) }, () => received, after);
  return {
    p, said, waits,
    set received(n: number | null) { received = n; },
    /** The latest wait runs, as its timer would (only if not stopped). */
    fire(): void {
      const w = waits[waits.length - 1];
      if (!w.stopped) w.fn();
    },
  };
}

describe('the header\'s render progress', () => {
  it('a render complete before the wait ends never shows a count: the wait is stopped', () => {
    const r = rig();
    r.p.start(() => 12);
    assert.equal(r.waits.length, 1);
    assert.equal(r.waits[0].ms, PROGRESS_AFTER_MS);
    r.received = 12;
    r.p.tick();
    r.p.end();
    assert.equal(r.waits[0].stopped, true);
    r.fire();
    assert.deepEqual(r.said, [null, null], 'cleared at the start and the end, nothing between');
  });

  it('after the wait: "computing…" while no stage came, then "n of N stages…" as they come, then nothing', () => {
    const r = rig();
    r.p.start(() => 400);
    r.fire();
    assert.equal(r.said.at(-1), 'computing…');
    r.received = 37;
    r.p.tick();
    assert.equal(r.said.at(-1), '37 of 400 stages…');
    r.received = 401; // (a stage sent in two pieces counts twice: never more than all)
    r.p.tick();
    assert.equal(r.said.at(-1), '400 of 400 stages…');
    r.p.end();
    assert.equal(r.said.at(-1), null);
    r.p.tick(); // (a late stage of a complete render says nothing)
    assert.equal(r.said.at(-1), null);
  });

  it('stages that come before the wait ends are counted when it ends; before, nothing is said', () => {
    const r = rig();
    let asked = 0;
    r.p.start(() => (asked++, 8));
    r.received = 3;
    r.p.tick();
    assert.deepEqual(r.said, [null], 'nothing said before the wait ends');
    assert.equal(asked, 0, 'the count is asked when first shown, not before');
    r.fire();
    assert.equal(asked, 1);
    assert.equal(r.said.at(-1), '3 of 8 stages…');
  });

  it('a new render stops the last one\'s wait and starts from nothing', () => {
    const r = rig();
    r.p.start(() => 5);
    r.fire();
    r.p.start(() => 9);
    assert.equal(r.said.at(-1), null, 'the old count is cleared');
    assert.equal(r.waits.length, 2);
    r.received = 2;
    r.fire();
    assert.equal(r.said.at(-1), '2 of 9 stages…');
  });

  it('no render on screen (received null): nothing is said', () => {
    const r = rig();
    r.p.start(() => 5);
    r.received = null;
    r.fire();
    assert.deepEqual(r.said, [null]);
  });
});
