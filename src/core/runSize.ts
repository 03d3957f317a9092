// What a run of a model holds, counted from its spec before anything is computed: every stage the
// plan keeps (plan.ts), as float32. An input can be short in the file and huge in memory (attention
// keeps NH·T·T numbers per layer, twice: 5,000 tokens of stories260K are 8 GB), so the readers
// compare this with the memory a run may take (runBudget) and refuse, saying both, instead of
// failing in the middle of an allocation.
//
// The count follows planModel's shapes; runSize.test.ts checks it against the plan itself. It is
// arithmetic on the spec (a loop over its layers), so it costs nothing however large the numbers.

import { isGated } from './activation';
import type { ModelSpec } from './spec';

export interface RunSize {
  /** Bytes of every stage a run keeps (aliases, which are another stage's numbers, not counted). */
  readonly bytes: number;
  /** Numbers of the largest stage (one array: at most MAX_ARRAY_LENGTH). */
  readonly largest: number;
}

/** A typed array's largest length in the engines FFN Lens runs in (V8: 2³² elements). */
export const MAX_ARRAY_LENGTH = 2 ** 32;

export function runSize(spec: ModelSpec): RunSize {
  const { T, C } = spec;
  let numbers = T * C; // input
  let largest = T * C;
  const add = (n: number): void => {
    numbers += n;
    if (n > largest) largest = n;
  };
  const norms = (spec.norm === 'none' ? 0 : 1) + (spec.residual ? 1 : 0); // a sublayer's end: residual, post-norm; or its pre-norm
  for (const layer of spec.layers) {
    const a = layer.attention;
    if (a) {
      add(a.NH * T * a.HS); // q
      add(a.KVH * T * a.HS); // k
      add(a.KVH * T * a.HS); // v
      add(a.NH * T * T); // scores
      add(a.NH * T * T); // weights
      add(T * a.NH * a.HS); // context
      add(T * C); // out
      for (let i = 0; i < norms; i++) add(T * C);
    }
    const f = layer.ffn;
    if (f) {
      add(T * f.F); // up
      if (isGated(f.activation)) add(T * f.F); // gate
      add(T * f.F); // act
      add(T * C); // down
      for (let i = 0; i < norms; i++) add(T * C);
    }
  }
  if (spec.finalNorm) add(T * C);
  if (spec.head) {
    add(T * spec.head.V); // logits
    add(T * spec.head.V); // probs
    if (spec.lens) for (let i = 0; i < spec.layers.length; i++) add(T * spec.head.V);
  }
  return { bytes: numbers * 4, largest };
}

/**
 * The memory a run may take, in bytes: set once by the platform (src/worker/nodeRunBudget.ts on Node,
 * from the machine's memory); 2 GiB where nothing says (a browser tab's worker, tests).
 */
let budget = 2 ** 31;

export function runBudget(): number {
  return budget;
}

export function setRunBudget(bytes: number): void {
  if (!(bytes > 0) || !Number.isFinite(bytes)) throw new RangeError(`setRunBudget: ${bytes} is not a number of bytes`);
  budget = bytes;
}

/**
 * Why a run of `spec` cannot be made, or null: more memory than the budget, or a stage longer than
 * an array can be. In words for a message: "needs 8.1 GB for its stages, available 2.1 GB".
 */
export function runTooLarge(spec: ModelSpec, available = runBudget()): string | null {
  const { bytes, largest } = runSize(spec);
  // (a run computes each stage beside the last run's, which it replaces: the largest counts twice)
  const needs = bytes + largest * 4;
  if (needs > available) return `needs ${formatBytes(needs)} for its stages, available ${formatBytes(available)}`;
  if (largest > MAX_ARRAY_LENGTH) return `its largest stage would hold ${largest.toLocaleString('en-US')} numbers, more than an array can (${MAX_ARRAY_LENGTH.toLocaleString('en-US')})`;
  return null;
}

/** Bytes for a message: "512 MB", "8.1 GB", "120 KB" (powers of 1000, as file sizes are shown). */
export function formatBytes(n: number): string {
  const units: Array<[number, string]> = [[1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'KB']];
  for (const [size, unit] of units) {
    if (n >= size) {
      const v = n / size;
      return `${v >= 100 || Number.isInteger(v) ? Math.round(v) : v.toFixed(1)} ${unit}`;
    }
  }
  return `${n} bytes`;
}

/** An allocation the engine refused (an ArrayBuffer, a typed array's length, a WebAssembly memory's growth). */
export function isOutOfMemory(e: unknown): boolean {
  if (!(e instanceof RangeError)) return false;
  return /Array buffer allocation failed|Invalid typed array length|Invalid array buffer length|Maximum memory size exceeded|Unable to grow instance memory|could not allocate memory|Out of memory/i.test(e.message);
}
