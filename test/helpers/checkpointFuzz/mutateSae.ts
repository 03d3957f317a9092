// The checkpoint fuzzer's mutations of an SAE beside the checkpoint (saeSeeds.ts): its cfg.json's
// fields; the SAE made again of another d_in or of a huge d_sae (real, or only claimed by the
// headers); the model file's `saes`, feature edits and `steer` (vector lengths, huge alpha,
// positions, contrast prompts past the input bound, features of no SAE). Its files' bytes,
// headers and links are mutateFiles.ts's and mutateNpz.ts's, pointed at the SAE's folder.

import { safetensorsBytes } from '../../../src/checkpoint/testing';
import { npy, writeMembers } from './mutateNpz';
import type { FuzzCase } from './seeds';
import { deep, hostileSize, hostileValue, int, jsonText, pick, Raw, withKey, withoutKey, type Rng } from './values';

const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

const CFG_KEYS = ['d_in', 'd_sae', 'architecture', 'activation_fn', 'activation_fn_str', 'k', 'activation_fn_kwargs', 'apply_b_dec_to_input', 'normalize_activations', 'norm_scaling_factor', 'scaling_factor', 'hook_name', 'neuronpedia_id', 'metadata', '__proto__', 'toString'];

/** cfg.json of the SAE: a field hostile, missing, another activation; or the whole file. */
export function mutateSaeCfg(c: FuzzCase, r: Rng): string | null {
  const rel = c.saeDir ? `${c.saeDir}/cfg.json` : null;
  const b = rel ? c.files.get(rel) : undefined;
  if (!rel || !(b instanceof Uint8Array)) return null;
  let cfg: Record<string, unknown>;
  try {
    cfg = JSON.parse(dec(b)) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!cfg || typeof cfg !== 'object' || Array.isArray(cfg)) return null;
  const k = int(r, 8);
  if (k === 0) {
    const whole = pick(r, ['', 'null', '[]', '"x"', '{', jsonText(deep(100000, r() < 0.5)), `${JSON.stringify(cfg)}x`, '\ufeff' + JSON.stringify(cfg)]);
    c.files.set(rel, enc(whole));
    return `SAE cfg.json is ${JSON.stringify(whole.slice(0, 30))} (${whole.length} chars)`;
  }
  const key = pick(r, CFG_KEYS);
  if (k === 1) {
    c.files.set(rel, enc(jsonText(withoutKey(cfg, key))));
    return `SAE cfg.json without "${key}"`;
  }
  if (k === 2) {
    const [arch, extra] = pick<[string, Record<string, unknown>]>(r, [['jumprelu', {}], ['topk', {}], ['topk', { k: 0 }], ['topk', { k: 1e9 }], ['topk', { k: 3 }], ['gated', {}], ['standard', { activation_fn: 'topk' }], ['standard', { activation_fn: 'gelu' }]]);
    c.files.set(rel, enc(JSON.stringify({ ...cfg, architecture: arch, ...extra })));
    return `SAE cfg.json architecture ${arch} ${JSON.stringify(extra)}`;
  }
  const v = cfg[key];
  const h = typeof v === 'number' && Number.isInteger(v) && r() < 0.6 ? hostileSize(r, v) : hostileValue(r);
  c.files.set(rel, enc(jsonText(withKey(cfg, key, h.value))));
  return `SAE cfg.json "${key}": ${h.label}`;
}

const fill = (n: number, x: number): number[] => new Array<number>(n).fill(x);

/** The SAE made again: of another d_in (a mismatch with its stage), of a real large d_sae, or one the headers only claim. */
export function mutateSaeWidth(c: FuzzCase, r: Rng): string | null {
  if (!c.saeDir) return null;
  const npz = c.files.has(`${c.saeDir}/params.npz`);
  const k = int(r, 4);
  const dIn = k === 0 ? pick(r, [1, 8, 15, 17, 32, 4096]) : 16;
  const dSae = k === 1 ? pick(r, [20000, 100000]) : k === 2 ? pick(r, [2 ** 24, 2 ** 24 + 1, 2 ** 31, 1e9]) : 4;
  const claimOnly = k >= 2;
  if (claimOnly && k === 3) {
    // the headers' shapes say d_in × d_sae, the data is a few numbers
    const shape = pick(r, [[16, 2 ** 26], [2 ** 20, 2 ** 20], [16, 0], [0, 0]]);
    put(c, npz, shape[0], shape[1], true);
    return `SAE remade claiming W_enc ${JSON.stringify(shape)} with no data for it`;
  }
  put(c, npz, dIn, dSae, claimOnly);
  return `SAE remade with d_in ${dIn}, d_sae ${dSae}${claimOnly ? ' (claimed only)' : ''}`;
}

function put(c: FuzzCase, npz: boolean, dIn: number, dSae: number, claimOnly: boolean): void {
  const dir = c.saeDir!;
  const n = claimOnly ? 1 : dIn * dSae;
  if (npz) {
    const arr = (shape: number[], count: number): Uint8Array => npy(`{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`, new Uint8Array(4 * count));
    c.files.set(`${dir}/params.npz`, writeMembers([
      { name: 'W_enc.npy', data: arr([dIn, dSae], n) }, { name: 'W_dec.npy', data: arr([dSae, dIn], n) },
      { name: 'b_enc.npy', data: arr([dSae], claimOnly ? 1 : dSae) }, { name: 'b_dec.npy', data: arr([dIn], claimOnly ? 1 : dIn) }, { name: 'threshold.npy', data: arr([dSae], claimOnly ? 1 : dSae) },
    ]));
    return;
  }
  c.files.set(`${dir}/cfg.json`, enc(JSON.stringify({ d_in: dIn, d_sae: dSae, architecture: 'standard', apply_b_dec_to_input: true })));
  if (claimOnly) {
    // (a raw header: shapes that would need gigabytes, offsets that say so, a few bytes of data)
    const header = { W_enc: { dtype: 'F32', shape: [dIn, dSae], data_offsets: [0, 4 * dIn * dSae] }, W_dec: { dtype: 'F32', shape: [dSae, dIn], data_offsets: [4 * dIn * dSae, 8 * dIn * dSae] } };
    const h = enc(JSON.stringify(header));
    const out = new Uint8Array(8 + h.length + 64);
    new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
    out.set(h, 8);
    c.files.set(`${dir}/sae_weights.safetensors`, out);
    return;
  }
  c.files.set(`${dir}/sae_weights.safetensors`, safetensorsBytes({
    W_enc: { shape: [dIn, dSae], data: fill(n, 0.01) }, W_dec: { shape: [dSae, dIn], data: fill(n, 0.01) }, b_enc: { shape: [dSae], data: fill(dSae, 0) }, b_dec: { shape: [dIn], data: fill(dIn, 0) },
  }));
}

/** The model file's SAE keys: `saes` (paths out, long, odd; sites; two of them), the feature edits. */
export function mutateSaeKeys(c: FuzzCase, r: Rng, outsideAbs: string): string | null {
  const m = c.model;
  const saes = Array.isArray(m.saes) ? (m.saes as Array<Record<string, unknown>>) : null;
  if (!saes || !saes[0] || typeof saes[0] !== 'object') return null;
  const first = saes[0];
  const k = int(r, 6);
  if (k <= 1) {
    const to = pick(r, [
      `${outsideAbs}/sae`, '../outside-sae', '/dev/zero', '/proc/self', '/', '', '.', './ckpt', './sae/cfg.json', './sae/../..', 'a\u0000b',
      `./${'a/'.repeat(5000)}sae`, `./sae/${'x'.repeat(10000)}`, '\u202e/sae', '/etc', 'C:\\\\sae', 'file:///etc',
    ]);
    m.saes = [{ ...first, path: to }];
    return `model saes[0].path ${JSON.stringify(to.slice(0, 50))} (${to.length} chars)`;
  }
  if (k === 2) {
    const at = pick(r, ['layers.99.out', 'layers.-1.out', 'layers.0.ffn.up', 'input', 'layers.1e3.out', 'layers.4294967296.out', 'layers.0.attn.out', 'layers.1.ffn.down', 'layers.00.out', '']);
    m.saes = [{ ...first, at }];
    return `model saes[0].at ${JSON.stringify(at)}`;
  }
  if (k === 3) {
    const h = hostileValue(r);
    const key = pick(r, ['saes', 'path', 'at', 'norm_scaling_factor', 'sae_ablate', 'sae_scale', 'sae_clamp']);
    if (key === 'saes' || key.startsWith('sae_')) c.model = withKey(m, key, h.value);
    else m.saes = [withKey(first, key, h.value)];
    return `model ${key}: ${h.label}`;
  }
  if (k === 4) {
    // (a few: each wrong one is its own problem, and more than a few are a flood of lines, not a hostile file)
    m.saes = pick(r, [[first, first], [first, { ...first, at: 'layers.1.out' }], Array.from({ length: 4 }, (_, i) => ({ ...first, at: `layers.${i}.out` }))]);
    return `model saes: ${(m.saes as unknown[]).length} SAEs`;
  }
  const site = String(first.at ?? 'layers.0.out').replace(/\.out$/, '');
  const feature = pick(r, ['99999999', '4294967296', '9007199254740993', '-1', '1e3', '0x10', '3']);
  const what = pick(r, ['sae_ablate', 'sae_scale', 'sae_clamp']);
  const id = `${site}.sae.${feature}`;
  const value = pick<unknown>(r, [2, 1e39, -1e39, new Raw('NaN', 'NaN'), 0, 1e-45]);
  m[what] = what === 'sae_ablate' ? [id] : { [id]: value };
  return `model ${what} ${id}${what === 'sae_ablate' ? '' : ` = ${value instanceof Raw ? value.label : String(value)}`}`;
}

/** `steer`: a vector of the wrong length, huge alpha, positions past the input, contrast prompts past the bound, a feature of no SAE. */
export function mutateSteer(c: FuzzCase, r: Rng): string | null {
  if (!c.saeDir) return null;
  const m = c.model;
  const site = pick(r, ['layers.0.out', 'layers.1.out', 'layers.0.attn.out', 'input', 'layers.99.out', 'layers.1.ffn.down']);
  const k = int(r, 6);
  const base = (typeof m.steer === 'object' && m.steer !== null ? Object.values(m.steer as object)[0] : null) as Record<string, unknown> | null;
  let s: Record<string, unknown>;
  let label: string;
  if (k === 0) {
    const n = pick(r, [0, 15, 17, 1, 100000, 300000]);
    s = { vector: Array.from({ length: n }, (_, i) => (i % 7) / 10), alpha: 1 };
    label = `a vector of ${n} numbers`;
  } else if (k === 1) {
    const alpha = pick<unknown>(r, [3.4e38, -3.4e38, 1e38, 1e39, new Raw('1e400', 'Inf'), new Raw('NaN', 'NaN'), 0, 1e-45, '4', null]);
    s = { ...(base ?? { vector: Array.from({ length: 16 }, (_, i) => i) }), alpha };
    label = `alpha ${alpha instanceof Raw ? alpha.label : JSON.stringify(alpha)}`;
  } else if (k === 2) {
    const positions = pick<unknown>(r, [[1e9], [-1], [0, 0, 0], 'first', [], Array.from({ length: 100000 }, () => 0), [4294967296], [0.5]]);
    s = { ...(base ?? { vector: Array.from({ length: 16 }, () => 1) }), alpha: 1, positions };
    label = `positions ${jsonText(positions).slice(0, 40)}`;
  } else if (k === 3) {
    const n = pick(r, [15, 17, 64, 65, 1000, 30000, 300000]);
    const prompts = pick<unknown[]>(r, [['ab '.repeat(n), 'c'], ['c', 'a'.repeat(n)], ['', 'c'], ['ab'], ['a', 'b', 'c'], [1, 2], ['\u0000', '\ud800']]);
    if (!('tokenizer' in m) && !c.files.has(`${c.ckpt}/tokenizer.json`) && r() < 0.7) m.tokenizer = './ckpt/tokenizer.json';
    s = { contrast: prompts, alpha: 2 };
    label = `contrast ${jsonText(prompts).slice(0, 40)} (${String(prompts[0] ?? '').length} chars)`;
  } else if (k === 4) {
    const feature = pick(r, ['layers.0.sae.99999', 'layers.5.sae.1', 'layers.0.sae.-1', 'layers.0.sae.4294967296', 'nothing']);
    s = { feature, alpha: 2 };
    label = `feature ${feature}`;
  } else {
    const h = hostileValue(r);
    s = withKey(base ?? { alpha: 1 }, pick(r, ['vector', 'feature', 'contrast', 'alpha', 'positions', 'extra']), h.value);
    label = `a field ${h.label}`;
  }
  m.steer = r() < 0.1 ? Object.fromEntries(Array.from({ length: 4 }, () => [pick(r, ['layers.0.out', 'layers.1.out', 'input', 'layers.0.attn.out', 'layers.1.ffn.down']), s])) : { [site]: s };
  return `model steer ${site}: ${label}`;
}
