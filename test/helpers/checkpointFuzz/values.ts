// Hostile JSON values for the checkpoint fuzzer, and JSON text that can hold what JSON.stringify
// cannot write (1e400, NaN, nesting 100,000 deep, duplicate keys): such a value is a Raw, written
// as its text where it stands.

export class Raw {
  constructor(readonly text: string, readonly label: string) {}
}

export type Rng = () => number;

export const pick = <T>(r: Rng, list: readonly T[]): T => list[Math.floor(r() * list.length)];
export const int = (r: Rng, n: number): number => Math.floor(r() * n);

/** Nesting `depth` deep: [[[…]]] or {"a":{"a":…}}. */
export function deep(depth: number, object: boolean): Raw {
  return new Raw(object ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth), `${object ? 'object' : 'array'} nested ${depth} deep`);
}

/** A value of every hostile kind, with a short label for the report. */
export function hostileValue(r: Rng): { value: unknown; label: string } {
  const k = int(r, 30);
  switch (k) {
    case 0: return { value: 1e9, label: '1e9' };
    case 1: return { value: 2 ** 31, label: '2^31' };
    case 2: return { value: 2 ** 53, label: '2^53' };
    case 3: return { value: new Raw('1e400', '1e400 (Infinity)'), label: '1e400' };
    case 4: return { value: -1, label: '-1' };
    case 5: return { value: 0, label: '0' };
    case 6: return { value: 2.5, label: '2.5' };
    case 7: return { value: 1e-300, label: '1e-300' };
    case 8: return { value: '8', label: '"8"' };
    case 9: return { value: 'toString', label: '"toString"' };
    case 10: return { value: '__proto__', label: '"__proto__"' };
    case 11: return { value: null, label: 'null' };
    case 12: return { value: true, label: 'true' };
    case 13: return { value: [], label: '[]' };
    case 14: return { value: [8], label: '[8]' };
    case 15: return { value: {}, label: '{}' };
    case 16: { const d = pick(r, [50, 5000, 100000]); return { value: deep(d, r() < 0.5), label: `nested ${d} deep` }; }
    case 17: { const n = pick(r, [1000, 100000, 100000, 1000000]); return { value: 'x'.repeat(n), label: `a string of ${n} characters` }; }
    case 18: return { value: '\u001b[2J\u001b]0;pwned\u0007\r\nerror: fake', label: 'terminal escapes and a line break' };
    case 19: return { value: '\u202egnp.exe', label: 'bidi override' };
    case 20: return { value: new Raw('NaN', 'NaN (not JSON)'), label: 'NaN' };
    case 21: return { value: -(2 ** 53), label: '-2^53' };
    case 22: return { value: 2 ** 64, label: '2^64' };
    case 23: return { value: Array.from({ length: pick(r, [100, 100, 20000]) }, (_, i) => i), label: 'a long list of numbers' };
    case 24: return { value: { toString: 1, valueOf: 2 }, label: '{toString, valueOf}' };
    case 25: return { value: 'constructor', label: '"constructor"' };
    case 26: return { value: 4294967297, label: '2^32+1' };
    case 27: return { value: 1.0000001, label: '1.0000001' };
    case 28: return { value: -0.5, label: '-0.5' };
    default: return { value: '', label: '""' };
  }
}

/** A positive size made hostile: huge, zero, negative, fractional, a string of it, or off by one. */
export function hostileSize(r: Rng, v: number): { value: unknown; label: string } {
  const k = int(r, 10);
  const list: Array<[unknown, string]> = [
    [v * 1000, '×1000'], [v + 1, '+1'], [v - 1, '-1'], [v * 2, '×2'], [Math.max(1, Math.floor(v / 2)), '÷2'],
    [2 ** 30, '2^30'], [v + 0.5, '+0.5'], [String(v), 'as a string'], [-v, 'negated'], [0, '0'],
  ];
  const [value, label] = list[k];
  return { value, label: `${v} ${label}` };
}

const SENTINEL = '\u0000RAW';

/** JSON text of a value that may hold Raws (and `dupes`: keys written twice, the second time with another value). */
export function jsonText(value: unknown, indent = 0): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Raw) {
      raws.push(v.text);
      return `${SENTINEL}${raws.length - 1}\u0000`;
    }
    return v;
  }, indent || undefined);
  if (raws.length === 0) return text;
  return text.replace(/"\\u0000RAW(\d+)\\u0000"/g, (_m, i: string) => raws[Number(i)]);
}

/** `obj` with its key `key` set to `v`, the key order kept (a new key last); a key `__proto__` as an own key. */
export function withKey(obj: Record<string, unknown>, key: string, v: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let put = false;
  for (const [k, x] of Object.entries(obj)) {
    if (k === key) { Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true }); put = true; }
    else Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
  }
  if (!put) Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

export function withoutKey(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(obj)) if (k !== key) Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
  return out;
}
