// The allocator of one kernel's WebAssembly memory: first fit over a sorted free list, blocks
// coalesced on free, memory grown only when no free block fits. A long editing session packs
// weights thousands of times; as long as each pack is released, memory stays near the peak
// of what is live at once (wasm memory can grow but never shrink).

import { WASM_PAGE_BYTES, type WasmMemory } from './wasmApi';

/** Every block starts on a cache line (v128 loads of a panel row never straddle two). */
export const BLOCK_ALIGN = 64;

interface Span {
  off: number;
  size: number;
}

export class WasmHeap {
  private readonly freeSpans: Span[] = []; // sorted by off, never adjacent (coalesced)
  private readonly live = new Map<number, number>(); // off -> size
  private liveBytes = 0;
  private end: number; // bytes of memory the heap manages, from `base`
  private touched: number; // bytes below this were handed out at some time; past it memory is as grown: zeros
  /** Incremented on every memory.grow (which detaches views of the old buffer). */
  growths = 0;

  /** Bytes [0, base) are left alone (address 0 stays unused so no block is a null pointer). */
  constructor(readonly memory: WasmMemory, base = BLOCK_ALIGN) {
    this.end = memory.buffer.byteLength;
    this.touched = base;
    if (this.end > base) this.freeSpans.push({ off: base, size: this.end - base });
  }

  /** Byte offset of a new block of at least `bytes` bytes (contents undefined). */
  alloc(bytes: number): number {
    const size = Math.max(BLOCK_ALIGN, Math.ceil(bytes / BLOCK_ALIGN) * BLOCK_ALIGN);
    let i = this.freeSpans.findIndex((s) => s.size >= size);
    if (i < 0) {
      this.grow(size);
      i = this.freeSpans.length - 1;
    }
    const span = this.freeSpans[i];
    const off = span.off;
    if (span.size === size) this.freeSpans.splice(i, 1);
    else {
      span.off += size;
      span.size -= size;
    }
    this.live.set(off, size);
    this.liveBytes += size;
    this.touched = Math.max(this.touched, off + size);
    return off;
  }

  /**
   * alloc(), its first `bytes` zero: written only where a block was handed out before (memory
   * never handed out is as memory.grow made it, zeros; writing 500 MB of weights' zeros cost
   * 57 ms over the page faults the read pays anyway).
   */
  allocZeroed(bytes: number): number {
    const fresh = this.touched;
    const off = this.alloc(bytes);
    if (off < fresh) new Uint8Array(this.memory.buffer, off, Math.min(bytes, fresh - off)).fill(0);
    return off;
  }

  /** Bytes of the live block at `off` (as alloc() rounded them), or 0. */
  sizeOf(off: number): number {
    return this.live.get(off) ?? 0;
  }

  /** Returns a block from alloc() to the free list. */
  free(off: number): void {
    const size = this.live.get(off);
    if (size === undefined) throw new Error(`wasm heap: no live block at ${off}`);
    this.live.delete(off);
    this.liveBytes -= size;
    // insert sorted, then merge with the neighbours it touches
    let i = 0;
    while (i < this.freeSpans.length && this.freeSpans[i].off < off) i++;
    this.freeSpans.splice(i, 0, { off, size });
    const next = this.freeSpans[i + 1];
    if (next !== undefined && off + size === next.off) {
      this.freeSpans[i].size += next.size;
      this.freeSpans.splice(i + 1, 1);
    }
    const prev = this.freeSpans[i - 1];
    if (prev !== undefined && prev.off + prev.size === off) {
      prev.size += this.freeSpans[i].size;
      this.freeSpans.splice(i, 1);
    }
  }

  /** Size of the whole memory in bytes (what the process pays for). */
  get memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Bytes in blocks allocated and not yet freed. */
  get usedBytes(): number {
    return this.liveBytes;
  }

  // Makes the last free span (extended at the end of memory) at least `size` bytes.
  private grow(size: number): void {
    const last = this.freeSpans[this.freeSpans.length - 1];
    const tail = last !== undefined && last.off + last.size === this.end ? last.size : 0;
    const pages = Math.ceil((size - tail) / WASM_PAGE_BYTES);
    this.memory.grow(pages); // throws RangeError when the host refuses
    this.growths++;
    const added = pages * WASM_PAGE_BYTES;
    if (tail > 0) last.size += added;
    else this.freeSpans.push({ off: this.end, size: added });
    this.end += added;
  }
}
