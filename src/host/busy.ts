// How long our code holds the extension host's thread at a time: every handler we give VS Code
// (events, worker messages, webview messages, providers up to their first await) runs through
// timed(). The benchmark reads the longest; nothing else depends on it. (The host's overall event
// loop delay also counts VS Code's own work, e.g. built-in extensions rescanning a large document.)

export interface BusyStats {
  /** The longest synchronous stretch, ms, and what it was. */
  max: number;
  what: string;
  count: number;
  totalMs: number;
  /** The five longest: ms, what, and when they started (performance.now()). */
  top: Array<[number, string, number]>;
}

export const busy: BusyStats = { max: 0, what: '', count: 0, totalMs: 0, top: [] };

export function resetBusy(): void {
  busy.max = 0;
  busy.what = '';
  busy.count = 0;
  busy.totalMs = 0;
  busy.top = [];
}

export function timed<T>(what: string, f: () => T): T {
  const t0 = performance.now();
  try {
    return f();
  } finally {
    const ms = performance.now() - t0;
    busy.count++;
    busy.totalMs += ms;
    if (ms > busy.max) {
      busy.max = ms;
      busy.what = what;
    }
    if (busy.top.length < 5 || ms > busy.top[busy.top.length - 1][0]) {
      busy.top.push([Math.round(ms * 100) / 100, what, t0]);
      busy.top.sort((a, b) => b[0] - a[0]);
      busy.top.length = Math.min(busy.top.length, 5);
    }
  }
}
