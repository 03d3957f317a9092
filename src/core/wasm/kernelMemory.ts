// One WebAssembly matmul kernel's memory: the heap over it, a Float32Array view kept current as
// it grows, and the scratch blocks kept between calls. The kernel's products (wasmKernel.ts) and
// its weights (wasmWeights.ts) share it.

import type { WasmMemory } from './wasmApi';
import { BLOCK_ALIGN, WasmHeap } from './wasmHeap';

export class KernelMemory {
  readonly heap: WasmHeap;
  private f32View: Float32Array;
  private viewGrowths = 0;
  private scratchPtr = 0;
  private scratchBytes = 0;
  private panelsPtr = 0;
  private panelsBytes = 0;

  constructor(readonly memory: WasmMemory) {
    this.heap = new WasmHeap(memory);
    this.f32View = new Float32Array(memory.buffer);
  }

  // The current Float32Array over memory. memory.grow replaces the buffer, and only the heap
  // grows it (the module has no memory.grow), so its count says when to re-make the view;
  // reading memory.buffer each call costs more than a small matmul.
  view(): Float32Array {
    if (this.viewGrowths !== this.heap.growths) {
      this.f32View = new Float32Array(this.memory.buffer);
      this.viewGrowths = this.heap.growths;
    }
    return this.f32View;
  }

  // One scratch block for a and out, kept between calls and replaced only when too small.
  scratch(bytes: number): number {
    if (bytes > this.scratchBytes) {
      if (this.scratchBytes > 0) this.heap.free(this.scratchPtr);
      this.scratchBytes = 0; // stays consistent if alloc throws
      this.scratchPtr = this.heap.alloc(bytes);
      this.scratchBytes = bytes;
    }
    return this.scratchPtr;
  }

  // Scratches of KN_GROUP panels for mm_kn, one per thread, kept and replaced only when too small.
  panelScratch(bytes: number, threads: number): number {
    const both = threads * alignUp(bytes);
    if (both > this.panelsBytes) {
      if (this.panelsBytes > 0) this.heap.free(this.panelsPtr);
      this.panelsBytes = 0;
      this.panelsPtr = this.heap.alloc(both);
      this.panelsBytes = both;
    }
    return this.panelsPtr;
  }
}

export function alignUp(bytes: number): number {
  return Math.ceil(bytes / BLOCK_ALIGN) * BLOCK_ALIGN;
}
