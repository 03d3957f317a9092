// Small random model files for tests, one matrix row per line (as people and the generator write them).
import { rng } from './random';

export interface TestModelOptions {
  seq: number; d: number; ff: number; heads: number; layers: number;
  activation: string; norm: 'none' | 'pre' | 'post'; layout: 'out_in' | 'in_out';
  residual: boolean; causal: boolean; head?: number; biases: boolean; finalNorm?: boolean; positional?: boolean;
  seed: number;
}

export function modelText(o: TestModelOptions): string {
  const r = rng(o.seed);
  const num = (): string => (r() * 2 - 1).toFixed(3);
  const vec = (n: number): string => `[${Array.from({ length: n }, num).join(', ')}]`;
  // a [out][in] matrix in the file's layout
  const mat = (out: number, inp: number, indent: string): string => {
    const [rows, cols] = o.layout === 'out_in' ? [out, inp] : [inp, out];
    return `[\n${Array.from({ length: rows }, () => `${indent}  ${vec(cols)}`).join(',\n')}\n${indent}]`;
  };
  const gated = ['swiglu', 'geglu', 'reglu'].includes(o.activation);
  const layer = (): string => {
    const I = '      ';
    const parts: string[] = [];
    const att = [`"heads": ${o.heads}`, `"causal": ${o.causal}`];
    for (const k of ['q', 'k', 'v', 'o']) {
      att.push(`"W${k}": ${mat(o.d, o.d, I)}`);
      if (o.biases) att.push(`"b${k}": ${vec(o.d)}`);
    }
    parts.push(`"attention": {\n${I}${att.join(`,\n${I}`)}\n    }`);
    const ffn = [`"activation": "${o.activation}"`, `"W1": ${mat(o.ff, o.d, I)}`];
    if (o.biases) ffn.push(`"b1": ${vec(o.ff)}`);
    if (gated) ffn.push(`"Wg": ${mat(o.ff, o.d, I)}`, ...(o.biases ? [`"bg": ${vec(o.ff)}`] : []));
    ffn.push(`"W2": ${mat(o.d, o.ff, I)}`);
    if (o.biases) ffn.push(`"b2": ${vec(o.d)}`);
    parts.push(`"ffn": {\n${I}${ffn.join(`,\n${I}`)}\n    }`);
    if (o.norm !== 'none') parts.push(`"ln1": { "gamma": ${vec(o.d)}, "beta": ${vec(o.d)} }`, `"ln2": { "gamma": ${vec(o.d)}, "beta": ${vec(o.d)} }`);
    return `{\n    ${parts.join(',\n    ')}\n  }`;
  };
  const top = [
    '"version": 1', `"layout": "${o.layout}"`, `"norm": "${o.norm}"`, `"residual": ${o.residual}`,
    ...(o.positional ? ['"positional": "sinusoidal"'] : []),
    `"input": [\n${Array.from({ length: o.seq }, () => `    ${vec(o.d)}`).join(',\n')}\n  ]`,
    `"layers": [\n  ${Array.from({ length: o.layers }, layer).join(',\n  ')}\n  ]`,
  ];
  if (o.finalNorm) top.push('"final_norm": true', `"ln_f": { "gamma": ${vec(o.d)}, "beta": ${vec(o.d)} }`);
  if (o.head) top.push(`"head": { "W": ${mat(o.head, o.d, '    ')}, ${o.biases ? `"b": ${vec(o.head)}, ` : ''}"temperature": 0.8 }`);
  return `{\n  ${top.join(',\n  ')}\n}\n`;
}
