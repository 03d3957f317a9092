// The checkpoint-request reader: a model file that points at a checkpoint (`checkpoint`) instead of
// writing the model out. What it asks for is read here with where each part stands (prompt,
// token_ids, tokens, ablate, scale, weights, temperature, lens, the corrupted input); what only the
// checkpoint can check is checked when it is resolved (src/checkpoint/resolve.ts).

import { CHECKPOINT_FIELDS, MODEL_FIELDS, type Fields } from './format';
import type { ArrayNode, ObjectNode, PropertyNode } from './jsonc';
import { isMatrixParam, parseTarget, parseUnit, TARGET_FORMS, type At, type CheckpointRequest, type UnitRef, type WeightOverride } from './checkpointRequest';
import type { PathSegment } from './problems';
import { defaultModelName, describe } from './readerBase';
import type { NumberReader } from './readNumbers';
import { quote } from '../common/quote';
import { readSaeEdits, readSaes } from './readSaeKeys';
import { readGenerate } from './readGenerate';
import { readSteers } from './readSteerKeys';

/** The keys of a written-out model, which a checkpoint's config.json decides instead. */
const INLINE = ['input', 'attention', 'ffn', 'ln1', 'ln2', 'layers', 'ln_f', 'head', 'layout', 'residual', 'norm', 'positional', 'final_norm'];

/** What a checkpoint model file asks for, or null when any error was found (the problems are the reader's). */
export function readCheckpointRequest(r: NumberReader, root: ObjectNode, fileName: string): CheckpointRequest | null {
  const known: Fields = { ...CHECKPOINT_FIELDS, ...Object.fromEntries(INLINE.map((k) => [k, MODEL_FIELDS[k]])) };
  const top = r.fields(root, [], known);
  const at = (p: PropertyNode | undefined, path: PathSegment[]): At => (p?.value
    ? { start: p.value.start, end: p.value.end, path, ...(p.value.kind === 'array' || p.value.kind === 'numbers' ? { items: r.itemSpans(p.value) } : {}) }
    : { start: root.start, end: root.start + 1, path });
  for (const k of INLINE) {
    const p = top.get(k);
    if (p) r.error('value', [k], { start: p.keyStart, end: p.keyEnd }, `"${k}" cannot be used with "checkpoint": the checkpoint's config.json decides the model. Remove "${k}" (or "checkpoint", to write the model out here)`);
  }
  r.checkVersion(top, root);
  const name = r.string(top.get('name'), ['name']) ?? defaultModelName(fileName);
  const folderProp = top.get('checkpoint')!;
  const folder = r.string(folderProp, ['checkpoint']);
  if (folder === '') r.error('value', ['checkpoint'], folderProp.value!, 'checkpoint is empty: give the folder of a Hugging Face model, e.g. "./gpt2"');
  const tokenizerProp = top.get('tokenizer');
  const tokenizer = r.string(tokenizerProp, ['tokenizer']) ?? null;
  const input = readInput(r, top, folderProp);
  const tokensProp = top.get('tokens');
  const tokens = tokensProp?.value ? r.strings(tokensProp.value, ['tokens']) : null;
  const ablate = readUnits(r, top.get('ablate'));
  const scale = readScales(r, top.get('scale'));
  const weights = readOverrides(r, top.get('weights'));
  const temperature = r.number(top.get('temperature'), ['temperature'], { above: 0 }, 1);
  const lens = r.bool(top.get('lens'), ['lens'], false);
  const cpProp = top.get('corrupted_prompt');
  const corruptedPrompt = r.string(cpProp, ['corrupted_prompt']) ?? null;
  const ciProp = top.get('corrupted_token_ids');
  const corruptedIds = ciProp?.value ? r.integers(ciProp.value, ['corrupted_token_ids']) : null;
  if (cpProp && ciProp) r.error('value', ['corrupted_token_ids'], { start: ciProp.keyStart, end: ciProp.keyEnd }, 'use either "corrupted_prompt" or "corrupted_token_ids", not both');
  const saes = readSaes(r, top.get('saes'));
  const saeEdits = readSaeEdits(r, top);
  const generate = readGenerate(r, top.get('generate'), at);
  const steers = readSteers(r, top.get('steer'));
  if (r.hasErrors() || folder === undefined) return null;
  const { promptProp, prompt, idsProp, tokenIds } = input;
  return {
    name, folder, folderAt: at(folderProp, ['checkpoint']),
    tokenizer, tokenizerAt: tokenizerProp ? at(tokenizerProp, ['tokenizer']) : null,
    prompt, promptAt: promptProp ? at(promptProp, ['prompt']) : null,
    tokenIds, tokenIdsAt: idsProp ? at(idsProp, ['token_ids']) : null,
    tokens, tokensAt: tokensProp ? at(tokensProp, ['tokens']) : null,
    ablate, scale, weights, temperature, lens,
    corruptedPrompt, corruptedPromptAt: cpProp ? at(cpProp, ['corrupted_prompt']) : null,
    corruptedIds, corruptedIdsAt: ciProp ? at(ciProp, ['corrupted_token_ids']) : null,
    saes, saeEdits, steers,
    generate,
  };
}

/** The input: `prompt` (text for the tokenizer) or `token_ids`, one of the two. */
interface Input { promptProp?: PropertyNode; prompt: string | null; idsProp?: PropertyNode; tokenIds: number[] | null }

function readInput(r: NumberReader, top: Map<string, PropertyNode>, folderProp: PropertyNode): Input {
  const promptProp = top.get('prompt');
  const prompt = r.string(promptProp, ['prompt']) ?? null;
  const idsProp = top.get('token_ids');
  let tokenIds: number[] | null = null;
  if (idsProp?.value) tokenIds = r.integers(idsProp.value, ['token_ids']);
  if (promptProp && idsProp) r.error('value', ['token_ids'], { start: idsProp.keyStart, end: idsProp.keyEnd }, 'use either "prompt" or "token_ids", not both');
  if (!promptProp && !idsProp) r.error('missing', [], { start: folderProp.keyStart, end: folderProp.keyEnd }, 'a checkpoint model file needs its input: "prompt": "some text" (tokenized with the tokenizer), or "token_ids": [1, 2, 3]');
  if (tokenIds && tokenIds.length === 0) r.error('value', ['token_ids'], idsProp!.value!, 'token_ids is empty: give at least one token id');
  if (prompt === '') r.error('value', ['prompt'], promptProp!.value!, 'prompt is empty: give some text to tokenize');
  return { promptProp, prompt, idsProp, tokenIds };
}

/** `ablate`: a list of units. */
function readUnits(r: NumberReader, p: PropertyNode | undefined): UnitRef[] {
  if (!p?.value) return [];
  const list = r.strings(p.value, ['ablate']);
  if (!list || p.value.kind !== 'array') return [];
  const out: UnitRef[] = [];
  list.forEach((text, i) => {
    const item = (p.value as ArrayNode).items[i];
    const u = parseUnit(text);
    if (!u) {
      r.error('value', ['ablate', i], item, `ablate[${i}] is ${quote(text)}: a unit is "layers.i.ffn.neuron.j" (neuron j of layer i's FFN) or "layers.i.attn.head.h" (head h of layer i's attention)`);
      return;
    }
    out.push({ ...u, text, at: { start: item.start, end: item.end, path: ['ablate', i] } });
  });
  return out;
}

/** `scale`: { unit: factor }. */
function readScales(r: NumberReader, p: PropertyNode | undefined): Array<UnitRef & { factor: number }> {
  if (!p?.value) return [];
  if (p.value.kind !== 'object') {
    r.error('type', ['scale'], p.value, `scale must be an object of units and factors, e.g. { "layers.0.ffn.neuron.3": 2.5 }, found ${describe(p.value)}`);
    return [];
  }
  const out: Array<UnitRef & { factor: number }> = [];
  for (const q of p.value.props) {
    const path: PathSegment[] = ['scale', q.key];
    const u = parseUnit(q.key);
    if (!u) {
      r.error('value', path, { start: q.keyStart, end: q.keyEnd }, `${quote(q.key)} is not a unit: a unit is "layers.i.ffn.neuron.j" or "layers.i.attn.head.h"`);
      continue;
    }
    const factor = r.number(q, path, { float32: true }, NaN);
    if (Number.isNaN(factor)) continue;
    out.push({ ...u, factor, text: q.key, at: { start: q.keyStart, end: q.end, path } });
  }
  return out;
}

/** `weights`: { target: number or numbers }. */
function readOverrides(r: NumberReader, p: PropertyNode | undefined): WeightOverride[] {
  if (!p?.value) return [];
  if (p.value.kind !== 'object') {
    r.error('type', ['weights'], p.value, `weights must be an object of targets and values, e.g. { "layers.0.ffn.W1[3]": [ … ] }, found ${describe(p.value)}`);
    return [];
  }
  const out: WeightOverride[] = [];
  for (const q of p.value.props) {
    const o = readOverride(r, q);
    if (o) out.push(o);
  }
  return out;
}

/** One `weights` entry: a row or a vector (numbers), or one number. */
function readOverride(r: NumberReader, q: PropertyNode): WeightOverride | null {
  const path: PathSegment[] = ['weights', q.key];
  const t = parseTarget(q.key);
  const keyAt = { start: q.keyStart, end: q.keyEnd };
  if (!t) {
    r.error('value', path, keyAt, `${quote(q.key)} is not a weight the format can override; the forms are ${TARGET_FORMS}`);
    return null;
  }
  if (!q.value) return null;
  const matrix = isMatrixParam(t.param);
  const one = matrix ? t.col !== null : t.row !== null;
  if (matrix && t.row === null) {
    r.error('value', path, keyAt, `${quote(q.key)} names a whole matrix: override a row ("${t.param}[3]") or one number ("${t.param}[3][5]")`);
    return null;
  }
  if (!matrix && t.col !== null) {
    r.error('value', path, keyAt, `${quote(q.key)}: ${t.param} is a vector: one index at most ("${t.param}[3]")`);
    return null;
  }
  let values: Float32Array | null = null;
  if (one) {
    const v = r.number(q, path, { float32: true }, NaN);
    if (!Number.isNaN(v)) values = new Float32Array([v]);
  } else {
    values = r.vector(q.value, path)?.data ?? null;
  }
  if (!values) return null;
  return { ...t, values, text: q.key, at: { start: q.keyStart, end: q.end, path } };
}
