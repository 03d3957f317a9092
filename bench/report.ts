// What a section in a file of its own reports through (bench.ts owns the table and results.json).
export interface Stat { median: number; min: number; max: number; n: number }

export function stat(xs: number[]): Stat {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1], n: s.length };
}

export const r2 = (x: number): number => Math.round(x * 100) / 100;
export const one = (v: number): Stat => ({ median: v, min: v, max: v, n: 1 });

export interface Report {
  /** A row with a target, met or not. */
  target(what: string, target: string, unit: string, value: Stat, pass: boolean, note?: string): void;
  /** A figure with no target. */
  information(what: string, unit: string, value: Stat, note?: string): void;
  /** The section's figures in results.json. */
  result(key: string, value: unknown): void;
  quick: boolean;
}
