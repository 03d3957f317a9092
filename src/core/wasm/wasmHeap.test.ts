// The allocator of the wasm kernel's memory: first fit, coalescing, growth only when needed.
import * as assert from 'node:assert/strict';
import { WASM_PAGE_BYTES, wasmApi } from './wasmApi';
import { BLOCK_ALIGN, WasmHeap } from './wasmHeap';

function heap(pages = 1): WasmHeap {
  const api = wasmApi();
  assert.ok(api);
  return new WasmHeap(new api.Memory({ initial: pages }));
}

describe('WasmHeap (src/core/wasm/wasmHeap)', () => {
  it('aligns blocks to cache lines and never hands out address 0', () => {
    const h = heap();
    const offs = [1, 63, 64, 65, 1000].map((n) => h.alloc(n));
    for (const o of offs) assert.ok(o > 0 && o % BLOCK_ALIGN === 0, `offset ${o}`);
    assert.equal(new Set(offs).size, offs.length);
    assert.equal(h.usedBytes, 64 + 64 + 64 + 128 + 1024);
  });

  it('reuses a freed block and coalesces neighbours', () => {
    const h = heap();
    const a = h.alloc(1024), b = h.alloc(1024), c = h.alloc(1024);
    h.free(b);
    assert.equal(h.alloc(1000), b, 'first fit takes the hole');
    h.free(a);
    h.free(b);
    assert.equal(h.alloc(2048), a, 'a and b merged into one 2048-byte hole');
    h.free(c);
    assert.throws(() => h.free(c), /no live block/);
  });

  it('allocZeroed: zeros where a block was handed out before, memory never handed out as it was grown', () => {
    const h = heap(1);
    const bytes = (): Uint8Array => new Uint8Array(h.memory.buffer);
    const a = h.alloc(256);
    bytes().fill(7, a, a + 256);
    h.free(a);
    const b = h.allocZeroed(512); // over a's old bytes (written) and fresh ones past them
    assert.equal(b, a);
    assert.ok(bytes().subarray(b, b + 512).every((x) => x === 0), 'the reused part zeroed');
    // (memory past every block ever handed out is left alone: its zeros are memory.grow's)
    bytes()[b + 4096] = 9;
    const c = h.allocZeroed(64);
    assert.equal(c, b + 512);
    assert.equal(bytes()[b + 4096], 9, 'past the touched bytes nothing was written');
    bytes()[b + 4096] = 0; // (as no one but the heap's blocks may write)
    const d = h.allocZeroed(WASM_PAGE_BYTES); // grows: zeros from memory.grow
    assert.ok(new Uint8Array(h.memory.buffer, d, WASM_PAGE_BYTES).every((x) => x === 0));
  });

  it('grows only by what is missing, and the grown tail merges with a free tail', () => {
    const h = heap(1);
    assert.equal(h.memoryBytes, WASM_PAGE_BYTES);
    const a = h.alloc(WASM_PAGE_BYTES / 2);
    const big = h.alloc(WASM_PAGE_BYTES); // does not fit the free tail: grows by one page
    assert.equal(h.memoryBytes, 2 * WASM_PAGE_BYTES);
    assert.equal(big, a + WASM_PAGE_BYTES / 2, 'placed at the start of the free tail');
    h.free(a);
    h.free(big);
    assert.equal(h.usedBytes, 0);
    assert.equal(h.alloc(2 * WASM_PAGE_BYTES - BLOCK_ALIGN), BLOCK_ALIGN, 'everything merged back into one span');
    assert.equal(h.memoryBytes, 2 * WASM_PAGE_BYTES);
  });

  it('alloc/free in any order keeps memory at the peak of live bytes', () => {
    const h = heap(1);
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const live: number[] = [];
    for (let i = 0; i < 5000; i++) {
      if (live.length < 8 && rand(2) === 0) live.push(h.alloc(BLOCK_ALIGN * (1 + rand(256))));
      else if (live.length > 0) h.free(live.splice(rand(live.length), 1)[0]);
    }
    // at most 8 live blocks of ≤ 16 KiB: fragmentation may cost a few times that, not more
    assert.ok(h.memoryBytes <= 8 * WASM_PAGE_BYTES, `memory ${h.memoryBytes}`);
    for (const o of live) h.free(o);
    assert.equal(h.usedBytes, 0);
  });
});
