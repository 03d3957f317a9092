// The reference cases of SAEs and steering (test/fixtures/sae-cases/, steer-cases/): each a JSON
// case (a model file, the stages PyTorch computed, a tolerance) beside the checkpoints and SAEs it
// names. One loader for both: the cases of a folder, and their model files read and resolved as
// the worker does (a store holding weights in the WebAssembly kernel where there is one).
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFiles } from '../../src/checkpoint/nodeFiles';
import { CheckpointResolver } from '../../src/checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../../src/checkpoint/store';
import { tsKernel, type MatmulKernel } from '../../src/core/kernel';
import type { Model } from '../../src/core/model';
import type { Stage } from '../../src/core/stages';
import { createWasmKernel } from '../../src/core/wasm';
import type { ModelFile } from '../../src/model/read';
import { readModel } from '../../src/model/read';
import type { Problem } from '../../src/model/problems';
import { FIXTURES } from './fixtures';

export interface ReferenceCase {
  readonly model: Record<string, unknown>;
  readonly expected: Record<string, { shape: number[]; data: number[] }>;
  readonly tolerance: { abs: number; rel: number };
}

const wasm = createWasmKernel();
/** The kernel the cases run on (the WebAssembly one where there is one, as the worker). */
export const caseKernel: MatmulKernel = wasm ?? tsKernel;
/** Whether the store holds weights in the WebAssembly kernel (W_enc as panels there). */
export const caseWasm = wasm !== null;
const store = new CheckpointStore(nodeFiles, undefined, wasm ?? undefined);

export interface CaseFolder<C extends ReferenceCase> {
  readonly dir: string;
  /** The case files, sorted (`skip`: the other JSON files of the folder). */
  readonly cases: string[];
  read(file: string): C;
  /** A model file (as an object) read and resolved as if it lay in `dir` (or `at`). */
  readIn(model: Record<string, unknown>, resolver?: CheckpointResolver, at?: string): Promise<{ file: ModelFile | null; model: Model | null; problems: Problem[] }>;
  /** As readIn, with no problem allowed. */
  modelOf(model: Record<string, unknown>, resolver?: CheckpointResolver): Promise<Model>;
}

export function caseFolder<C extends ReferenceCase>(name: string, skip: (file: string) => boolean = () => false): CaseFolder<C> {
  const dir = join(FIXTURES, name);
  const readIn: CaseFolder<C>['readIn'] = async (model, resolver = new CheckpointResolver(), at = dir) => {
    const path = join(at, 'x.ffn.json');
    const read = await resolveReadNow(readModel(JSON.stringify(model), path), path, store, resolver);
    return { file: read.file ?? null, model: read.file?.model ?? null, problems: read.problems };
  };
  return {
    dir,
    cases: readdirSync(dir).filter((f) => f.endsWith('.json') && !skip(f)).sort(),
    read: (f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as C,
    readIn,
    async modelOf(model, resolver) {
      const r = await readIn(model, resolver);
      assert.deepEqual(r.problems.map((p) => p.message), []);
      return r.model!;
    },
  };
}

export const byId = (stages: readonly Stage[]): Map<string, Float32Array> => new Map(stages.map((s) => [s.id, s.data]));
export const sameBits = (a: Float32Array, b: Float32Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
/** The model file without the keys `drop` names. */
export const without = (m: Record<string, unknown>, drop: (key: string) => boolean): Record<string, unknown> => Object.fromEntries(Object.entries(m).filter(([k]) => !drop(k)));
