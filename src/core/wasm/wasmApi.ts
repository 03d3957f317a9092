// The few WebAssembly JS API types this folder uses. tsconfig's lib is ES2022 without DOM and
// @types/node 20 does not declare the WebAssembly global, so they are spelled out here, and the
// global is read through globalThis (absent in some hosts: then the caller falls back to TS).

export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}

export interface WasmInstance {
  readonly exports: Record<string, unknown>;
}

export interface WasmModule {
  readonly __wasmModule?: never;
}

export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: Record<string, Record<string, unknown>>) => WasmInstance;
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
}

/** The host's WebAssembly object, or null when there is none. */
export function wasmApi(): WasmApi | null {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  return api !== undefined && typeof api.validate === 'function' ? api : null;
}

export const WASM_PAGE_BYTES = 65536;
