// `ffn-lens generate FILE [--tokens N] [--temperature X] [--top-k K] [--seed S]`: tokens decoded
// after the model file's input (src/core/decode.ts, on the engine's append path), as one JSON
// object: the input's tokens, then each step's chosen token and its top_k with their
// probabilities. The options override the file's "generate" (its defaults where it has none).

import { decode, DecodeError, type DecodeSettings, type Decoding } from '../core/decode';
import { Engine } from '../core/engine';
import { defaultKernel } from '../core/kernel';
import { MAX_SEED } from '../model/readGenerate';
import type { ModelFile } from '../model/read';
import { fileSettings, joinedText, tokenTexts } from '../worker/generationText';

export const GENERATE_OPTIONS: readonly string[] = ['--tokens', '--temperature', '--top-k', '--seed'];

export const GENERATE_USAGE = `       ffn-lens generate FILE [--tokens N] [--temperature X] [--top-k K] [--seed S]

  generate  decode tokens after the input with the model as the file edits it (ablate,
         scale, weights at every step): each step's token and its top_k alternatives
         with p (head.probs) and, when sampling, q (the draw's probability). Defaults:
         the file's "generate", else tokens 24, temperature 0 (greedy), top_k 5, seed 1`;

/** A usage problem of the command's options (said as the message, exit code 2). */
export class GenerateUsageError extends Error {}

/** The settings: the file's "generate" (or the format's defaults), each option over it. */
export function generateSettings(file: ModelFile, opts: Readonly<Record<string, string>>): DecodeSettings {
  const g = fileSettings(file);
  const num = (name: string, whole: boolean, min: number, max: number, dflt: number): number => {
    const v = opts[name];
    if (v === undefined) return dflt;
    const x = Number(v);
    if (v.trim() === '' || !Number.isFinite(x) || (whole && !Number.isInteger(x)) || x < min || x > max) {
      throw new GenerateUsageError(`${name} needs ${whole ? 'a whole number' : 'a number'} from ${min}${max < Infinity ? ` to ${max}` : ''}, not "${v}"`);
    }
    return x;
  };
  return {
    tokens: num('--tokens', true, 1, 1e6, g.tokens),
    temperature: num('--temperature', false, 0, Infinity, g.temperature),
    topK: num('--top-k', true, 1, 1e9, g.topK),
    seed: num('--seed', true, 0, MAX_SEED, g.seed),
  };
}

/** The JSON `ffn-lens generate` prints (DecodeError: why the model cannot generate). */
export function generateCommand(file: ModelFile, opts: Readonly<Record<string, string>>): object {
  const settings = generateSettings(file, opts);
  const steps = decode(new Engine(defaultKernel()), file.model, settings, { maxPositions: file.checkpoint?.source.maxPositions ?? null });
  let r = steps.next();
  while (!r.done) r = steps.next();
  return { generate: generationJson(file, settings, r.value) };
}

function generationJson(file: ModelFile, s: DecodeSettings, d: Decoding): object {
  const text = tokenTexts(file);
  const r = (x: number): number => Number(x.toPrecision(7));
  return {
    settings: { tokens: s.tokens, temperature: s.temperature, top_k: s.topK, seed: s.seed },
    prompt: d.prompt.map(text),
    steps: d.tokens.map((t) => ({
      ...text(t.id),
      top: t.top.map((a) => ({ ...text(a.id), p: r(a.p), ...(a.q === undefined ? {} : { q: r(a.q) }) })),
    })),
    ids: d.tokens.map((t) => t.id),
    text: joinedText(file, d.tokens.map((t) => t.id)),
    note: d.note,
  };
}

export { DecodeError };
