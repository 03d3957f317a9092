// config.json's fields read as Hugging Face's config classes read them (null is absent, as they
// treat it), each wrong one an error naming the field and what is expected. Shared by every
// adapter: whole numbers, numbers, booleans, the BOS id, RoPE (rope_scaling / rope_parameters).

import type { RopeScaling } from '../../core/spec';
import { describeValue } from '../../common/quote';
import { CheckpointError } from '../errors';

export interface Fields {
  /** config.json as parsed. */
  readonly c: Readonly<Record<string, unknown>>;
  /** Throws the error of config.json: `config.json: ${message}`. */
  fail(message: string): never;
  /** `, found 7.5` or ` (it is missing)`: for messages about `key`. */
  found(key: string): string;
  /** A positive whole number (absent or null: dflt, else an error). */
  int(key: string, dflt?: number): number;
  /** A positive finite number (absent or null: dflt). */
  num(key: string, dflt: number): number;
  /** A positive finite number, or null where absent or null (dflt when given and absent). */
  optNum(key: string, dflt?: number | null): number | null;
  bool(key: string, dflt: boolean): boolean;
  /** bos_token_id where it names a word of a vocabulary of V (absent: dflt); a missing, null or odd one: null. */
  bos(V: number, dflt?: number): number | null;
}

export function fieldsOf(c: Readonly<Record<string, unknown>>, shown: string): Fields {
  const fail = (message: string): never => {
    throw new CheckpointError(`${shown}: ${message}`, { file: shown });
  };
  const found = (key: string): string => (c[key] === undefined ? ' (it is missing)' : `, found ${describeValue(c[key])}`);
  const positive = (v: unknown): v is number => typeof v === 'number' && v > 0 && Number.isFinite(v);
  return {
    c, fail, found,
    int: (key, dflt) => {
      const v = c[key] ?? dflt;
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v <= 0) fail(`"${key}" must be a positive whole number${found(key)}`);
      return v as number;
    },
    num: (key, dflt) => {
      const v = c[key] ?? dflt;
      if (!positive(v)) fail(`"${key}" must be a positive number${found(key)}`);
      return v as number;
    },
    optNum: (key, dflt = null) => {
      const v = c[key] === undefined ? dflt : c[key];
      if (v === null) return null;
      if (!positive(v)) fail(`"${key}" must be a positive number or null${found(key)}`);
      return v as number;
    },
    bool: (key, dflt) => {
      const v = c[key] ?? dflt;
      if (typeof v !== 'boolean') fail(`"${key}" must be true or false${found(key)}`);
      return v as boolean;
    },
    // (a missing, null or odd bos_token_id only leaves the induction test without its BOS)
    bos: (V, dflt) => {
      const b = c.bos_token_id === undefined ? dflt : c.bos_token_id;
      return typeof b === 'number' && Number.isSafeInteger(b) && b >= 0 && b < V ? b : null;
    },
  };
}

export interface Rope {
  readonly theta: number;
  readonly scaling: RopeScaling | null;
  readonly dynamic: boolean;
}

/**
 * RoPE's θ: `rope_theta` (default 10000; `thetaKeys` where an architecture names it otherwise), or
 * in `rope_parameters` (transformers 5); and its scaling, from `rope_scaling` or `rope_parameters`:
 * none ("default"), "linear" or "llama3" (Llama 3.1–3.3, as Hugging Face's
 * `_compute_llama3_parameters`), or "dynamic" (the default frequencies within
 * max_position_embeddings, as Hugging Face's `_compute_dynamic_ntk_parameters` gives them there).
 * Other types (yarn, longrope…) would give other positions than the core's: an error that names
 * the supported ones.
 */
export function ropeOf(f: Fields, opts: { readonly thetaKeys?: readonly string[]; readonly theta?: number; readonly dicts?: ReadonlyArray<[string, unknown]> } = {}): Rope {
  let theta: number | null = null;
  let scaling: RopeScaling | null = null;
  let dynamic = false;
  const dicts = opts.dicts ?? [['rope_scaling', f.c.rope_scaling], ['rope_parameters', f.c.rope_parameters]];
  for (const [key, r] of dicts) {
    if (r == null) continue;
    if (typeof r !== 'object' || Array.isArray(r)) f.fail(`"${key}" must be an object or null, found ${describeValue(r)}`);
    const o = r as Record<string, unknown>;
    const kind = o.rope_type ?? o.type ?? 'default';
    const positive = (name: string, dflt?: number): number => {
      const v = o[name] ?? dflt;
      if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) f.fail(`"${key}.${name}" must be a positive number${o[name] === undefined ? ' (it is missing)' : `, found ${describeValue(o[name])}`}`);
      return v as number;
    };
    if (kind === 'linear') scaling = { type: 'linear', factor: positive('factor') };
    else if (kind === 'llama3') {
      const s = { type: 'llama3' as const, factor: positive('factor'), lowFreqFactor: positive('low_freq_factor'), highFreqFactor: positive('high_freq_factor'), originalMaxPositions: positive('original_max_position_embeddings') };
      if (!(s.highFreqFactor > s.lowFreqFactor)) f.fail(`"${key}.high_freq_factor" (${s.highFreqFactor}) must be greater than "low_freq_factor" (${s.lowFreqFactor})`);
      scaling = s;
    } else if (kind === 'dynamic') {
      positive('factor');
      dynamic = true;
    } else if (kind !== 'default') f.fail(`"${key}" of type ${describeValue(kind)} is not supported; FFN Lens computes RoPE of type "default", "linear", "llama3" or "dynamic"`);
    if (o.rope_theta != null) theta = positive('rope_theta');
  }
  if (theta === null) {
    const key = (opts.thetaKeys ?? ['rope_theta']).find((k) => f.c[k] != null);
    theta = key === undefined ? opts.theta ?? 10000 : f.num(key, 0);
  }
  return { theta, scaling, dynamic };
}

/**
 * The rotated dims of each head, int(HS · factor) as transformers takes them: the factor from the
 * first of `keys` given (at the top or, for `rope_parameters.x`, inside it), else `dflt` (named
 * `dfltName` in messages). An odd
 * count is refused: rotate-half pairs dims d and d + R/2.
 */
export function rotaryDimsOf(f: Fields, HS: number, keys: readonly string[], dflt: number, dfltName = keys[0]): number {
  let key: string | null = null;
  let v: unknown = dflt;
  for (const k of keys) {
    const [outer, inner] = k.split('.');
    const o = inner === undefined ? f.c : f.c[outer];
    const x = o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[inner ?? outer] : undefined;
    if (x != null) {
      [key, v] = [k, x];
      break;
    }
  }
  const name = key ?? dfltName;
  const at = key === null ? ' (its default)' : '';
  if (typeof v !== 'number' || !(v > 0 && v <= 1)) f.fail(`"${name}" must be a number above 0 and at most 1, found ${describeValue(v)}`);
  const R = Math.trunc(HS * (v as number));
  if (R % 2) f.fail(`"${name}" ${v as number}${at} rotates ${R} of each head's ${HS} dims, an odd number; RoPE rotates pairs of dimensions`);
  return R;
}

/** Which layers slide, from `layer_types` ("sliding_attention" / "full_attention", one per layer); null where it is absent. */
export function layerTypesOf(f: Fields, L: number): boolean[] | null {
  const t = f.c.layer_types;
  if (t == null) return null;
  const ok = Array.isArray(t) && t.length === L && t.every((x) => x === 'sliding_attention' || x === 'full_attention');
  if (!ok) f.fail(`"layer_types" must list "sliding_attention" or "full_attention" for each of the ${L} layers, found ${describeValue(t)}`);
  return (t as string[]).map((x) => x === 'sliding_attention');
}

/** An activation name looked up by own name only ("__proto__" or "toString" are no activation). */
export function lookup<T>(table: Readonly<Record<string, T>>, name: unknown): T | undefined {
  return typeof name === 'string' && Object.hasOwn(table, name) ? table[name] : undefined;
}
