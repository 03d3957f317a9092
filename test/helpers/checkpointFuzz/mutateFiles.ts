// The checkpoint fuzzer's mutations of safetensors files (the header's length, shapes, dtypes,
// offsets, names, duplicate keys, __metadata__) and of files as files: symlinks that lead out of
// the folder, byte flips, truncation.

import { fileOf } from './mutateJson';
import type { FuzzCase } from './seeds';
import { deep, hostileValue, int, jsonText, pick, Raw, type Rng } from './values';

const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

interface Parsed { header: Record<string, unknown>; data: Uint8Array }

function parse(b: Uint8Array): Parsed | null {
  if (b.length < 8) return null;
  const n = Number(new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true));
  if (n > b.length - 8) return null;
  try {
    return { header: JSON.parse(dec(b.subarray(8, 8 + n))) as Record<string, unknown>, data: b.subarray(8 + n) };
  } catch {
    return null;
  }
}

/** A safetensors file of a header text and data bytes; `len` overrides the length field. */
function build(headerText: string, data: Uint8Array, len?: bigint): Uint8Array {
  const head = enc(headerText);
  const out = new Uint8Array(8 + head.length + data.length);
  new DataView(out.buffer).setBigUint64(0, len ?? BigInt(head.length), true);
  out.set(head, 8);
  out.set(data, 8 + head.length);
  return out;
}

/** The checkpoint's safetensors files (shards included), as case paths; those of folder `dir` of the case (an SAE's) when given. */
function safetensorsFiles(c: FuzzCase, dir?: string): string[] {
  if (dir !== undefined) return [...c.files.entries()].filter(([k, e]) => k.startsWith(`${dir}/`) && k.endsWith('.safetensors') && e instanceof Uint8Array).map(([k]) => k);
  const names = [...c.files.keys()].filter((k) => k.startsWith(`${c.ckpt}/`) && k.endsWith('.safetensors')).map((k) => k.slice(c.ckpt.length + 1));
  return names.map((n) => fileOf(c, n)).filter((p): p is string => p !== null);
}

const DTYPES = ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'f32', 'F64', 'I64', 'U8', 'BOOL', 'F8_E4M3', 'F4', '', 'BF16', 'F16', 'F32'];

/** One safetensors file: its header's length field, a tensor's shape/dtype/offsets/name, the header as a whole. */
export function mutateSafetensors(c: FuzzCase, r: Rng, _outside?: string, dir?: string): string | null {
  const files = safetensorsFiles(c, dir);
  if (files.length === 0) return null;
  const rel = pick(r, files);
  const bytes = c.files.get(rel) as Uint8Array;
  const p = parse(bytes);
  if (!p) return null;
  const file = rel.split('/').pop();
  const names = Object.keys(p.header).filter((n) => n !== '__metadata__');
  const name = pick(r, names);
  const t = { ...(p.header[name] as { dtype: string; shape: number[]; data_offsets: [number, number] }) };
  if (!Array.isArray(t.shape) || !Array.isArray(t.data_offsets)) return null; // (an earlier mutation's)
  const [b, e] = t.data_offsets;
  const headerText = (): string => jsonText(p.header);
  const k = int(r, 14);
  let label: string;
  if (k === 0) {
    const n = BigInt(enc(headerText()).length);
    const len = pick(r, [n + 1n, n - 1n, n + 8n, n - 8n, 0n, 1n, 2n ** 32n, 2n ** 53n + 1n, 2n ** 64n - 1n, BigInt(bytes.length), BigInt(bytes.length - 8)]);
    c.files.set(rel, build(headerText(), p.data, len < 0n ? 0n : len));
    return `${file}: header length ${len} (header is ${n})`;
  }
  if (k <= 2) {
    const s = [...t.shape];
    const i = int(r, Math.max(1, s.length));
    const v = pick<unknown>(r, [s[i] * 2, s[i] + 1, 0, -1, 1.5, '8', null, 2 ** 53, 2 ** 31, 1e308, [2], new Raw('1e400', 'Inf')]);
    const shape = pick<unknown[]>(r, [[...s.slice(0, i), v, ...s.slice(i + 1)], [], [s.reduce((x, y) => x * y, 1)], [...s, 1], Array(10000).fill(1).concat(s), [2 ** 26, 2 ** 26, 2 ** 26, 0], [2 ** 20, 2 ** 20, 2 ** 13]]);
    t.shape = shape as number[];
    label = `${file}: ${name} shape ${jsonText(shape).slice(0, 40)}`;
  } else if (k <= 4) {
    t.dtype = pick(r, DTYPES);
    label = `${file}: ${name} dtype ${JSON.stringify(t.dtype)}`;
  } else if (k <= 6) {
    const prev = names.map((n) => (p.header[n] as { data_offsets?: unknown } | null)?.data_offsets).find((o): o is number[] => Array.isArray(o) && o[1] === b);
    const offs = pick<unknown>(r, [[b + 4, e + 4], [b - 4, e - 4], [b + 1, e + 1], [e, b], [b, e, 0], [String(b), String(e)], [b, 2 ** 60], [-4, e], [b], null, [b + 0.5, e + 0.5], prev ? [prev[0], e - (b - prev[0])] : [0, e - b], [0, e - b], [b, p.data.length + 4]]);
    t.data_offsets = offs as [number, number];
    label = `${file}: ${name} data_offsets ${JSON.stringify(offs)} (was [${b}, ${e}])`;
  } else if (k === 7) {
    const to = pick(r, ['x'.repeat(pick(r, [1000, 200000])), '__proto__', 'constructor', 'toString', `${name}\n\u001b[31mred`, '', `../${name}`]);
    const next: Record<string, unknown> = {};
    for (const [n, v] of Object.entries(p.header)) {
      if (n === name) Object.defineProperty(next, to, { value: v, enumerable: true, configurable: true, writable: true });
      else next[n] = v;
    }
    p.header = next;
    c.files.set(rel, build(headerText(), p.data));
    return `${file}: ${name} renamed ${JSON.stringify(to.slice(0, 40))} (${to.length} chars)`;
  } else if (k === 8) {
    // the name twice in the header's text: JSON.parse keeps the second
    const other = { ...t, data_offsets: pick(r, [[0, e - b], [b, e], [p.data.length, p.data.length + e - b]]) };
    const text = headerText().replace(/}\s*$/, `,${JSON.stringify(name)}:${JSON.stringify(other)}}`);
    c.files.set(rel, build(text, p.data));
    return `${file}: ${name} twice, the second at ${JSON.stringify(other.data_offsets)}`;
  } else if (k === 9) {
    const h = hostileValue(r);
    p.header[name] = h.value;
    label = `${file}: ${name} described by ${h.label}`;
  } else if (k === 10) {
    const h = r() < 0.3 ? { value: deep(100000, true), label: 'nested 100000 deep' } : hostileValue(r);
    p.header.__metadata__ = h.value;
    label = `${file}: __metadata__ ${h.label}`;
  } else if (k === 11) {
    const n = pick(r, [1000, 1000, 30000]);
    for (let i = 0; i < n; i++) p.header[`junk.${i}`] = { dtype: 'F32', shape: [0], data_offsets: [0, 0] };
    label = `${file}: ${n} empty tensors more`;
  } else if (k === 12) {
    const text = pick(r, ['', 'null', '[]', '{', '"x"', '\ufeff' + headerText(), headerText() + ' junk', jsonText(deep(200000, false))]);
    const raw = r() < 0.2 ? new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]) : enc(text);
    const out = new Uint8Array(8 + raw.length + p.data.length);
    new DataView(out.buffer).setBigUint64(0, BigInt(raw.length), true);
    out.set(raw, 8);
    out.set(p.data, 8 + raw.length);
    c.files.set(rel, out);
    return `${file}: header ${raw[0] === 0xff ? 'not UTF-8' : JSON.stringify(text.slice(0, 20))} (${raw.length} bytes)`;
  } else {
    delete p.header[name];
    label = `${file}: ${name} left out`;
  }
  if (k !== 9 && k !== 10 && k !== 11 && k !== 13) p.header[name] = t;
  c.files.set(rel, build(headerText(), p.data));
  return label;
}

/** A file of the checkpoint replaced by a symlink: out of the folder (absolute or relative), dangling, a loop, a device. */
export function mutateLink(c: FuzzCase, r: Rng, _outside?: string, dir = c.ckpt): string | null {
  const own = [...c.files.keys()].filter((k) => k.startsWith(`${dir}/`));
  const sae = dir !== c.ckpt;
  const names = sae ? ['cfg.json', 'sae_weights.safetensors', 'params.npz'] : ['config.json', 'model.safetensors', 'tokenizer.json', 'model.safetensors.index.json', 'tokenizer_config.json'];
  const rel = r() < 0.8 && own.length ? pick(r, own) : `${dir}/${pick(r, names)}`;
  const base = rel.split('/').pop()!;
  // (the decoy outside is a valid file of the same kind: a read that gets out succeeds and is seen)
  const decoy = sae ? `sae/${names.includes(base) ? base : 'cfg.json'}` : base.endsWith('.safetensors') ? 'model.safetensors' : base === 'model.safetensors.index.json' ? 'model.safetensors.index.json' : base === 'tokenizer.json' ? 'tokenizer.json' : 'config.json';
  const k = int(r, 8);
  const target = [
    `OUTSIDE/${decoy}`, `OUTSIDE/${decoy}`, `OUTSIDE/secret.txt`, '/etc/passwd', '/dev/zero', `${base}`, 'nowhere/at/all', `OUTSIDE`,
  ][k];
  const relative = k <= 2 && r() < 0.5;
  c.files.set(rel, { link: target, relative });
  return `${sae ? 'SAE ' : ''}${rel.slice(dir.length + 1)} a ${relative ? 'relative ' : ''}symlink to ${target.replace('OUTSIDE', '<outside>')}`;
}

/** Bytes of a file flipped, cut or added to. */
export function mutateBytes(c: FuzzCase, r: Rng): string | null {
  const own = [...c.files.entries()].filter(([, e]) => e instanceof Uint8Array).map(([k]) => k);
  if (own.length === 0) return null;
  const rel = pick(r, own);
  const b = new Uint8Array(c.files.get(rel) as Uint8Array);
  const name = rel.split('/').pop();
  const k = int(r, 4);
  if (k <= 1) {
    // mostly in the first bytes: the length and the header, where a flip means something
    const n = 1 + int(r, 8);
    const at: number[] = [];
    for (let i = 0; i < n; i++) {
      const j = r() < 0.7 ? int(r, Math.min(b.length, 600)) : int(r, b.length);
      b[j] ^= 1 << int(r, 8);
      at.push(j);
    }
    c.files.set(rel, b);
    return `${name}: bits flipped at bytes ${at.join(', ')}`;
  }
  if (k === 2) {
    const to = pick(r, [0, 1, 7, 8, 9, int(r, b.length), b.length - 1]);
    c.files.set(rel, b.subarray(0, Math.max(0, to)));
    return `${name}: cut to ${to} bytes of ${b.length}`;
  }
  const extra = new Uint8Array(pick(r, [1, 4096]));
  for (let i = 0; i < extra.length; i++) extra[i] = int(r, 256);
  const out = new Uint8Array(b.length + extra.length);
  out.set(b);
  out.set(extra, b.length);
  c.files.set(rel, out);
  return `${name}: ${extra.length} random bytes appended`;
}
