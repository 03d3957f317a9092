// Reads a model file: text -> checked, shaped weights for the core, or every problem found.
// Problems are gathered, not just the first, each with its JSON path and offsets; the reader
// never throws (an unexpected failure becomes one 'internal' problem).

import { isGated, type Activation } from '../core/activation';
import type { Model } from '../core/model';
import type { Param } from '../core/params';
import { runTooLarge } from '../core/runSize';
import { DEFAULT_EPS, type Layout, type ModelSpec, type Norm } from '../core/spec';
import { isMatrixParam, parseTarget, parseUnit, TARGET_FORMS, type At, type CheckpointRequest, type UnitRef, type WeightOverride } from './checkpointRequest';
import {
  ATTENTION_FIELDS, CHECKPOINT_FIELDS, FFN_FIELDS, HEAD_FIELDS, LAYER_FIELDS, LAYERNORM_FIELDS, MODEL_FIELDS, nearestKey, type Fields,
} from './format';
import {
  FLOAT32_OVERFLOW, parseJsonc, sourceSlice, type ArrayNode, type Source, type JsonNode, type NumbersNode, type ObjectNode, type ParsedJson, type PropertyNode,
} from './jsonc';
import type { ParamCounts } from '../core/paramCounts';
import type { CheckpointFacts } from '../checkpoint/resolve';
import { pathAt } from './pathAt';
import { quote } from '../shared/quote';
import { formatFloat32 } from '../shared/float32';
import { formatPath, type PathSegment, type Problem, type ProblemCode, type Severity } from './problems';
import type { FixHint } from '../protocol/edits';

export interface ModelDims {
  readonly seq: number;
  readonly dModel: number;
  /** d_ff of the first layer that has an FFN, 0 if none. */
  readonly dFf: number;
  /** heads of the first layer that has attention, 0 if none. */
  readonly heads: number;
  readonly layers: number;
  /** 0 without a head. */
  readonly vocab: number;
}

export interface ModelFile {
  readonly name: string;
  readonly tokens: readonly string[];
  readonly vocab: readonly string[];
  /** What the core computes: the spec and the params (views into the parse's arena). */
  readonly model: Model;
  /** How the file stores its matrices. */
  readonly layout: Layout;
  readonly dims: ModelDims;
  readonly paramCounts: ParamCounts;
  /** A file that names a checkpoint: what it asked for and what answered (src/checkpoint/resolve.ts). */
  readonly checkpoint?: CheckpointFacts;
}

export interface ReadResult {
  /** null when any error was found. */
  readonly model: ModelFile | null;
  readonly problems: Problem[];
  readonly json: ParsedJson;
  /**
   * What each row of numbers in the text is in the model, as the reader found it: an edit inside
   * a row is mapped through this, never by turning an offset back into a path (incremental.ts).
   * Rows the model does not use (an unknown key's numbers) are not in it.
   */
  readonly rows: ReadonlyMap<NumbersNode, RowBinding>;
  /**
   * A model file that points at a checkpoint: what it asks for (`model` is then null until the
   * worker has read the checkpoint: src/checkpoint/resolve.ts).
   */
  readonly checkpoint: CheckpointRequest | null;
  /** Where each param the file gives stands (its matrix or vector): node and JSON path, by param id. */
  readonly paramNodes: ReadonlyMap<string, { readonly node: JsonNode; readonly path: readonly PathSegment[] }>;
}

/**
 * Row `row` of parameter `param` (`layers.0.ffn.W1`, `input`, `head.b`: the ids of the
 * `weights` overrides, without an index), as the file stores it; the model holds its numbers at
 * data[at … at + length), a view into the parse's arena or, for a matrix read the slow way, a copy.
 */
export interface RowBinding {
  readonly param: string;
  /** A row of a matrix, or a whole vector (row 0: its elements are what an edit changes). */
  readonly vector: boolean;
  readonly row: number;
  readonly data: Float32Array;
  readonly at: number;
}

// What the reader gathers of each part before it hands the core a Model (toModel).
type Positional = 'none' | 'sinusoidal';
interface LayerNormWeights { readonly gamma: Float32Array | null; readonly beta: Float32Array | null; readonly eps: number }
interface AttentionWeights {
  readonly heads: number;
  readonly causal: boolean;
  readonly Wq: Float32Array | null; readonly bq: Float32Array | null;
  readonly Wk: Float32Array | null; readonly bk: Float32Array | null;
  readonly Wv: Float32Array | null; readonly bv: Float32Array | null;
  readonly Wo: Float32Array | null; readonly bo: Float32Array | null;
}
interface FfnWeights {
  readonly activation: Activation;
  readonly F: number;
  readonly W1: Float32Array; readonly b1: Float32Array | null;
  readonly Wg: Float32Array | null; readonly bg: Float32Array | null;
  readonly W2: Float32Array; readonly b2: Float32Array | null;
}
interface LayerWeights { readonly attention: AttentionWeights | null; readonly ffn: FfnWeights | null; readonly ln1: LayerNormWeights; readonly ln2: LayerNormWeights }
interface HeadWeights { readonly V: number; readonly W: Float32Array; readonly b: Float32Array | null; readonly temperature: number }
const DEFAULT_LAYERNORM: LayerNormWeights = { gamma: null, beta: null, eps: DEFAULT_EPS };

interface Read {
  readonly T: number;
  readonly C: number;
  readonly layout: Layout;
  readonly input: Float32Array;
  readonly positional: Positional;
  readonly residual: boolean;
  readonly norm: Norm;
  readonly layers: readonly LayerWeights[];
  readonly finalNorm: boolean;
  readonly lnF: LayerNormWeights;
  readonly head: HeadWeights | null;
}

/** The spec and params of what was read, under the core's param ids (src/core/params.ts). */
function toModel(w: Read): Model {
  const params = new Map<string, Param>();
  const mat = (id: string, data: Float32Array | null, out: number, inp: number): void => {
    if (data) params.set(id, { data, shape: w.layout === 'out_in' ? [out, inp] : [inp, out], layout: w.layout });
  };
  const vec = (id: string, data: Float32Array | null): void => {
    if (data) params.set(id, { data, shape: [data.length] });
  };
  params.set('input', { data: w.input, shape: [w.T, w.C] });
  const eps = new Map<string, number>();
  const ln = (id: string, n: LayerNormWeights): void => {
    vec(`${id}.gamma`, n.gamma);
    vec(`${id}.beta`, n.beta);
    eps.set(id, n.eps);
  };
  w.layers.forEach((l, i) => {
    const p = `layers.${i}.`;
    const a = l.attention;
    if (a) {
      for (const k of ['q', 'k', 'v', 'o'] as const) {
        mat(`${p}attn.W${k}`, a[`W${k}`], w.C, w.C);
        vec(`${p}attn.b${k}`, a[`b${k}`]);
      }
    }
    const f = l.ffn;
    if (f) {
      mat(`${p}ffn.W1`, f.W1, f.F, w.C);
      vec(`${p}ffn.b1`, f.b1);
      mat(`${p}ffn.Wg`, f.Wg, f.F, w.C);
      vec(`${p}ffn.bg`, f.bg);
      mat(`${p}ffn.W2`, f.W2, w.C, f.F);
      vec(`${p}ffn.b2`, f.b2);
    }
    ln(`${p}ln1`, l.ln1);
    ln(`${p}ln2`, l.ln2);
  });
  ln('ln_f', w.lnF);
  if (w.head) {
    mat('head.W', w.head.W, w.head.V, w.C);
    vec('head.b', w.head.b);
  }
  const spec: ModelSpec = {
    T: w.T, C: w.C, embedding: { kind: 'vectors', positional: w.positional }, norm: w.norm, normKind: 'layernorm', eps,
    residual: w.residual, finalNorm: w.finalNorm, head: w.head && { V: w.head.V, temperature: w.head.temperature }, lens: false,
    layers: w.layers.map((l) => ({
      attention: l.attention && { NH: l.attention.heads, KVH: l.attention.heads, HS: w.C / l.attention.heads, causal: l.attention.causal, rope: null },
      ffn: l.ffn && { F: l.ffn.F, activation: l.ffn.activation },
    })),
  };
  return { spec, params };
}

/** A checked matrix as the file stores it: rows × cols. */
interface Mat { readonly rows: number; readonly cols: number; readonly data: Float32Array; readonly node: JsonNode }
interface Vec { readonly length: number; readonly data: Float32Array; readonly node: JsonNode }

const MAX_ELEMENT_PROBLEMS = 12;
/** The largest token id read: float32 (how vectors are read) holds every whole number below 2^24 exactly (16777217 would read as 2^24). */
const MAX_TOKEN_ID = 2 ** 24 - 1;

function describe(node: JsonNode): string {
  switch (node.kind) {
    case 'object': return 'an object';
    case 'array': return node.items.length === 0 ? 'an empty array' : 'an array';
    case 'numbers': return 'an array of numbers';
    case 'number': return `the number ${node.value}`;
    case 'string': return `the string ${quote(node.value, 24)}`;
    case 'boolean': return String(node.value);
    case 'null': return 'null';
    case 'nonfinite': return notJsonNumber(node.text);
    case 'invalid': return node.text ? quote(node.text) : 'nothing';
  }
}

/**
 * A NaN or Infinity the file holds, named as the file's word, not as a value we computed (so it
 * never reads like one of our own NaNs): "NaN, which is not a number JSON allows".
 */
function notJsonNumber(word: string): string {
  return `${word}, which is not a number JSON allows`;
}

/** Whether a value holds weights: an array of numbers, or an array or object with one inside. */
function holdsNumbers(node: JsonNode): boolean {
  if (node.kind === 'numbers') return true;
  if (node.kind === 'array') return node.items.some((x) => x.kind === 'number' || holdsNumbers(x));
  if (node.kind === 'object') return node.props.some((p) => p.value !== null && holdsNumbers(p.value));
  return false;
}

/** The file name without folders and without .ffn.json / .json. */
export function defaultModelName(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(/\.ffn\.jsonc?$/i, '').replace(/\.jsonc?$/i, '') || base;
}

class Reader {
  readonly problems: Problem[] = [];
  private readonly json: ParsedJson;
  private readonly rows = new Map<NumbersNode, RowBinding>();
  private readonly paramNodes = new Map<string, { node: JsonNode; path: readonly PathSegment[] }>();
  private layout: Layout = 'out_in';
  /** Non-square matrices: how many fit the current layout, how many fit only the other. */
  private fitCurrent = 0;
  private fitOtherOnly = 0;
  private readonly layoutProblems: number[] = [];

  constructor(private readonly text: Source, private readonly fileName: string) {
    this.json = parseJsonc(text);
  }

  result(model: ModelFile | null, checkpoint: CheckpointRequest | null = null): ReadResult {
    // In file order, as a reader of the file meets them (sort is stable for ties).
    this.problems.sort((a, b) => a.start - b.start);
    return { model, problems: this.problems, json: this.json, rows: this.rows, paramNodes: this.paramNodes, checkpoint };
  }

  private report(severity: Severity, code: ProblemCode, path: readonly PathSegment[], at: { start: number; end: number }, message: string, fix?: FixHint): void {
    // A value with a syntax slip inside was read as well as could be: what it then seems to hold
    // (3 numbers where the user wrote 2 and a missing comma) would only be a second, false error.
    if (code !== 'syntax' && this.json.errors.some((e) => e.start >= at.start && e.start < at.end)) return;
    const p: Problem = fix ? { severity, code, message, path: [...path], start: at.start, end: at.end, fix } : { severity, code, message, path: [...path], start: at.start, end: at.end };
    this.problems.push(p);
  }
  private error(code: ProblemCode, path: readonly PathSegment[], at: { start: number; end: number }, message: string, fix?: FixHint): void {
    this.report('error', code, path, at, message, fix);
  }
  private warn(code: ProblemCode, path: readonly PathSegment[], at: { start: number; end: number }, message: string, fix?: FixHint): void {
    this.report('warning', code, path, at, message, fix);
  }
  private hasErrors(): boolean {
    return this.problems.some((p) => p.severity === 'error');
  }

  read(): ReadResult {
    // a syntax error is placed by the value it sits in, as far as the text around it could be read
    for (const e of this.json.errors) this.error('syntax', syntaxPath(pathAt(this.text, this.json.root, e.start)?.path ?? []), e, e.message);
    const root = this.json.root;
    // After a syntax slip the tree is a guess (a lost ] makes the next key a string in an array):
    // checking it would only report things that are not there. The slips alone, then.
    if (!root || this.json.errors.length) return this.result(null);
    if (root.kind !== 'object') {
      this.error('type', [], root, `a model file is a JSON object ({ "version": 1, "input": …, "ffn": … }), found ${describe(root)}`);
      return this.result(null);
    }
    if (root.props.some((p) => p.key === 'checkpoint')) return this.readCheckpoint(root);
    const top = this.fields(root, [], MODEL_FIELDS);

    // version
    const version = top.get('version');
    if (!version) this.error('missing', ['version'], { start: root.start, end: root.start + 1 }, 'version is required: add "version": 1');
    else if (version.value && !(version.value.kind === 'number' && version.value.value === 1)) {
      this.error('value', ['version'], version.value, `version must be 1 (this reader knows format version 1), found ${describe(version.value)}`);
    }

    const name = this.string(top.get('name'), ['name']) ?? defaultModelName(this.fileName);
    this.layout = this.enumValue(top.get('layout'), ['layout'], ['out_in', 'in_out'], 'out_in') as Layout;
    const positional = this.enumValue(top.get('positional'), ['positional'], ['none', 'sinusoidal'], 'none') as Positional;
    const residual = this.bool(top.get('residual'), ['residual'], false);
    const norm = this.enumValue(top.get('norm'), ['norm'], ['none', 'post', 'pre'], 'none') as Norm;
    const finalNorm = this.bool(top.get('final_norm'), ['final_norm'], false);

    // input: fixes T and C, which every other shape is checked against
    const inputProp = top.get('input');
    let input: Mat | null = null;
    if (!inputProp) this.error('missing', ['input'], { start: root.start, end: root.start + 1 }, 'input is required: the token vectors, one row per token, e.g. "input": [[1, 0, 1.5], [0, 1, 0]]');
    else if (inputProp.value) input = this.matrix(inputProp.value, ['input'], 'input', 'input');
    const T = input?.rows ?? 0;
    const C = input?.cols ?? 0;
    const dims = input ? { T, C } : null;

    // tokens
    let tokens: string[] = Array.from({ length: T }, (_, i) => `t${i}`);
    const tokensProp = top.get('tokens');
    if (tokensProp?.value) {
      const list = this.strings(tokensProp.value, ['tokens']);
      if (list && dims && list.length !== T) {
        this.error('tokens-length', ['tokens'], tokensProp.value, `tokens has ${list.length} label${list.length === 1 ? '' : 's'} but input has ${T} row${T === 1 ? '' : 's'}: give one label per input row`, { kind: 'tokens-length', expected: T });
      } else if (list) tokens = list;
    }

    // layers: either the list or the single-layer shorthand, not both
    const shorthandKeys = ['attention', 'ffn', 'ln1', 'ln2'].filter((k) => top.has(k));
    const layersProp = top.get('layers');
    const layers: LayerWeights[] = [];
    const counts = { attention: 0, ffn: 0, norm: 0, head: 0 };
    if (layersProp && shorthandKeys.length > 0) {
      const p = top.get(shorthandKeys[0])!;
      this.error('value', [shorthandKeys[0]], { start: p.keyStart, end: p.keyEnd }, `use either "layers" or the single-layer shorthand (${shorthandKeys.join(', ')} at the top level), not both: move "${shorthandKeys[0]}" into a layer`);
    }
    if (!layersProp && shorthandKeys.length === 0) {
      this.error('missing', [], { start: root.start, end: root.start + 1 }, 'a model needs at least one of "ffn", "attention" or "layers"');
    }
    if (layersProp?.value) {
      const v = layersProp.value;
      if (v.kind !== 'array') this.error('type', ['layers'], v, `layers must be an array of layer objects, found ${describe(v)}`);
      else {
        if (v.items.length === 0) this.warn('value', ['layers'], v, 'layers is empty: the output is the input');
        v.items.forEach((item, i) => {
          const path: PathSegment[] = ['layers', i];
          if (item.kind !== 'object') {
            this.error('type', path, item, `each layer is an object with "attention", "ffn", "ln1", "ln2"; found ${describe(item)}`);
            return;
          }
          const f = this.fields(item, path, LAYER_FIELDS);
          if (f.size === 0) this.warn('value', path, item, `layer ${i} is empty: it has neither "attention" nor "ffn"`);
          const layer = this.layer(f, path, `layers.${i}.`, dims, norm, counts);
          if (layer) layers.push(layer);
        });
      }
    } else if (shorthandKeys.length > 0) {
      const layer = this.layer(top, [], 'layers.0.', dims, norm, counts);
      if (layer) layers.push(layer);
    }

    // final norm
    let lnF: LayerNormWeights = DEFAULT_LAYERNORM;
    const lnFProp = top.get('ln_f');
    if (lnFProp?.value) {
      lnF = this.layernorm(lnFProp.value, ['ln_f'], 'ln_f', dims, counts, finalNorm) ?? DEFAULT_LAYERNORM;
      if (!finalNorm) this.warn('unused', ['ln_f'], { start: lnFProp.keyStart, end: lnFProp.keyEnd }, 'ln_f is not applied because final_norm is false: set "final_norm": true to use it');
    }
    if (finalNorm && norm !== 'pre') {
      const p = top.get('final_norm')!;
      this.warn('value', ['final_norm'], { start: p.keyStart, end: p.keyEnd }, `final_norm is meant for norm "pre" (as GPT-2); with norm "${norm}" the output is normalized once more`);
    }

    // head
    let head: HeadWeights | null = null;
    let vocab: string[] = [];
    const headProp = top.get('head');
    if (headProp?.value) {
      const h = this.head(headProp.value, ['head'], dims, counts);
      if (h) ({ head, vocab } = h);
    }

    this.finishLayoutHints();
    if (this.hasErrors() || !input || !dims) return this.result(null);

    const firstFfn = layers.find((l) => l.ffn)?.ffn;
    const firstAttn = layers.find((l) => l.attention)?.attention;
    const paramCounts: ParamCounts = { ...counts, total: counts.attention + counts.ffn + counts.norm + counts.head };
    const model = toModel({ T, C, layout: this.layout, input: input.data, positional, residual, norm, layers, finalNorm, lnF, head });
    // (a few characters per layer and per row can ask for more than the machine has: attention keeps heads·T·T numbers a layer)
    const tooLarge = runTooLarge(model.spec);
    if (tooLarge) {
      this.error('value', ['input'], inputProp!.value!, `input has ${T} rows; a run of this model over them ${tooLarge} (attention keeps heads × rows × rows numbers in every layer): give fewer rows or fewer layers`);
      return this.result(null);
    }
    return this.result({
      name, tokens, vocab, model, layout: this.layout, paramCounts,
      dims: { seq: T, dModel: C, dFf: firstFfn?.F ?? 0, heads: firstAttn?.heads ?? 0, layers: layers.length, vocab: head?.V ?? 0 },
    });
  }

  // --- a model file that points at a checkpoint ------------------------------------------------

  private readCheckpoint(root: ObjectNode): ReadResult {
    const inline = ['input', 'attention', 'ffn', 'ln1', 'ln2', 'layers', 'ln_f', 'head', 'layout', 'residual', 'norm', 'positional', 'final_norm'];
    const known: Fields = { ...CHECKPOINT_FIELDS, ...Object.fromEntries(inline.map((k) => [k, MODEL_FIELDS[k]])) };
    const top = this.fields(root, [], known);
    const at = (p: PropertyNode | undefined, path: PathSegment[]): At => (p?.value
      ? { start: p.value.start, end: p.value.end, path, ...(p.value.kind === 'array' || p.value.kind === 'numbers' ? { items: this.itemSpans(p.value) } : {}) }
      : { start: root.start, end: root.start + 1, path });
    for (const k of inline) {
      const p = top.get(k);
      if (p) this.error('value', [k], { start: p.keyStart, end: p.keyEnd }, `"${k}" cannot be used with "checkpoint": the checkpoint's config.json decides the model. Remove "${k}" (or "checkpoint", to write the model out here)`);
    }
    const version = top.get('version');
    if (!version) this.error('missing', ['version'], { start: root.start, end: root.start + 1 }, 'version is required: add "version": 1');
    else if (version.value && !(version.value.kind === 'number' && version.value.value === 1)) {
      this.error('value', ['version'], version.value, `version must be 1 (this reader knows format version 1), found ${describe(version.value)}`);
    }
    const name = this.string(top.get('name'), ['name']) ?? defaultModelName(this.fileName);
    const folderProp = top.get('checkpoint')!;
    const folder = this.string(folderProp, ['checkpoint']);
    if (folder === '') this.error('value', ['checkpoint'], folderProp.value!, 'checkpoint is empty: give the folder of a Hugging Face model, e.g. "./gpt2"');
    const tokenizerProp = top.get('tokenizer');
    const tokenizer = this.string(tokenizerProp, ['tokenizer']) ?? null;
    const promptProp = top.get('prompt');
    const prompt = this.string(promptProp, ['prompt']) ?? null;
    const idsProp = top.get('token_ids');
    let tokenIds: number[] | null = null;
    if (idsProp?.value) tokenIds = this.integers(idsProp.value, ['token_ids']);
    if (promptProp && idsProp) this.error('value', ['token_ids'], { start: idsProp.keyStart, end: idsProp.keyEnd }, 'use either "prompt" or "token_ids", not both');
    if (!promptProp && !idsProp) this.error('missing', [], { start: folderProp.keyStart, end: folderProp.keyEnd }, 'a checkpoint model file needs its input: "prompt": "some text" (tokenized with the tokenizer), or "token_ids": [1, 2, 3]');
    if (tokenIds && tokenIds.length === 0) this.error('value', ['token_ids'], idsProp!.value!, 'token_ids is empty: give at least one token id');
    if (prompt === '') this.error('value', ['prompt'], promptProp!.value!, 'prompt is empty: give some text to tokenize');
    const tokensProp = top.get('tokens');
    const tokens = tokensProp?.value ? this.strings(tokensProp.value, ['tokens']) : null;
    const ablate = this.units(top.get('ablate'));
    const scale = this.scales(top.get('scale'));
    const weights = this.overrides(top.get('weights'));
    const temperature = this.number(top.get('temperature'), ['temperature'], { above: 0 }, 1);
    const lens = this.bool(top.get('lens'), ['lens'], false);
    const cpProp = top.get('corrupted_prompt');
    const corruptedPrompt = this.string(cpProp, ['corrupted_prompt']) ?? null;
    const ciProp = top.get('corrupted_token_ids');
    const corruptedIds = ciProp?.value ? this.integers(ciProp.value, ['corrupted_token_ids']) : null;
    if (cpProp && ciProp) this.error('value', ['corrupted_token_ids'], { start: ciProp.keyStart, end: ciProp.keyEnd }, 'use either "corrupted_prompt" or "corrupted_token_ids", not both');
    if (this.hasErrors() || folder === undefined) return this.result(null);
    return this.result(null, {
      name, folder, folderAt: at(folderProp, ['checkpoint']),
      tokenizer, tokenizerAt: tokenizerProp ? at(tokenizerProp, ['tokenizer']) : null,
      prompt, promptAt: promptProp ? at(promptProp, ['prompt']) : null,
      tokenIds, tokenIdsAt: idsProp ? at(idsProp, ['token_ids']) : null,
      tokens, tokensAt: tokensProp ? at(tokensProp, ['tokens']) : null,
      ablate, scale, weights, temperature, lens,
      corruptedPrompt, corruptedPromptAt: cpProp ? at(cpProp, ['corrupted_prompt']) : null,
      corruptedIds, corruptedIdsAt: ciProp ? at(ciProp, ['corrupted_token_ids']) : null,
    });
  }

  /** Where each item of an array stands (a packed array of numbers: found again in its source). */
  private itemSpans(node: JsonNode): ReadonlyArray<{ start: number; end: number }> | undefined {
    if (node.kind === 'array') return node.items;
    if (node.kind === 'numbers') return numberSpans(sourceSlice(this.text, node.start, node.end), node.start);
    return undefined;
  }

  /** Token ids are read as float32 (the vector reader's): exact up to 2^24, far past any vocabulary. */
  private integers(node: JsonNode, path: readonly PathSegment[]): number[] | null {
    const v = this.vector(node, path);
    if (!v) return null;
    const bad = Array.from(v.data).findIndex((x) => !Number.isInteger(x) || x < 0 || x > MAX_TOKEN_ID);
    if (bad >= 0) {
      // (quoted as written: the numbers were read as float32, which rounds 1e20 to 100000002004087730000)
      const item = this.itemSpans(node)?.[bad];
      const x = v.data[bad];
      const found = item ? oneLine(sourceSlice(this.text, item.start, item.end)) : x > MAX_TOKEN_ID ? `a number above ${MAX_TOKEN_ID}` : formatFloat32(x);
      // (the vocabulary is the checkpoint's, checked once it is read: here only what no id can be)
      const what = x > MAX_TOKEN_ID ? `a token id, at most ${MAX_TOKEN_ID}` : 'a token id (a whole number, 0 or more)';
      this.error('value', [...path, bad], item ?? node, `${formatPath([...path, bad])} must be ${what}, found ${found}`);
      return null;
    }
    return Array.from(v.data);
  }

  /** `ablate`: a list of units. */
  private units(p: PropertyNode | undefined): UnitRef[] {
    if (!p?.value) return [];
    const list = this.strings(p.value, ['ablate']);
    if (!list || p.value.kind !== 'array') return [];
    const out: UnitRef[] = [];
    list.forEach((text, i) => {
      const item = (p.value as ArrayNode).items[i];
      const u = parseUnit(text);
      if (!u) {
        this.error('value', ['ablate', i], item, `ablate[${i}] is ${quote(text)}: a unit is "layers.i.ffn.neuron.j" (neuron j of layer i's FFN) or "layers.i.attn.head.h" (head h of layer i's attention)`);
        return;
      }
      out.push({ ...u, text, at: { start: item.start, end: item.end, path: ['ablate', i] } });
    });
    return out;
  }

  /** `scale`: { unit: factor }. */
  private scales(p: PropertyNode | undefined): Array<UnitRef & { factor: number }> {
    if (!p?.value) return [];
    if (p.value.kind !== 'object') {
      this.error('type', ['scale'], p.value, `scale must be an object of units and factors, e.g. { "layers.0.ffn.neuron.3": 2.5 }, found ${describe(p.value)}`);
      return [];
    }
    const out: Array<UnitRef & { factor: number }> = [];
    for (const q of p.value.props) {
      const path: PathSegment[] = ['scale', q.key];
      const u = parseUnit(q.key);
      if (!u) {
        this.error('value', path, { start: q.keyStart, end: q.keyEnd }, `${quote(q.key)} is not a unit: a unit is "layers.i.ffn.neuron.j" or "layers.i.attn.head.h"`);
        continue;
      }
      const factor = this.number(q, path, { float32: true }, NaN);
      if (Number.isNaN(factor)) continue;
      out.push({ ...u, factor, text: q.key, at: { start: q.keyStart, end: q.end, path } });
    }
    return out;
  }

  /** `weights`: { target: number or numbers }. */
  private overrides(p: PropertyNode | undefined): WeightOverride[] {
    if (!p?.value) return [];
    if (p.value.kind !== 'object') {
      this.error('type', ['weights'], p.value, `weights must be an object of targets and values, e.g. { "layers.0.ffn.W1[3]": [ … ] }, found ${describe(p.value)}`);
      return [];
    }
    const out: WeightOverride[] = [];
    for (const q of p.value.props) {
      const path: PathSegment[] = ['weights', q.key];
      const t = parseTarget(q.key);
      const keyAt = { start: q.keyStart, end: q.keyEnd };
      if (!t) {
        this.error('value', path, keyAt, `${quote(q.key)} is not a weight the format can override; the forms are ${TARGET_FORMS}`);
        continue;
      }
      if (!q.value) continue;
      const matrix = isMatrixParam(t.param);
      const one = matrix ? t.col !== null : t.row !== null;
      if (matrix && t.row === null) {
        this.error('value', path, keyAt, `${quote(q.key)} names a whole matrix: override a row ("${t.param}[3]") or one number ("${t.param}[3][5]")`);
        continue;
      }
      if (!matrix && t.col !== null) {
        this.error('value', path, keyAt, `${quote(q.key)}: ${t.param} is a vector: one index at most ("${t.param}[3]")`);
        continue;
      }
      let values: Float32Array | null = null;
      if (one) {
        const v = this.number(q, path, { float32: true }, NaN);
        if (!Number.isNaN(v)) values = new Float32Array([v]);
      } else {
        values = this.vector(q.value, path)?.data ?? null;
      }
      if (!values) continue;
      out.push({ ...t, values, text: q.key, at: { start: q.keyStart, end: q.end, path } });
    }
    return out;
  }

  // --- objects and scalars -------------------------------------------------------------------

  /**
   * The properties of an object, checked against the format (unknown and duplicate keys). An
   * unknown key holding numbers (a misspelled "attention", "W1", "layers") is more than noise: its
   * weights are silently left out of the model, so it is reported as such ('ignored-weights'),
   * which the panel shows in its banner, not only in the Problems panel.
   */
  private fields(node: ObjectNode, path: readonly PathSegment[], spec: Fields): Map<string, PropertyNode> {
    const out = new Map<string, PropertyNode>();
    const valid = Object.keys(spec);
    const where = path.length ? formatPath(path) : 'the top level';
    for (const p of node.props) {
      const at = { start: p.keyStart, end: p.keyEnd };
      if (out.has(p.key)) {
        this.warn('duplicate-key', [...path, p.key], at, `${quote(p.key)} appears twice in ${where}; the last one counts`);
      }
      if (!(p.key in spec)) {
        const near = nearestKey(p.key, valid);
        const fix: FixHint | undefined = near ? { kind: 'rename-key', to: near } : undefined;
        const key = `unknown key ${quote(p.key)} in ${where}`;
        if (near && EDIT_KEYS.has(near)) {
          // (a misspelled experiment runs the model as it is: a result that looks valid but is not)
          this.warn('ignored-edit', [...path, p.key], at, `${key}: did you mean "${near}"? It is not applied: the model is computed without it`, fix);
        } else if (p.value && holdsNumbers(p.value)) {
          this.warn('ignored-weights', [...path, p.key], at,
            near ? `${key}: did you mean "${near}"? Its weights are not used: the model is computed without them`
              : `${key}: its weights are not used, the model is computed without them (expected one of: ${valid.join(', ')})`, fix);
        } else {
          this.warn('unknown-key', [...path, p.key], at,
            near ? `${key}: did you mean "${near}"?` : `${key}; it is ignored (expected one of: ${valid.join(', ')})`, fix);
        }
        continue;
      }
      out.set(p.key, p);
    }
    return out;
  }

  private bool(p: PropertyNode | undefined, path: readonly PathSegment[], dflt: boolean): boolean {
    if (!p?.value || p.value.kind === 'invalid') return dflt; // (a syntax error, reported already)
    if (p.value.kind === 'boolean') return p.value.value;
    this.error('type', path, p.value, `${formatPath(path)} must be true or false, found ${describe(p.value)}`);
    return dflt;
  }

  private string(p: PropertyNode | undefined, path: readonly PathSegment[]): string | undefined {
    if (!p?.value || p.value.kind === 'invalid') return undefined;
    if (p.value.kind === 'string') return p.value.value;
    this.error('type', path, p.value, `${formatPath(path)} must be a string, found ${describe(p.value)}`);
    return undefined;
  }

  private enumValue(p: PropertyNode | undefined, path: readonly PathSegment[], values: readonly string[], dflt: string): string {
    if (!p?.value || p.value.kind === 'invalid') return dflt;
    const v = p.value;
    const list = values.map((x) => `"${x}"`).join(', ');
    if (v.kind !== 'string') {
      this.error('type', path, v, `${formatPath(path)} must be one of ${list}, found ${describe(v)}`);
      return dflt;
    }
    if (!values.includes(v.value)) {
      const near = nearestKey(v.value, values);
      this.error('value', path, v, `${formatPath(path)} must be one of ${list}, found ${quote(v.value)}${near ? `: did you mean "${near}"?` : ''}`);
      return dflt;
    }
    return v.value;
  }

  /** `float32`: the number is held as float32 (a weight, a scale factor): one too large for it is an error, not Infinity. */
  private number(p: PropertyNode | undefined, path: readonly PathSegment[], opts: { integer?: boolean; min?: number; above?: number; float32?: boolean }, dflt: number): number {
    if (!p?.value || p.value.kind === 'invalid') return dflt;
    const v = p.value;
    const what = opts.integer ? 'a whole number' : 'a number';
    if (v.kind === 'nonfinite') {
      this.error('nonfinite', path, v, `${formatPath(path)} must be a finite number, found ${notJsonNumber(v.text)}`);
      return dflt;
    }
    if (v.kind !== 'number') {
      this.error('type', path, v, `${formatPath(path)} must be ${what}, found ${describe(v)}`);
      return dflt;
    }
    if (opts.integer && !Number.isInteger(v.value)) {
      this.error('value', path, v, `${formatPath(path)} must be a whole number, found ${v.value}`);
      return dflt;
    }
    if (opts.min !== undefined && v.value < opts.min) {
      this.error('value', path, v, `${formatPath(path)} must be at least ${opts.min}, found ${v.value}`);
      return dflt;
    }
    if (opts.above !== undefined && !(v.value > opts.above)) {
      this.error('value', path, v, `${formatPath(path)} must be greater than ${opts.above}, found ${v.value}`);
      return dflt;
    }
    const overflow = opts.float32 ? this.float32Overflow(path, v) : null;
    if (overflow) {
      this.error('overflow', path, v, overflow);
      return dflt;
    }
    return v.value;
  }

  /** What is wrong with a number a float32 holds as Infinity, or null when it fits. */
  private float32Overflow(path: readonly PathSegment[], n: JsonNode & { kind: 'number' }): string | null {
    if (!(Math.abs(n.value) >= FLOAT32_OVERFLOW)) return null;
    return `${formatPath(path)} = ${oneLine(sourceSlice(this.text, n.start, n.end))} is too large for float32 (largest: ±3.4028235e38)`;
  }

  private strings(node: JsonNode, path: readonly PathSegment[]): string[] | null {
    if (node.kind === 'invalid') return null;
    if (node.kind !== 'array') {
      this.error('type', path, node, `${formatPath(path)} must be an array of strings, found ${describe(node)}`);
      return null;
    }
    const out: string[] = [];
    let ok = true;
    node.items.forEach((item, i) => {
      if (item.kind === 'string') out.push(item.value);
      else {
        ok = false;
        this.error('type', [...path, i], item, `${formatPath([...path, i])} must be a string, found ${describe(item)}`);
      }
    });
    return ok ? out : null;
  }

  // --- numbers: vectors and matrices ---------------------------------------------------------

  /** Reports every element of a slow-path array that is not a finite float32 number. */
  private elementProblems(items: readonly JsonNode[], path: readonly PathSegment[], budget: { left: number }): boolean {
    let ok = true;
    items.forEach((item, i) => {
      const at = [...path, i];
      let msg: string | null = null;
      let code: ProblemCode = 'type';
      if (item.kind === 'number') {
        msg = this.float32Overflow(at, item);
        if (msg) code = 'overflow';
      } else if (item.kind === 'nonfinite') {
        code = 'nonfinite';
        msg = `${formatPath(at)} is ${notJsonNumber(item.text)}: write a finite number`;
      } else if (item.kind === 'invalid') {
        code = 'syntax';
        msg = null; // the syntax error is reported already
        ok = false;
      } else {
        msg = `${formatPath(at)} must be a number, found ${describe(item)}`;
      }
      if (msg !== null) {
        ok = false;
        if (budget.left-- > 0) this.error(code, at, item, msg);
      }
    });
    return ok;
  }

  private vector(node: JsonNode, path: readonly PathSegment[]): Vec | null {
    if (node.kind === 'invalid') return null;
    if (node.kind === 'numbers') return { length: node.length, data: this.json.arena.subarray(node.offset, node.offset + node.length), node };
    if (node.kind === 'array') {
      if (node.items.some((x) => x.kind === 'array' || x.kind === 'numbers')) {
        this.error('type', path, node, `${formatPath(path)} must be a vector (an array of numbers), found an array of arrays`);
        return null;
      }
      const budget = { left: MAX_ELEMENT_PROBLEMS };
      if (!this.elementProblems(node.items, path, budget)) {
        this.moreProblems(path, node, budget);
        return null;
      }
      // [] — or numbers read the slow way (a comment slip made the fast pass give up)
      const data = Float32Array.from(node.items, (x) => (x.kind === 'number' ? x.value : NaN));
      return { length: data.length, data, node };
    }
    this.error('type', path, node, `${formatPath(path)} must be a vector (an array of numbers), found ${describe(node)}`);
    return null;
  }

  private moreProblems(path: readonly PathSegment[], node: JsonNode, budget: { left: number }): void {
    if (budget.left < 0) this.error('type', path, { start: node.start, end: node.start + 1 }, `… and ${-budget.left} more problem${budget.left === -1 ? '' : 's'} in ${formatPath(path)}`);
  }

  /** Records that \`node\`'s numbers are row \`row\` of \`param\`, held at data[at…]. */
  private bind(node: JsonNode, param: string, vector: boolean, row: number, data: Float32Array, at: number): void {
    if (node.kind === 'numbers') this.rows.set(node, { param, vector, row, data, at });
  }

  private matrix(node: JsonNode, path: readonly PathSegment[], name: string, param: string): Mat | null {
    if (node.kind === 'invalid') return null;
    if (node.kind === 'numbers') {
      // (on one line: a message is one line of the Problems panel and of the command line's output)
      const preview = oneLine(sourceSlice(this.text, node.start, Math.min(node.end, node.start + 40)));
      this.error('type', path, node, `${formatPath(path)} must be a matrix (an array of rows), found a single row of ${node.length} numbers; wrap it in brackets: [${preview}${node.end - node.start > 40 ? '…' : ''}]`);
      return null;
    }
    if (node.kind !== 'array') {
      this.error('type', path, node, `${formatPath(path)} must be a matrix (an array of rows of numbers), found ${describe(node)}`);
      return null;
    }
    if (node.items.length === 0) {
      this.error('shape', path, node, `${formatPath(path)} has no rows`);
      return null;
    }
    const rows = node.items;
    let ok = true;
    const budget = { left: MAX_ELEMENT_PROBLEMS };
    const lengths: number[] = rows.map((row, i) => {
      const at = [...path, i];
      if (row.kind === 'numbers') return row.length;
      if (row.kind === 'array') {
        if (this.elementProblems(row.items, at, budget)) return row.items.length;
        ok = false;
        return -1;
      }
      ok = false;
      if (budget.left-- > 0) this.error('type', at, row, `${formatPath(at)} must be a row (an array of numbers), found ${describe(row)}`);
      return -1;
    });
    // The rows' length is the one most rows have (ties: row 0's), so one odd row is the one blamed.
    const counts = new Map<number, number>();
    for (const n of lengths) if (n >= 0) counts.set(n, (counts.get(n) ?? 0) + 1);
    let cols = -1;
    let best = 0;
    for (const n of lengths) {
      if (n < 0) continue;
      const c = counts.get(n)!;
      if (c > best) {
        best = c;
        cols = n;
      }
    }
    const ref = lengths.indexOf(cols);
    if (cols === 0) {
      ok = false;
      this.error('shape', [...path, ref], rows[ref], `${formatPath([...path, ref])} is empty: a row needs at least one number`);
    }
    lengths.forEach((len, i) => {
      if (len < 0 || len === cols) return;
      ok = false;
      const at = [...path, i];
      if (budget.left-- > 0) {
        this.error('ragged', at, rows[i], `${formatPath(at)} has ${len} number${len === 1 ? '' : 's'} but ${name}[${ref}] has ${cols}${best > 1 ? ` (as ${best === rows.length - 1 ? 'every other row' : `${best} rows`})` : ''}: every row of a matrix has the same length`);
      }
    });
    this.moreProblems(path, node, budget);
    if (!ok || cols <= 0) return null;
    const data = this.matrixData(node, cols);
    rows.forEach((r, i) => this.bind(r, param, false, i, data, i * cols));
    this.paramNodes.set(param, { node, path: [...path] });
    return { rows: rows.length, cols, data, node };
  }

  /** The rows' numbers as one Float32Array: a view into the arena when they lie in a row. */
  private matrixData(node: ArrayNode, cols: number): Float32Array {
    const rows = node.items;
    const first = rows[0].kind === 'numbers' ? rows[0].offset : -1;
    if (first >= 0 && rows.every((r, i) => r.kind === 'numbers' && r.offset === first + i * cols)) {
      return this.json.arena.subarray(first, first + rows.length * cols);
    }
    // rows read the slow way (after a syntax slip in them): their numbers, copied
    const out = new Float32Array(rows.length * cols);
    rows.forEach((r, i) => {
      if (r.kind === 'numbers') out.set(this.json.arena.subarray(r.offset, r.offset + cols), i * cols);
      else if (r.kind === 'array') r.items.forEach((x, j) => { out[i * cols + j] = x.kind === 'number' ? x.value : NaN; });
    });
    return out;
  }

  /** A vector that must have n elements; `why` says where n comes from. */
  private sizedVector(p: PropertyNode | undefined, path: readonly PathSegment[], param: string, n: number | null, why: string): Float32Array | null {
    if (!p?.value) return null;
    const v = this.vector(p.value, path);
    if (!v || n === null) return null;
    if (v.length !== n) {
      const fill = path[path.length - 1] === 'gamma' ? 1 : 0; // a scale pads with 1, a bias or shift with 0
      this.error('shape', path, v.node, `${formatPath(path)} has ${v.length} number${v.length === 1 ? '' : 's'} but ${why}, so it must have ${n}`, { kind: 'vector-length', expected: n, fill });
      return null;
    }
    this.bind(v.node, param, true, 0, v.data, 0);
    this.paramNodes.set(param, { node: v.node, path: [...path] });
    return v.data;
  }

  /**
   * A weight matrix of a linear map in → out, stored [out][in] (out_in) or [in][out] (in_out).
   * `out` null means this matrix defines it. Returns the out dimension, or null on a mismatch.
   */
  private linearShape(
    m: Mat, path: readonly PathSegment[], name: string,
    inDim: { n: number; name: string; why: string }, out: { n: number | null; name: string; why?: string },
  ): number | null {
    const L = this.layout;
    const [o, i] = L === 'out_in' ? [m.rows, m.cols] : [m.cols, m.rows];
    const fits = (oo: number, ii: number): boolean => ii === inDim.n && (out.n === null || oo === out.n);
    const square = m.rows === m.cols;
    if (fits(o, i)) {
      if (!square) this.fitCurrent++;
      return o;
    }
    const outStr = out.n === null ? out.name : String(out.n);
    const expected = L === 'out_in' ? `[${outStr}, ${inDim.n}]` : `[${inDim.n}, ${outStr}]`;
    const because = out.n === null || !out.why ? `${inDim.why}` : `${inDim.why} and ${out.why}`;
    let msg = `${formatPath(path)} is [${m.rows}, ${m.cols}] but ${because}, so ${name} must be ${expected} (layout ${L})`;
    const otherFits = fits(i, o) && !square;
    if (otherFits) {
      const other = L === 'out_in' ? 'in_out' : 'out_in';
      msg += `; it fits layout "${other}" (${other === 'in_out' ? '[in][out]' : '[out][in]'}): if the file stores matrices that way, set "layout": "${other}" at the top level`;
      this.fitOtherOnly++;
      this.layoutProblems.push(this.problems.length);
      this.error('layout', path, m.node, msg);
    } else {
      this.error('shape', path, m.node, msg);
    }
    return null;
  }

  /** The layout quick fix is offered only when every non-square matrix fits only the other way. */
  private finishLayoutHints(): void {
    if (this.fitOtherOnly === 0 || this.fitCurrent > 0) return;
    const to = this.layout === 'out_in' ? 'in_out' : 'out_in';
    for (const i of this.layoutProblems) this.problems[i] = { ...this.problems[i], fix: { kind: 'set-layout', to } };
  }

  // --- the parts of a model ------------------------------------------------------------------

  /** \`pre\`: the prefix of this layer's parameter ids (\`layers.2.\`). */
  private layer(
    f: Map<string, PropertyNode>, path: readonly PathSegment[], pre: string, dims: { T: number; C: number } | null, norm: Norm,
    counts: { attention: number; ffn: number; norm: number; head: number },
  ): LayerWeights | null {
    let ok = true;
    let attention: AttentionWeights | null = null;
    let ffn: FfnWeights | null = null;
    const a = f.get('attention');
    if (a?.value) {
      attention = this.attention(a.value, [...path, 'attention'], pre, dims, counts);
      ok &&= attention !== null;
    }
    const ff = f.get('ffn');
    if (ff?.value) {
      ffn = this.ffn(ff.value, [...path, 'ffn'], pre, dims, counts);
      ok &&= ffn !== null;
    }
    const ln = (key: 'ln1' | 'ln2', sub: 'attention' | 'ffn'): LayerNormWeights => {
      const p = f.get(key);
      if (!p?.value) return DEFAULT_LAYERNORM;
      const used = norm !== 'none' && f.has(sub);
      const w = this.layernorm(p.value, [...path, key], pre + key, dims, counts, used);
      if (norm === 'none') this.warn('unused', [...path, key], { start: p.keyStart, end: p.keyEnd }, `${key} is not applied because norm is "none": set "norm": "pre" or "post" at the top level to use it`);
      else if (!f.has(sub)) this.warn('unused', [...path, key], { start: p.keyStart, end: p.keyEnd }, `${key} normalizes the ${sub} sublayer, which this layer does not have`);
      if (!w) ok = false;
      return w ?? DEFAULT_LAYERNORM;
    };
    const ln1 = ln('ln1', 'attention');
    const ln2 = ln('ln2', 'ffn');
    return ok ? { attention, ffn, ln1, ln2 } : null;
  }

  private layernorm(node: JsonNode, path: readonly PathSegment[], param: string, dims: { C: number } | null, counts: { norm: number }, used: boolean): LayerNormWeights | null {
    if (node.kind !== 'object') {
      this.error('type', path, node, `${formatPath(path)} must be a LayerNorm object { "gamma": [...], "beta": [...], "eps": 1e-5 }, found ${describe(node)}`);
      return null;
    }
    const f = this.fields(node, path, LAYERNORM_FIELDS);
    const C = dims?.C ?? null;
    const why = `input rows have d_model = ${C}`;
    const gamma = this.sizedVector(f.get('gamma'), [...path, 'gamma'], `${param}.gamma`, C, why);
    const beta = this.sizedVector(f.get('beta'), [...path, 'beta'], `${param}.beta`, C, why);
    const eps = this.number(f.get('eps'), [...path, 'eps'], { above: 0 }, DEFAULT_EPS);
    if (used) counts.norm += (gamma?.length ?? 0) + (beta?.length ?? 0);
    if ((f.get('gamma')?.value && !gamma) || (f.get('beta')?.value && !beta)) return null;
    return { gamma, beta, eps };
  }

  private attention(node: JsonNode, path: readonly PathSegment[], pre: string, dims: { T: number; C: number } | null, counts: { attention: number }): AttentionWeights | null {
    if (node.kind !== 'object') {
      this.error('type', path, node, `${formatPath(path)} must be an object with "heads", "causal" and optional "Wq", "Wk", "Wv", "Wo" and biases, found ${describe(node)}`);
      return null;
    }
    const f = this.fields(node, path, ATTENTION_FIELDS);
    const heads = this.number(f.get('heads'), [...path, 'heads'], { integer: true, min: 1 }, 1);
    const causal = this.bool(f.get('causal'), [...path, 'causal'], false);
    let ok = true;
    const C = dims?.C ?? null;
    if (C !== null && C % heads !== 0) {
      const divisors = Array.from({ length: C }, (_, i) => i + 1).filter((d) => C % d === 0);
      const p = f.get('heads')!;
      this.error('heads', [...path, 'heads'], p.value ?? p, `${formatPath([...path, 'heads'])} = ${heads} does not divide d_model = ${C}: each head takes d_model / heads columns; use one of ${divisors.join(', ')}`);
      ok = false;
    }
    const mat = (key: string): Float32Array | null => {
      const p = f.get(key);
      if (!p?.value) return null;
      const m = this.matrix(p.value, [...path, key], key, `${pre}attn.${key}`);
      if (!m) {
        ok = false;
        return null;
      }
      if (C === null) return null;
      if (m.rows !== C || m.cols !== C) {
        this.error('shape', [...path, key], m.node, `${formatPath([...path, key])} is [${m.rows}, ${m.cols}] but input rows have d_model = ${C}, so ${key} must be [${C}, ${C}]`);
        ok = false;
        return null;
      }
      counts.attention += m.rows * m.cols;
      return m.data;
    };
    const vec = (key: string): Float32Array | null => {
      const p = f.get(key);
      if (!p?.value) return null;
      const v = this.sizedVector(p, [...path, key], `${pre}attn.${key}`, C, `input rows have d_model = ${C}`);
      if (!v) ok = false;
      else counts.attention += v.length;
      return v;
    };
    const w: AttentionWeights = {
      heads, causal,
      Wq: mat('Wq'), bq: vec('bq'), Wk: mat('Wk'), bk: vec('bk'),
      Wv: mat('Wv'), bv: vec('bv'), Wo: mat('Wo'), bo: vec('bo'),
    };
    return ok ? w : null;
  }

  private ffn(node: JsonNode, path: readonly PathSegment[], pre: string, dims: { T: number; C: number } | null, counts: { ffn: number }): FfnWeights | null {
    if (node.kind !== 'object') {
      this.error('type', path, node, `${formatPath(path)} must be an object with "activation", "W1", "b1", "W2", "b2", found ${describe(node)}`);
      return null;
    }
    const f = this.fields(node, path, FFN_FIELDS);
    const activation = this.enumValue(f.get('activation'), [...path, 'activation'], FFN_FIELDS.activation.values!, 'relu') as Activation;
    let ok = true;
    const C = dims?.C ?? null;
    const dIn = { n: C ?? 0, name: 'd_model', why: `input rows have d_model = ${C}` };
    const required = (key: 'W1' | 'W2'): Mat | null => {
      const p = f.get(key);
      if (!p) {
        this.error('missing', [...path, key], { start: node.start, end: node.start + 1 }, `${formatPath(path)} needs ${key} (${key === 'W1' ? 'the up-projection, d_model → d_ff' : 'the down-projection, d_ff → d_model'})`);
        ok = false;
        return null;
      }
      if (!p.value) return null;
      const m = this.matrix(p.value, [...path, key], key, `${pre}ffn.${key}`);
      if (!m) ok = false;
      return m;
    };
    const W1 = required('W1');
    let F: number | null = null;
    if (W1 && C !== null) {
      F = this.linearShape(W1, [...path, 'W1'], 'W1', dIn, { n: null, name: 'd_ff' });
      if (F === null) ok = false;
    }
    const dff = F === null ? null : { n: F, name: 'd_ff', why: `d_ff = ${F} (from W1)` };
    const b1 = this.sizedVector(f.get('b1'), [...path, 'b1'], `${pre}ffn.b1`, F, `d_ff = ${F} (from W1)`);
    if (f.get('b1')?.value && !b1) ok = false;

    let Wg: Float32Array | null = null;
    let bg: Float32Array | null = null;
    const gated = isGated(activation);
    const wgProp = f.get('Wg');
    if (gated) {
      if (!wgProp) {
        this.error('missing', [...path, 'Wg'], { start: node.start, end: node.start + 1 }, `activation "${activation}" is gated: ${formatPath(path)} needs Wg (the gate, same shape as W1), act = ${activation === 'swiglu' ? 'SiLU' : activation === 'geglu' ? 'GELU' : 'ReLU'}(x·Wgᵀ + bg) ⊙ (x·W1ᵀ + b1)`);
        ok = false;
      } else if (wgProp.value) {
        const m = this.matrix(wgProp.value, [...path, 'Wg'], 'Wg', `${pre}ffn.Wg`);
        if (!m) ok = false;
        else if (C !== null && dff) {
          if (this.linearShape(m, [...path, 'Wg'], 'Wg', dIn, dff) === null) ok = false;
          else {
            Wg = m.data;
            counts.ffn += m.rows * m.cols;
          }
        }
      }
      bg = this.sizedVector(f.get('bg'), [...path, 'bg'], `${pre}ffn.bg`, F, `d_ff = ${F} (from W1)`);
      if (f.get('bg')?.value && !bg) ok = false;
      if (bg) counts.ffn += bg.length;
    } else {
      for (const key of ['Wg', 'bg']) {
        const p = f.get(key);
        if (p) this.warn('unused', [...path, key], { start: p.keyStart, end: p.keyEnd }, `${key} is only used by the gated activations (swiglu, geglu, reglu); activation is "${activation}"`);
      }
    }

    const W2 = required('W2');
    if (W2 && C !== null && dff) {
      if (this.linearShape(W2, [...path, 'W2'], 'W2', { n: F!, name: 'd_ff', why: `d_ff = ${F} (from W1)` }, { n: C, name: 'd_model', why: `d_model = ${C}` }) === null) ok = false;
    }
    const b2 = this.sizedVector(f.get('b2'), [...path, 'b2'], `${pre}ffn.b2`, C, `input rows have d_model = ${C}`);
    if (f.get('b2')?.value && !b2) ok = false;

    if (!ok || !W1 || !W2 || F === null) return null;
    counts.ffn += W1.rows * W1.cols + W2.rows * W2.cols + (b1?.length ?? 0) + (b2?.length ?? 0);
    return { activation, F, W1: W1.data, b1, Wg, bg, W2: W2.data, b2 };
  }

  private head(node: JsonNode, path: readonly PathSegment[], dims: { C: number } | null, counts: { head: number }): { head: HeadWeights; vocab: string[] } | null {
    if (node.kind !== 'object') {
      this.error('type', path, node, `${formatPath(path)} must be an object with "W", "b", "vocab", "temperature", found ${describe(node)}`);
      return null;
    }
    const f = this.fields(node, path, HEAD_FIELDS);
    const temperature = this.number(f.get('temperature'), [...path, 'temperature'], { above: 0 }, 1);
    const vocabProp = f.get('vocab');
    const vocab = vocabProp?.value ? this.strings(vocabProp.value, [...path, 'vocab']) : null;
    const wProp = f.get('W');
    if (!wProp) {
      this.error('missing', [...path, 'W'], { start: node.start, end: node.start + 1 }, `${formatPath(path)} needs W (the unembedding, d_model → vocab)`);
      return null;
    }
    if (!wProp.value) return null;
    const W = this.matrix(wProp.value, [...path, 'W'], 'W', 'head.W');
    if (!W || !dims) return null;
    const C = dims.C;
    const out = vocab ? { n: vocab.length, name: 'vocab', why: `head.vocab has ${vocab.length} words` } : { n: null, name: 'vocab' };
    const V = this.linearShape(W, [...path, 'W'], 'W', { n: C, name: 'd_model', why: `input rows have d_model = ${C}` }, out);
    if (V === null) return null;
    const bProp = f.get('b');
    const b = this.sizedVector(bProp, [...path, 'b'], 'head.b', V, `the vocabulary has ${V} entries (rows of W)`);
    if (bProp?.value && !b) return null;
    if (vocabProp?.value && !vocab) return null;
    counts.head += W.rows * W.cols + (b?.length ?? 0);
    return {
      head: { V, W: W.data, b, temperature },
      vocab: vocab ?? Array.from({ length: V }, (_, i) => `v${i}`),
    };
  }
}

/** Reads a model file from its text, or its bytes as read from disk (UTF-8). Never throws. */
export function readModel(text: Source, fileName: string): ReadResult {
  const reader = new Reader(text, fileName);
  try {
    return reader.read();
  } catch (e) {
    // A bug of ours: say so plainly, in one line, without a stack trace.
    const problems = [...reader.problems, {
      severity: 'error' as const, code: 'internal' as const, path: [], start: 0, end: 0,
      message: `FFN Lens could not read this file (an internal error: ${e instanceof Error ? e.message : String(e)}); please report it`,
    }];
    return { model: null, problems, json: { root: null, arena: new Float32Array(0), errors: [], numberArrays: [] }, rows: new Map(), paramNodes: new Map(), checkpoint: null };
  }
}

/**
 * Whether a JSON document is a model file: named *.ffn.json, or a top-level object with
 * "version": 1 and at least one of "ffn", "attention", "layers", "checkpoint".
 */
export function isModelFileName(fileName: string): boolean {
  return /\.ffn\.jsonc?$/i.test(fileName);
}

export function looksLikeModelText(text: string): boolean {
  // Cheap test before any parse: both markers must appear somewhere.
  return /"version"\s*:\s*1\b/.test(text) && /"(ffn|attention|layers|checkpoint)"\s*:/.test(text);
}

export function isModelRoot(root: JsonNode | null): boolean {
  if (!root || root.kind !== 'object') return false;
  const keys = new Map(root.props.map((p) => [p.key, p.value] as const));
  const v = keys.get('version');
  return !!v && v.kind === 'number' && v.value === 1 && ['ffn', 'attention', 'layers', 'checkpoint'].some((k) => keys.has(k));
}

/** Text quoted in a message, on one line: comments dropped, whitespace runs as one space. */
function oneLine(text: string): string {
  return text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, ' ').replace(/\s+/g, ' ').trim();
}

/** Where a syntax error stands, without the empty key of the property the parser began there ([""]). */
function syntaxPath(path: readonly PathSegment[]): PathSegment[] {
  const out = [...path];
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

/** The keys of a checkpoint model file that change what is computed: misspelled, they are loud. */
const EDIT_KEYS: ReadonlySet<string> = new Set(['ablate', 'scale', 'weights', 'lens', 'temperature', 'corrupted_prompt', 'corrupted_token_ids']);

/**
 * Where each number of an array of numbers stands (the reader keeps only their values): the
 * literals of its source (`[` at `offset`), comments skipped. For the short lists of token ids.
 */
function numberSpans(source: string, offset: number): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  for (const m of source.slice(1).matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|[-+.\dA-Za-z]+/g)) {
    const at = offset + 1 + m.index!;
    if (m[0][0] !== '/') out.push({ start: at, end: at + m[0].length });
  }
  return out;
}
