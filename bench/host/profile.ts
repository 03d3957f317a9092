// The host bench's profiler (opt-in: $FFN_BENCH_PROFILE): V8's sampling profiler on the extension
// host's own thread, through an inspector session of this process. What it adds to the figures:
// for each of our longest handlers (src/host/busy.ts: ms, what, start), the functions the samples
// inside it were in, so a row that reads too long says what to move off the thread.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { performance } from 'node:perf_hooks';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

/** One handler and where its samples were: "our innermost function ← the function running", ms. */
export interface HandlerProfile { what: string; ms: number; samples: number; where: Array<[string, number]> }

/** Sampling every 100 µs: a 5 ms handler gets ~50 samples; the overhead stays near 1 %. */
const INTERVAL_US = 100;

function post<T>(s: Session, method: string, params?: object): Promise<T> {
  return new Promise((res, rej) => s.post(method, params ?? {}, (err, r) => (err ? rej(err) : res(r as T))));
}

export async function startProfile(): Promise<{ stop(file: string, top: ReadonlyArray<readonly [number, string, number]>): Promise<HandlerProfile[]> }> {
  const s = new Session();
  s.connect();
  await post(s, 'Profiler.enable');
  await post(s, 'Profiler.setSamplingInterval', { interval: INTERVAL_US });
  await post(s, 'Profiler.start');
  return {
    async stop(file, top) {
      const { profile } = await post<{ profile: CpuProfile }>(s, 'Profiler.stop');
      s.disconnect();
      writeFileSync(file, JSON.stringify(profile));
      return top.map(([ms, what, start]) => inside(profile, what, ms, start));
    },
  };
}

/**
 * The profile's clock is V8's monotonic one in µs (CLOCK_MONOTONIC, as libuv's hrtime), while the
 * handlers' starts are performance.now() (ms since this process's time origin, hrtime-based too):
 * both read now, the difference maps one onto the other.
 */
function perfToProfileUs(ms: number): number {
  const hr = Number(process.hrtime.bigint() / 1000n);
  const now = performance.now();
  return hr - (now - ms) * 1000;
}

function inside(p: CpuProfile, what: string, ms: number, start: number): HandlerProfile {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (f: CallFrame): string => `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  const from = perfToProfileUs(start);
  const to = from + ms * 1000;
  const where = new Map<string, number>();
  let t = p.startTime;
  let n = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i];
    if (t < from || t > to) continue;
    n++;
    const leaf = byId.get(p.samples[i])!;
    let ours: ProfileNode | undefined;
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id)!;
      if (/\/dist\/extension\.js$/.test(node.callFrame.url)) { ours = node; break; }
    }
    const key = `${ours ? name(ours.callFrame) : '(not ours)'} ← ${name(leaf.callFrame)}`;
    where.set(key, (where.get(key) ?? 0) + 1);
  }
  const perSample = n ? ms / n : 0;
  const list = [...where].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([k, c]): [string, number] => [k, Math.round(c * perSample * 100) / 100]);
  return { what, ms, samples: n, where: list };
}
