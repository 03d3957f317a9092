// config.json's sizes checked against what the safetensors headers hold, before anything is built
// from them: a config.json that claims 100,000,000 layers, or a vocabulary or hidden size wider
// than the embedding, is one error naming both numbers, not a list of every layer's tensor names
// (which ran the process out of memory) nor a buffer of that size.

import type { ArchConfig } from './config';
import { describeValue } from '../common/quote';
import { CheckpointError } from './errors';
import { embeddingTensor, layerStem, modelPrefix, storedName } from './tensorNames';
import { adapterOf } from './arch';

/** What the check needs of a tensor: its shape as its header gives it. */
interface Held { readonly info: { readonly shape: readonly number[] } }

/** Far past any real model's, and what a run's plan and the vocabulary's labels can hold without exhausting the worker. */
export const MAX_LAYERS = 4096;
export const MAX_VOCAB = 2 ** 22;

/** Whole numbers with commas (100,000,000), as messages show sizes. */
const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Throws the first size of `arch` that the tensors do not hold: its layers (counted as the distinct
 * layer numbers in the tensors' names, so a name cannot claim more than one), the embedding's
 * vocabulary and width, GPT-2's positions. Costs one pass over the names, whatever config.json says.
 */
export function checkSizes(arch: ArchConfig, tensors: ReadonlyMap<string, Held>): void {
  const keys = adapterOf(arch.modelType).sizeKeys; // (config.json's key for each size)
  const prefix = modelPrefix(arch.modelType);
  const fail = (message: string): never => {
    throw new CheckpointError(`config.json says ${message}`, { file: 'config.json' });
  };

  const held = heldLayers(tensors.keys(), prefix + layerStem(arch.modelType), layerStem(arch.modelType));
  if (arch.L > held.count) {
    const which = held.count === 0 ? `no layers (no tensor named ${prefix}${layerStem(arch.modelType)}0.…)` : `${count(held.count)} layer${held.count === 1 ? '' : 's'} (${held.first} … ${held.last})`;
    fail(`${keys.L} ${count(arch.L)}, but the tensors hold ${which}`);
  }

  const shapeOf = (name: string): { stored: string; shape: readonly number[] } | null => {
    const stored = storedName(tensors, name, prefix);
    return stored === null ? null : { stored, shape: tensors.get(stored)!.info.shape };
  };
  // (a missing or odd embedding is said by the tensor check that follows, in its own words)
  const embed = shapeOf(embeddingTensor(arch.modelType));
  if (embed && embed.shape.length === 2) {
    const [V, C] = embed.shape;
    const is = `${embed.stored} is ${describeValue(embed.shape)}`;
    if (C !== arch.C) fail(`${keys.C} ${count(arch.C)}, but the tensors hold ${count(C)} (${is})`);
    if (V !== arch.V) fail(`${keys.V} ${count(arch.V)}, but the tensors hold ${count(V)} words (${is})`);
  }
  const pos = arch.modelType === 'gpt2' ? shapeOf('wpe.weight') : null;
  if (pos && pos.shape.length === 2 && pos.shape[0] !== arch.maxPositions) {
    fail(`n_positions ${count(arch.maxPositions)}, but the tensors hold ${count(pos.shape[0])} positions (${pos.stored} is ${describeValue(pos.shape)})`);
  }
  // (files that agree with config.json can still be absurd: a header of 100 MB names a million tiny tensors)
  if (arch.L > MAX_LAYERS) fail(`${keys.L} ${count(arch.L)}; FFN Lens computes and draws at most ${count(MAX_LAYERS)} layers (the deepest models have ~130)`);
  if (arch.V > MAX_VOCAB) fail(`${keys.V} ${count(arch.V)}; FFN Lens labels at most ${count(MAX_VOCAB)} words (the widest vocabularies have ~260,000)`);
}

/**
 * The distinct layer numbers in the names (`model.layers.3.…` or `layers.3.…`), and the stored
 * names of the lowest and highest, for the message.
 */
function heldLayers(names: Iterable<string>, withPrefix: string, stem: string): { count: number; first: string; last: string } {
  const seen = new Set<string>();
  let lo = Infinity;
  let hi = -Infinity;
  let first = '';
  let last = '';
  for (const name of names) {
    const rest = name.startsWith(withPrefix) ? name.slice(withPrefix.length) : name.startsWith(stem) ? name.slice(stem.length) : null;
    if (rest === null) continue;
    const m = /^(\d{1,15})\./.exec(rest);
    if (!m || seen.has(m[1])) continue;
    seen.add(m[1]);
    const n = Number(m[1]);
    const shown = name.slice(0, name.length - rest.length + m[1].length);
    if (n < lo) [lo, first] = [n, shown];
    if (n > hi) [hi, last] = [n, shown];
  }
  return { count: seen.size, first, last };
}
