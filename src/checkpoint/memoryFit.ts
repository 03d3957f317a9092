// Whether a checkpoint fits before a byte of its weights is read: what the model needs (its
// weights as they will be held, and the stages of a run) against what is available (the
// machine's free memory, told by the platform: src/worker/nodeRunBudget.ts on Node; a browser's
// bound on the web) and what one WebAssembly memory holds. A model that cannot fit is refused at
// the file's `checkpoint` key, saying both numbers, instead of failing in an allocation minutes in.

import { sizeOf } from '../core/tensor';
import { formatBytes, runSize } from '../core/runSize';
import type { ModelSpec } from '../core/spec';
import type { TensorInfo } from './safetensorsHeader';

import type { WeightLimits } from '../core/matmulKernel';

/**
 * Bytes a weight of a tensor stored as `dtype` takes once read, at most: float32. Which BF16/F16
 * tensors stay 16-bit is the loader's to say (load.ts: the matrices the forward multiplies and the
 * embedding); it counts them (modelNeeds' `held`), and this bound serves where it has not.
 */

export function heldBytesPerWeight(dtype: string): number {
  void dtype;
  return 4;
}

/** What the kernel's weights live in: a WebAssembly memory (wasm32) of at most 4 GiB, and how many of them it spreads weights over. */
export function weightMemoryLimit(): { readonly perMemory: number; readonly memories: number } {
  return { perMemory: 2 ** 32, memories: 1 };
}

/** The tokens of the run the check counts stages for (a longer input is bounded again when it runs: runTooLarge). */
export const CHECK_TOKENS = 128;

/** Memory as the platform tells it: what a new model may take now, and the machine's whole. */
export interface MemoryProbe {
  /** Bytes free for a model now. */
  free(): number;
  /** Bytes of the machine (or the browser's share), for the message. */
  total(): number;
  /** What `free` is, in words for the message ("free memory of this machine"). */
  readonly what: string;
}

/**
 * The web build's bound where the platform says nothing: half the device memory a browser reports
 * (navigator.deviceMemory, Chrome's, at most 8 GB), else 4 GiB; a tab's worker cannot know more.
 */
function browserProbe(): MemoryProbe {
  const device = (globalThis as { navigator?: { deviceMemory?: number } }).navigator?.deviceMemory;
  const total = typeof device === 'number' && device > 0 ? device * 2 ** 30 : 2 ** 33;
  return { free: () => total / 2, total: () => total, what: "the memory this browser reports" };
}

let probe: MemoryProbe = browserProbe();

export function setMemoryProbe(p: MemoryProbe): void {
  probe = p;
}

export function memoryProbe(): MemoryProbe {
  return probe;
}

/** What a model needs, in bytes. */
export interface ModelNeeds {
  /** Its weights as held (heldBytesPerWeight). */
  readonly weights: number;
  /** The largest tensor as held: one WebAssembly memory must hold it whole. */
  readonly largest: number;
  /** The stages of a run of CHECK_TOKENS tokens (runSize), the largest twice as a run holds it. */
  readonly stages: number;
  /** Whether every weight is held as float32 (the message says so). */
  readonly float32: boolean;
}

/** The weights' bytes as the loader holds them (16-bit matrices at 2 bytes), and the largest tensor's with its panels' padding. */
export interface HeldBytes {
  readonly bytes: number;
  readonly largest: number;
}

/**
 * `tensors`: the ones the model reads; `spec`: its spec for a run of CHECK_TOKENS tokens; `held`:
 * the loader's count of their bytes as held (without it, every weight as float32).
 */
export function modelNeeds(tensors: readonly TensorInfo[], spec: ModelSpec, held?: HeldBytes): ModelNeeds {
  let weights = 0;
  let largest = 0;
  for (const t of tensors) {
    const bytes = sizeOf(t.shape) * heldBytesPerWeight(t.dtype);
    weights += bytes;
    largest = Math.max(largest, bytes);
  }
  const run = runSize(spec);
  const stages = run.bytes + run.largest * 4;
  if (!held) return { weights, largest, stages, float32: true };
  return { weights: held.bytes, largest: held.largest, stages, float32: held.bytes >= weights };
}

/**
 * Why the model cannot be opened here, in words for the `checkpoint` key, or null. `reusable`:
 * bytes this process holds that the model may take (a cancelled read's blocks).
 */
export function cannotFit(needs: ModelNeeds, p: MemoryProbe = probe, reusable = 0, limits?: WeightLimits): string | null {
  const total = needs.weights + needs.stages;
  const as = needs.float32 ? ' as float32' : ' as held (16-bit matrices at 2 bytes a number)';
  const parts = `its weights ${formatBytes(needs.weights)}${as}, a run of ${CHECK_TOKENS} tokens ${formatBytes(needs.stages)}`;
  // (a kernel over several memories, wasm/multiKernel.ts, bounds only each array: one memory's cap)
  const { perMemory, memories } = limits ? { perMemory: limits.array, memories: limits.total === Infinity ? Infinity : Math.max(1, Math.floor(limits.total / limits.array)) } : weightMemoryLimit();
  // (the panels' padding and the read's staging take a little more: an eighth of each memory kept aside)
  const room = (perMemory * 7) / 8;
  if (needs.largest > room && memories === Infinity) {
    return `this model's largest tensor needs ${formatBytes(needs.largest)}${as}, more than one WebAssembly memory holds here (${formatBytes(room)}); open a smaller model`;
  }
  if (needs.weights > room * memories || needs.largest > room) {
    const held = memories === 1 ? `one WebAssembly memory, which holds at most ${formatBytes(perMemory)}` : `${memories} WebAssembly memories of ${formatBytes(perMemory)} each`;
    return `this model needs ${formatBytes(needs.weights)} for its weights${as}, available ${formatBytes(room * memories)}: FFN Lens holds them in ${held}; open a smaller model`;
  }
  const free = p.free() + reusable;
  if (total > free) {
    return `this model needs ${formatBytes(total)} of memory (${parts}), available ${formatBytes(free)} (${p.what}, ${formatBytes(p.total())} in all): close other programs or model files, or open a smaller model`;
  }
  return null;
}
