// Section `generate`: 32 tokens generated on a random-weight GPT-2-small (F32, 12 layers) after an
// 8-token input, with the KV cache (the engine's append path: src/core/decode.ts) against the whole
// sequence computed afresh at every step (issue 31: the cache ≤ 0.4× of that). Greedy; the same
// tokens either way (checked). Each way timed in turn, three times, the medians compared.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { nodeFiles } from '../src/checkpoint/nodeFiles';
import type { CheckpointPresetId } from '../src/checkpoint/presets';
import { CheckpointResolver } from '../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../src/checkpoint/store';
import { decode, type Decoding } from '../src/core/decode';
import { Engine } from '../src/core/engine';
import type { MatmulKernel } from '../src/core/matmulKernel';
import { readModel } from '../src/model/read';

const TOKENS = 32;
const PROMPT = 8;

function drain(g: Generator<unknown, Decoding>): number[] {
  for (;;) {
    const r = g.next();
    if (r.done) return r.value.tokens.map((t) => t.id);
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];

export async function generationBench(kernel: MatmulKernel, folderOf: (id: CheckpointPresetId) => string): Promise<Record<string, number>> {
  const folder = folderOf('gpt2-small-checkpoint');
  console.log(`\n# generate: ${TOKENS} tokens after ${PROMPT} on a random-weight GPT-2-small, greedy: the KV cache (append path) vs the whole sequence every step`);
  const path = join(folder, '..', 'gen.ffn.json');
  const ids = Array.from({ length: PROMPT }, (_, i) => (i * 7919) % 40000);
  const text = JSON.stringify({ version: 1, checkpoint: folder, token_ids: ids });
  const read = await resolveReadNow(readModel(text, path), path, new CheckpointStore(nodeFiles, undefined, kernel), new CheckpointResolver());
  const model = read.file!.model;
  const settings = { tokens: TOKENS, temperature: 0, topK: 5, seed: 1 };
  const cached: number[] = [];
  const fresh: number[] = [];
  let same = true;
  for (let i = 0; i < 3; i++) {
    let t = performance.now();
    const a = drain(decode(new Engine(kernel), model, settings));
    cached.push(performance.now() - t);
    t = performance.now();
    const b = drain(decode(new Engine(kernel), model, settings, { recompute: true }));
    fresh.push(performance.now() - t);
    same &&= a.join() === b.join();
  }
  const c = median(cached);
  const f = median(fresh);
  const ratio = Math.round((c / f) * 1000) / 1000;
  console.log(`  with the cache ${c.toFixed(0)} ms (${(c / TOKENS).toFixed(1)} ms a token), recomputing ${f.toFixed(0)} ms: ${ratio}× (bound 0.4×)${same ? '' : ' — THE TOKENS DIFFER'}`);
  if (!same) throw new Error('generation with the cache chose other tokens than recomputing');
  return { cachedMs: Math.round(c), recomputeMs: Math.round(f), ratio, msPerToken: Math.round((c / TOKENS) * 10) / 10 };
}
