// How numbers are shown to people, everywhere (hovers, tooltips, legends, charts): `digits`
// significant digits, exponent form when tiny or huge, a true minus sign. (The command line prints
// exact float32 values instead: float32.ts.)

export function formatValue(v: number, digits = 3): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (v === 0) return '0';
  const a = Math.abs(v);
  const s = a >= 10 ** (digits + 1) || a < 1e-3
    ? v.toExponential(digits - 1).replace(/\.?0+e/, 'e').replace('e+', 'e')
    : String(Number(v.toPrecision(digits)));
  return s.replace(/-/g, '−');
}

/** 1,234,567 */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** "1 token", "5 tokens". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
