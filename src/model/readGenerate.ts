// `generate` of a checkpoint model file: how many tokens to decode after the input and how each is
// chosen (format.ts's GENERATE_FIELDS; src/core/decode.ts does it). Each bad value is said at its
// key. What needs the checkpoint (the positions the tokens take) is checked when it is resolved.

import { GENERATE_FIELDS } from './format';
import type { PropertyNode } from './jsonc';
import type { At, GenerateRequest } from './checkpointRequest';
import type { NumberReader } from './readNumbers';
import { describe } from './readerBase';

/** The largest seed: mulberry32 takes 32 bits. */
export const MAX_SEED = 4294967295;

/** `generate`, or null when it is absent or wrong (said). `at`: where a key's value stands. */
export function readGenerate(r: NumberReader, p: PropertyNode | undefined, at: (p: PropertyNode | undefined, path: Array<string | number>) => At): GenerateRequest | null {
  if (!p?.value || p.value.kind === 'invalid') return null;
  if (p.value.kind !== 'object') {
    r.error('type', ['generate'], p.value, `generate must be an object, e.g. { "tokens": 24, "temperature": 0, "top_k": 5, "seed": 1 }, found ${describe(p.value)}`);
    return null;
  }
  const f = r.fields(p.value, ['generate'], GENERATE_FIELDS);
  const dflt = (k: string): number => GENERATE_FIELDS[k].default as number;
  const before = r.problems.length;
  const tokens = r.number(f.get('tokens'), ['generate', 'tokens'], { integer: true, min: 1 }, dflt('tokens'));
  const temperature = r.number(f.get('temperature'), ['generate', 'temperature'], { min: 0 }, dflt('temperature'));
  const topK = r.number(f.get('top_k'), ['generate', 'top_k'], { integer: true, min: 1 }, dflt('top_k'));
  const seedProp = f.get('seed');
  const seed = r.number(seedProp, ['generate', 'seed'], { integer: true, min: 0 }, dflt('seed'));
  if (seed > MAX_SEED) r.error('value', ['generate', 'seed'], seedProp!.value!, `generate.seed must be at most ${MAX_SEED} (the generator takes 32 bits), found ${seed}`);
  if (r.problems.slice(before).some((x) => x.severity === 'error')) return null;
  const tokensProp = f.get('tokens');
  return { tokens, temperature, topK, seed, at: at(p, ['generate']), tokensAt: tokensProp ? at(tokensProp, ['generate', 'tokens']) : at(p, ['generate']) };
}
