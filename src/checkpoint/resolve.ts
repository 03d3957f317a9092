// A checkpoint model file made concrete: the request the reader found in the text (its input and
// its overrides, src/model/checkpointRequest.ts) applied to the checkpoint's numbers, giving the
// core's Model. What only the checkpoint can check is checked here and reported at the key's place
// in the text: an id outside the vocabulary, a layer or unit that does not exist, a row of the
// wrong length.
//
// Overrides are copy-on-write: a param no override touches is the checkpoint's own object, and an
// overridden one is a copy made once and kept while its overrides stay the same. The engine tells
// params apart by identity (core/engine.ts), so an edit of one override recomputes only the stages
// that read that param and what follows them (an edit in layer 6 leaves layers 0–5 as they were).

import { normOf, PARAM, parseParamId, steerParamId, unitScales } from '../core/ids';
import type { Model } from '../core/model';
import { layerParam } from '../core/paramTable';
import { floatData, outputsInputs, valuesAt, weightIndex, type FloatParam, type Param, type Params } from '../core/params';
import { runTooLarge } from '../core/runSize';
import { quotePath } from '../common/quote';
import type { ModelSpec } from '../core/spec';
import { itemAt, type CheckpointRequest, type UnitRef, type WeightOverride } from '../model/checkpointRequest';
import type { ModelFile } from '../model/read';
import type { CheckpointFacts, PromptTokenizer, ResolvableCheckpoint } from '../model/checkpointFacts';
import type { Problem, ProblemCode } from '../model/problems';
import type { ParamCounts } from '../protocol/stages';
import { sequenceLabels } from '../tokenizer/byteRuns';
import type { LoadedSae } from './saeFiles';
import { SaeAttacher } from './saeResolve';
import { SteerAttacher } from './steerResolve';
import type { MatmulKernel } from '../core/kernel';

export type { CheckpointFacts, PromptTokenizer, ResolvableCheckpoint };

export interface Resolved {
  /** null when an error was found. */
  readonly file: ModelFile | null;
  readonly problems: Problem[];
  /** The input's ids (also when the file gives a prompt), if they were found. */
  readonly ids: readonly number[] | null;
}

interface Cached { readonly base: Param; readonly sig: string; readonly param: Param }

/**
 * Resolves requests against one checkpoint, keeping overridden params between calls (one resolver
 * per document: the params of the last resolve stay the same objects while their overrides do).
 */
export class CheckpointResolver {
  private cache = new Map<string, Cached>();
  private labels: { tok: PromptTokenizer | null; V: number; vocab: string[] } | null = null;
  private readonly saes = new SaeAttacher();
  private readonly steers = new SteerAttacher();

  /** `saes`: the SAEs of `req.saes`, loaded, in order; `kernel`: what a steer's contrast runs on (the one holding the checkpoint's weights). */
  resolve(req: CheckpointRequest, ckpt: ResolvableCheckpoint, tok: PromptTokenizer | null, saes: readonly LoadedSae[] = [], kernel?: MatmulKernel): Resolved {
    const problems: Problem[] = [];
    const error = (code: ProblemCode, at: { start: number; end: number; path: readonly (string | number)[] }, message: string): void => {
      problems.push({ severity: 'error', code, message, path: at.path, start: at.start, end: at.end });
    };

    // the input's ids
    let ids: readonly number[] | null = null;
    if (req.tokenIds) ids = req.tokenIds;
    else if (req.prompt !== null) {
      if (!tok) {
        error('value', req.promptAt!, `"prompt" needs a tokenizer, and ${req.tokenizer ? `${quotePath(req.tokenizer)} did not load` : `the checkpoint ${quotePath(req.folder)} has no tokenizer.json`}: give "tokenizer": "path/to/tokenizer.json", or the input as "token_ids": [ … ]`);
      } else {
        try {
          ids = tok.encode(req.prompt).ids;
          if (ids.length === 0) error('value', req.promptAt!, 'the prompt gives no tokens: write some text');
        } catch (e) {
          // (a tokenizer that fails on this text: said at the prompt, in its own words)
          error('value', req.promptAt!, `the tokenizer cannot encode this prompt: ${libraryText(e)}`);
        }
      }
    }
    if (!ids || ids.length === 0) return { file: null, problems, ids };

    const probe = ckpt.specFor({ ids, temperature: req.temperature, lens: req.lens });
    const V = probe.head?.V ?? 0;
    const bad = ids.findIndex((id) => id >= V);
    if (bad >= 0) {
      if (req.tokenIdsAt) error('value', itemAt(req.tokenIdsAt, bad), `token_ids[${bad}] is ${ids[bad]}, outside the vocabulary: ids go from 0 to ${V - 1}`);
      else error('value', req.promptAt!, `the tokenizer gives id ${ids[bad]}, outside this model's vocabulary of ${V}: is the tokenizer the model's own?`);
    }
    const tooLarge = ckpt.maxPositions !== null && ids.length > ckpt.maxPositions ? null : runTooLarge(probe);
    if (ckpt.maxPositions !== null && ids.length > ckpt.maxPositions) {
      const at = req.tokenIdsAt ?? req.promptAt!;
      error('value', at, `the input has ${ids.length} tokens; this ${ckpt.modelType} model has positions for ${ckpt.maxPositions}`);
    } else if (tooLarge) {
      // (the hard bound, whatever the positions: memory; RoPE models have no other)
      const fit = longestInput(probe);
      error('value', req.tokenIdsAt ?? req.promptAt!, `the input has ${count(ids.length)} tokens; a run of this ${ckpt.modelType} model over them ${tooLarge} (attention keeps heads × tokens × tokens numbers in every layer): ${fit > 0 ? `at most ${count(fit)} tokens fit` : 'not even one token fits'}`);
    } else if (ckpt.trainedPositions && ids.length > ckpt.trainedPositions) {
      // (RoPE computes any position; past the trained ones the model's numbers mean little)
      const at = req.tokenIdsAt ?? req.promptAt!;
      problems.push({ severity: 'warning', code: 'value', message: `the input has ${ids.length} tokens; this ${ckpt.modelType} model was trained on up to ${ckpt.trainedPositions} (max_position_embeddings): the positions past it are computed, but the model never saw them`, path: at.path, start: at.start, end: at.end });
    }
    const gen = req.generate;
    if (gen && ckpt.maxPositions !== null && ids.length <= ckpt.maxPositions && ids.length + gen.tokens - 1 > ckpt.maxPositions) {
      // (the last token generated is not read: input + tokens − 1 positions)
      const fit = ckpt.maxPositions - ids.length + 1;
      problems.push({ severity: 'warning', code: 'value', message: `generate.tokens asks for ${gen.tokens}: after the input's ${ids.length} tokens this ${ckpt.modelType} model has positions for ${fit} more; generation stops there`, path: gen.tokensAt.path, start: gen.tokensAt.start, end: gen.tokensAt.end });
    }
    if (req.tokens && req.tokensAt && req.tokens.length !== ids.length) {
      error('value', req.tokensAt, `tokens has ${req.tokens.length} labels for ${ids.length} tokens of input`);
    }

    const corruptedIds = this.corrupted(req, tok, ids.length, V, error);

    const params = new Map(ckpt.params);
    const attached = this.saes.attach(probe, req.saes ?? [], saes, req.saeEdits ?? [], params, (at, m) => error('value', at, m));
    const used = new Set<string>();
    this.units(attached, req, params, used, error);
    this.overrides(attached, req.weights, ckpt, params, used, error);
    // (last: a contrast runs the model as the file sets it)
    const spec = problems.some((p) => p.severity === 'error') ? attached : this.steers.attach(attached, req.steers ?? [], params, tok, kernel, (at, m) => error('value', at, m), (n) => inputBound(ckpt, probe, n));
    // overrides no longer given are dropped from the cache
    for (const id of [...this.cache.keys()]) if (!used.has(id)) this.cache.delete(id);
    if (problems.some((p) => p.severity === 'error')) return { file: null, problems, ids };

    const model: Model = { spec, params };
    const vocab = this.vocab(tok, V);
    const tokens = req.tokens ?? sequenceLabels(ids, tok, vocab); // (a character split over tokens shown whole in each)
    const first = spec.layers.find((l) => l.ffn)?.ffn;
    const attn = spec.layers.find((l) => l.attention)?.attention;
    const file: ModelFile = {
      name: req.name, tokens, vocab, model, layout: 'out_in',
      dims: { seq: spec.T, dModel: spec.C, dFf: first?.F ?? 0, heads: attn?.NH ?? 0, layers: spec.layers.length, vocab: V },
      paramCounts: countParams(ckpt.params),
      checkpoint: { request: req, source: ckpt, tokenizer: tok, ids, corruptedIds, ...(spec === attached ? {} : { unsteered: unsteeredModel(attached, spec, params) }), ...(saes.length ? { saes } : {}) },
    };
    return { file, problems, ids };
  }

  /**
   * A written-out model's SAEs (its `saes`, `sae_ablate` …: file.saeKeys) attached to its model, as
   * a checkpoint file's are; problems said at their keys. `saes`: loaded, in the order of `saes`.
   */
  attachSaes(file: ModelFile, saes: readonly LoadedSae[]): { file: ModelFile | null; problems: Problem[] } {
    const keys = file.saeKeys;
    if (!keys) return { file, problems: [] };
    const problems: Problem[] = [];
    const params = new Map(file.model.params);
    const spec = this.saes.attach(file.model.spec, keys.saes, saes, keys.edits, params, (at, message) => {
      problems.push({ severity: 'error', code: 'value', message, path: at.path, start: at.start, end: at.end });
    });
    return problems.length ? { file: null, problems } : { file: { ...file, model: { spec, params } }, problems };
  }

  /** The corrupted input's ids: as many as the input's, inside the vocabulary; null when not given or wrong (said). */
  private corrupted(req: CheckpointRequest, tok: PromptTokenizer | null, T: number, V: number, error: (c: ProblemCode, at: { start: number; end: number; path: readonly (string | number)[] }, m: string) => void): readonly number[] | null {
    let ids: readonly number[] | null = req.corruptedIds;
    const at = req.corruptedIdsAt ?? req.corruptedPromptAt;
    if (!at) return null;
    if (!ids && req.corruptedPrompt !== null) {
      if (!tok) {
        error('value', at, '"corrupted_prompt" needs a tokenizer, as "prompt" does: give it as "corrupted_token_ids": [ … ]');
        return null;
      }
      try {
        ids = tok.encode(req.corruptedPrompt).ids;
      } catch (e) {
        error('value', at, `the tokenizer cannot encode this prompt: ${libraryText(e)}`);
        return null;
      }
    }
    if (!ids) return null;
    const key = req.corruptedIdsAt ? 'corrupted_token_ids' : 'corrupted_prompt';
    if (ids.length !== T) {
      error('value', at, `${key} gives ${ids.length} token${ids.length === 1 ? '' : 's'}, the input ${T}: patching compares the two runs position by position, so both need the same number of tokens`);
      return null;
    }
    const bad = ids.findIndex((id) => id >= V);
    if (bad >= 0) {
      error('value', req.corruptedIdsAt ? itemAt(req.corruptedIdsAt, bad) : at, `${key === 'corrupted_token_ids' ? `corrupted_token_ids[${bad}] is ${ids[bad]}` : `the tokenizer gives id ${ids[bad]}`}, outside the vocabulary: ids go from 0 to ${V - 1}`);
      return null;
    }
    return ids;
  }

  /** `ablate` and `scale`: a vector of unit scales per layer and kind, ones where no unit is named. */
  private units(spec: ModelSpec, req: CheckpointRequest, params: Map<string, Param>, used: Set<string>, error: (c: ProblemCode, at: UnitRef['at'], m: string) => void): void {
    // by the scale vector's id, with the size the unit's kind gives it in its layer
    const byParam = new Map<string, { size: number; list: Array<{ index: number; factor: number }> }>();
    const add = (u: UnitRef, factor: number): void => {
      const L = spec.layers[u.layer];
      if (!L) {
        error('value', u.at, `${u.text}: this model has layers 0 to ${spec.layers.length - 1}`);
        return;
      }
      const n = u.kind === 'neuron' ? L.ffn?.F ?? 0 : L.attention?.NH ?? 0;
      if (u.index >= n) {
        error('value', u.at, `${u.text}: layer ${u.layer} has ${u.kind === 'neuron' ? `neurons 0 to ${n - 1}` : `heads 0 to ${n - 1}`}`);
        return;
      }
      const id = unitScales(u.kind, u.layer);
      let entry = byParam.get(id);
      if (!entry) byParam.set(id, (entry = { size: n, list: [] }));
      entry.list.push({ index: u.index, factor });
    };
    for (const u of req.scale) add(u, u.factor);
    for (const u of req.ablate) add(u, 0); // (after the scales: a unit both ablated and scaled is zero)
    for (const [id, { size, list }] of byParam) {
      const sig = list.map((x) => `${x.index}:${x.factor}`).join(',');
      const hit = this.cache.get(id);
      let p = hit && hit.sig === sig && hit.param.shape[0] === size ? hit.param : null;
      if (!p) {
        const data = new Float32Array(size).fill(1);
        for (const x of list) data[x.index] = x.factor;
        p = { data, shape: [size] };
        this.cache.set(id, { base: p, sig, param: p });
      }
      params.set(id, p);
      used.add(id);
    }
  }

  /** `weights`: each overridden param copied once, with its overrides written in. */
  private overrides(spec: ModelSpec, list: readonly WeightOverride[], ckpt: ResolvableCheckpoint, params: Map<string, Param>, used: Set<string>, error: (c: ProblemCode, at: WeightOverride['at'], m: string) => void): void {
    const byParam = new Map<string, WeightOverride[]>();
    for (const w of list) {
      const base = ckpt.params.get(w.param);
      if (!base) {
        const { layer, kind } = parseParamId(w.param);
        if (layer >= spec.layers.length) error('value', w.at, `${w.text}: this model has layers 0 to ${spec.layers.length - 1}`);
        else error('value', w.at, `${w.text}: this ${ckpt.modelType} checkpoint has no ${w.param}${isBias(kind) ? ' (it has no such bias)' : ''}`);
        continue;
      }
      const g = geometry(base);
      const what = g.rows === null ? `${w.param} has ${g.cols} numbers` : `${w.param} is [${g.rows}, ${g.cols}] (out, in)`;
      if (g.rows !== null) {
        if (w.row === null || w.row >= g.rows) { error('value', w.at, `${w.text}: row ${w.row} is outside; ${what}`); continue; }
        if (w.col !== null ? w.col >= g.cols : w.values.length !== g.cols) {
          error('value', w.at, w.col !== null ? `${w.text}: column ${w.col} is outside; ${what}` : `${w.text} has ${w.values.length} numbers; a row of ${w.param} has ${g.cols}`);
          continue;
        }
      } else if (w.row !== null ? w.row >= g.cols : w.values.length !== g.cols) {
        error('value', w.at, w.row !== null ? `${w.text}: index ${w.row} is outside; ${what}` : `${w.text} has ${w.values.length} numbers; ${what}`);
        continue;
      }
      let l = byParam.get(w.param);
      if (!l) byParam.set(w.param, (l = []));
      l.push(w);
    }
    for (const [id, ws] of byParam) {
      const base = ckpt.params.get(id)!;
      const sig = ws.map((w) => `${w.row}|${w.col}|${Array.from(w.values).join(',')}`).join(';');
      const hit = this.cache.get(id);
      let p = hit && hit.base === base && hit.sig === sig ? hit.param : null;
      if (!p) {
        // (copy on write; an edit of a 16-bit matrix holds that one matrix as float32 from then on)
        const edited: FloatParam = { shape: base.shape, layout: base.layout, data: base.half ? floatData(base) : base.data.slice() };
        for (const w of ws) write(edited, w);
        this.cache.set(id, { base, sig, param: edited });
        p = edited;
      }
      params.set(id, p); // (a tied head keeps the checkpoint's object: an embed[t] override changes the input only)
      used.add(id);
    }
  }

  /** A label per vocabulary id, made once per tokenizer. */
  private vocab(tok: PromptTokenizer | null, V: number): string[] {
    if (this.labels && this.labels.tok === tok && this.labels.V === V) return this.labels.vocab;
    const vocab = Array.from({ length: V }, (_, id) => (tok ? tok.label(id) : `#${id}`));
    this.labels = { tok, V, vocab };
    return vocab;
  }
}

/** The model without its steers: the spec before them, the params but their vectors (the same objects). */
function unsteeredModel(unsteered: ModelSpec, steered: ModelSpec, params: ReadonlyMap<string, Param>): Model {
  const vectors = new Set((steered.steers ?? []).map((s) => steerParamId(s.site)));
  return { spec: unsteered, params: new Map([...params].filter(([id]) => !vectors.has(id))) };
}

/** Why a run of this checkpoint's model over `n` tokens cannot be made (its positions, the memory its stages take), or null. */
function inputBound(ckpt: ResolvableCheckpoint, probe: ModelSpec, n: number): string | null {
  if (ckpt.maxPositions !== null && n > ckpt.maxPositions) return `this ${ckpt.modelType} model has positions for ${ckpt.maxPositions}`;
  const why = runTooLarge({ ...probe, T: n });
  return why && `a run of this model over them ${why}`;
}

/** The most tokens a run of `spec`'s model can take (runTooLarge says nothing against it); 0 if none. */
function longestInput(spec: ModelSpec): number {
  let lo = 0;
  let hi = spec.T;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (runTooLarge({ ...spec, T: mid }) === null) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** A library's error, after our words: its first line, cut short (its text may quote the whole input). */
function libraryText(e: unknown): string {
  const m = (e instanceof Error ? e.message : String(e)).split('\n')[0];
  return m.length > 200 ? `${m.slice(0, 200)}…` : m;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** A bias or a norm's shift (a checkpoint may have none): by the param table, and the final norm's β. */
function isBias(kind: string): boolean {
  const role = kind === PARAM.lnFBeta ? 'shift' : layerParam(kind)?.role;
  return role === 'bias' || role === 'shift';
}

/** A param in out_in terms: rows = outputs (null for a vector), cols = inputs. */
function geometry(p: Param): { rows: number | null; cols: number } {
  if (p.shape.length === 1) return { rows: null, cols: p.shape[0] };
  const [rows, cols] = outputsInputs(p);
  return { rows, cols };
}

/**
 * Where in `p.data` override `w` goes, value by value (an out_in row is a column of an in_out
 * matrix, a column of a panel of a 'panels' one).
 */
function overrideIndices(p: Param, w: WeightOverride): number[] {
  if (p.shape.length === 1) return w.row !== null ? [w.row] : Array.from({ length: w.values.length }, (_, i) => i);
  const [N, K] = outputsInputs(p);
  const at = (r: number, c: number): number => weightIndex(p.layout, c, r, K, N);
  const r = w.row!;
  return w.col !== null ? [at(r, w.col)] : Array.from({ length: w.values.length }, (_, c) => at(r, c));
}

/** The numbers of `p` at the place override `w` writes (a checkpoint's own, before the override). */
export function overriddenValues(p: Param, w: WeightOverride): Float32Array {
  return valuesAt(p, overrideIndices(p, w));
}

/** Writes one override into `p`. */
function write(p: FloatParam, w: WeightOverride): void {
  overrideIndices(p, w).forEach((i, k) => (p.data[i] = w.values[k]));
}

function countParams(params: Params): ParamCounts {
  const counts = { attention: 0, ffn: 0, norm: 0, head: 0 };
  const seen = new Set<Param>();
  let total = 0;
  for (const [id, p] of params) {
    if (seen.has(p)) continue; // (a tied head is counted once, with the embedding)
    seen.add(p);
    const n = p.shape.reduce((a, b) => a * b, 1); // (not data.length: panels are padded)
    total += n;
    const part = partOf(id);
    if (part) counts[part] += n;
  }
  return { ...counts, total };
}

/** The part of the model a param counts in (the embedding in none but the total). */
function partOf(id: string): 'attention' | 'ffn' | 'norm' | 'head' | null {
  const { layer, kind } = parseParamId(id);
  if (layer >= 0) {
    const row = layerParam(kind);
    return !row ? null : row.sub === 'attention' ? 'attention' : row.sub === 'ffn' ? 'ffn' : 'norm';
  }
  if (normOf(id) !== null) return 'norm';
  return id === PARAM.headW || id === PARAM.headB ? 'head' : null;
}
