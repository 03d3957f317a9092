// The model-file reader: a model written out in the file (input, layers, final norm, head) checked
// part by part, then assembled for the core (toModel.ts). The file's text, its problems and where
// each row of numbers stands are the NumberReader's.

import { runTooLarge } from '../core/runSize';
import type { Layout, Norm } from '../core/spec';
import { paramId, PARAM } from '../core/ids';
import { CHECKPOINT_FIELDS, LAYER_FIELDS, MODEL_FIELDS, type Fields } from './format';
import { readSaeEdits, readSaes } from './readSaeKeys';
import type { ObjectNode, PropertyNode } from './jsonc';
import type { ModelFile } from './modelFile';
import type { ParamCounts } from '../core/paramCounts';
import type { PathSegment } from './problems';
import { defaultModelName, describe } from './readerBase';
import { readHead, readLayer, readLayerNorm, type Counts, type Dims } from './readLayer';
import type { Mat, NumberReader } from './readNumbers';
import { DEFAULT_LAYERNORM, FINAL_NORM_IDS, toModel, type HeadWeights, type LayerNormWeights, type LayerWeights, type Positional } from './toModel';

/** The SAE keys a written-out model may have too (attached when the file is resolved: src/checkpoint/store.ts's resolveRead). */
const SAE_KEYS: Fields = Object.fromEntries(['saes', 'sae_ablate', 'sae_scale', 'sae_clamp'].map((k) => [k, CHECKPOINT_FIELDS[k]]));

/** The model a model file writes out, or null when any error was found (the problems are the reader's). */
export function readModelFile(r: NumberReader, root: ObjectNode, fileName: string): ModelFile | null {
  // (a written-out model reads vectors: a chosen token has no row of "input" to be fed back as)
  const gen = root.props.find((p) => p.key === 'generate');
  const top = r.fields(gen ? { ...root, props: root.props.filter((p) => p !== gen) } : root, [], { ...MODEL_FIELDS, ...SAE_KEYS });
  if (gen) r.warn('value', ['generate'], { start: gen.keyStart, end: gen.keyEnd }, 'generate needs a model that reads token ids: only a model file that names a "checkpoint" generates (this one reads the vectors of "input"); it is ignored');
  r.checkVersion(top, root);
  const name = r.string(top.get('name'), ['name']) ?? defaultModelName(fileName);
  r.layout = r.enumValue(top.get('layout'), ['layout'], ['out_in', 'in_out'], 'out_in') as Layout;
  const positional = r.enumValue(top.get('positional'), ['positional'], ['none', 'sinusoidal'], 'none') as Positional;
  const residual = r.bool(top.get('residual'), ['residual'], false);
  const norm = r.enumValue(top.get('norm'), ['norm'], ['none', 'post', 'pre'], 'none') as Norm;
  const finalNorm = r.bool(top.get('final_norm'), ['final_norm'], false);

  // input: fixes T and C, which every other shape is checked against
  const inputProp = top.get('input');
  let input: Mat | null = null;
  if (!inputProp) r.error('missing', ['input'], { start: root.start, end: root.start + 1 }, 'input is required: the token vectors, one row per token, e.g. "input": [[1, 0, 1.5], [0, 1, 0]]');
  else if (inputProp.value) input = r.matrix(inputProp.value, ['input'], 'input', paramId(-1, PARAM.input));
  const T = input?.rows ?? 0;
  const C = input?.cols ?? 0;
  const dims = input ? { T, C } : null;
  const tokens = readTokens(r, top, T, dims);

  const counts: Counts = { attention: 0, ffn: 0, norm: 0, head: 0 };
  const layers = readLayers(r, top, root, dims, norm, counts);
  const lnF = readFinalNorm(r, top, dims, counts, finalNorm, norm);
  let head: HeadWeights | null = null;
  let vocab: string[] = [];
  const headProp = top.get('head');
  if (headProp?.value) {
    const h = readHead(r, headProp.value, ['head'], dims, counts);
    if (h) ({ head, vocab } = h);
  }

  const saes = readSaes(r, top.get('saes'));
  const saeEdits = readSaeEdits(r, top);

  r.finishLayoutHints();
  if (r.hasErrors() || !input || !dims) return null;

  const firstFfn = layers.find((l) => l.ffn)?.ffn;
  const firstAttn = layers.find((l) => l.attention)?.attention;
  const paramCounts: ParamCounts = { ...counts, total: counts.attention + counts.ffn + counts.norm + counts.head };
  const model = toModel({ T, C, layout: r.layout, input: input.data, positional, residual, norm, layers, finalNorm, lnF, head });
  // (a few characters per layer and per row can ask for more than the machine has: attention keeps heads·T·T numbers a layer)
  const tooLarge = runTooLarge(model.spec);
  if (tooLarge) {
    r.error('value', ['input'], inputProp!.value!, `input has ${T} rows; a run of this model over them ${tooLarge} (attention keeps heads × rows × rows numbers in every layer): give fewer rows or fewer layers`);
    return null;
  }
  return {
    name, tokens, vocab, model, layout: r.layout, paramCounts,
    dims: { seq: T, dModel: C, dFf: firstFfn?.F ?? 0, heads: firstAttn?.heads ?? 0, layers: layers.length, vocab: head?.V ?? 0 },
    ...(saes.length || saeEdits.length ? { saeKeys: { saes, edits: saeEdits } } : {}),
  };
}

/** `tokens`: one label per input row (default t0, t1, …). */
function readTokens(r: NumberReader, top: Map<string, PropertyNode>, T: number, dims: Dims): string[] {
  let tokens: string[] = Array.from({ length: T }, (_, i) => `t${i}`);
  const tokensProp = top.get('tokens');
  if (tokensProp?.value) {
    const list = r.strings(tokensProp.value, ['tokens']);
    if (list && dims && list.length !== T) {
      r.error('tokens-length', ['tokens'], tokensProp.value, `tokens has ${list.length} label${list.length === 1 ? '' : 's'} but input has ${T} row${T === 1 ? '' : 's'}: give one label per input row`, { kind: 'tokens-length', expected: T });
    } else if (list) tokens = list;
  }
  return tokens;
}

/** The layers: either the `layers` list or the single-layer shorthand at the top level, not both. */
function readLayers(r: NumberReader, top: Map<string, PropertyNode>, root: ObjectNode, dims: Dims, norm: Norm, counts: Counts): LayerWeights[] {
  const shorthandKeys = Object.keys(LAYER_FIELDS).filter((k) => top.has(k));
  const layersProp = top.get('layers');
  const layers: LayerWeights[] = [];
  if (layersProp && shorthandKeys.length > 0) {
    const p = top.get(shorthandKeys[0])!;
    r.error('value', [shorthandKeys[0]], { start: p.keyStart, end: p.keyEnd }, `use either "layers" or the single-layer shorthand (${shorthandKeys.join(', ')} at the top level), not both: move "${shorthandKeys[0]}" into a layer`);
  }
  if (!layersProp && shorthandKeys.length === 0) {
    r.error('missing', [], { start: root.start, end: root.start + 1 }, 'a model needs at least one of "ffn", "attention" or "layers"');
  }
  if (layersProp?.value) {
    const v = layersProp.value;
    if (v.kind !== 'array') r.error('type', ['layers'], v, `layers must be an array of layer objects, found ${describe(v)}`);
    else {
      if (v.items.length === 0) r.warn('value', ['layers'], v, 'layers is empty: the output is the input');
      v.items.forEach((item, i) => {
        const path: PathSegment[] = ['layers', i];
        if (item.kind !== 'object') {
          r.error('type', path, item, `each layer is an object with "attention", "ffn", "ln1", "ln2"; found ${describe(item)}`);
          return;
        }
        const f = r.fields(item, path, LAYER_FIELDS);
        if (f.size === 0) r.warn('value', path, item, `layer ${i} is empty: it has neither "attention" nor "ffn"`);
        const layer = readLayer(r, f, path, i, dims, norm, counts);
        if (layer) layers.push(layer);
      });
    }
  } else if (shorthandKeys.length > 0) {
    const layer = readLayer(r, top, [], 0, dims, norm, counts);
    if (layer) layers.push(layer);
  }
  return layers;
}

/** `ln_f`, applied when `final_norm` is true. */
function readFinalNorm(r: NumberReader, top: Map<string, PropertyNode>, dims: Dims, counts: Counts, finalNorm: boolean, norm: Norm): LayerNormWeights {
  let lnF: LayerNormWeights = DEFAULT_LAYERNORM;
  const lnFProp = top.get('ln_f');
  if (lnFProp?.value) {
    lnF = readLayerNorm(r, lnFProp.value, ['ln_f'], FINAL_NORM_IDS, dims, counts, finalNorm) ?? DEFAULT_LAYERNORM;
    if (!finalNorm) r.warn('unused', ['ln_f'], { start: lnFProp.keyStart, end: lnFProp.keyEnd }, 'ln_f is not applied because final_norm is false: set "final_norm": true to use it');
  }
  if (finalNorm && norm !== 'pre') {
    const p = top.get('final_norm')!;
    r.warn('value', ['final_norm'], { start: p.keyStart, end: p.keyEnd }, `final_norm is meant for norm "pre" (as GPT-2); with norm "${norm}" the output is normalized once more`);
  }
  return lnF;
}
