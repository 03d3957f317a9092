// The residual-stream map's numbers (streamMap.ts), apart from the DOM so they test in Node.

/** norms (L, T): ‖out_i[t]‖ for each layer i with numbers, NaN where a layer's output has not come yet. */
export function streamNorms(L: number, T: number, C: number, out: (layer: number) => Float32Array | null): Float32Array {
  const norms = new Float32Array(L * T).fill(NaN);
  for (let i = 0; i < L; i++) {
    const x = out(i);
    if (!x) continue;
    for (let t = 0; t < T; t++) {
      let s = 0;
      for (let c = 0; c < C; c++) s += x[t * C + c] * x[t * C + c];
      norms[i * T + t] = Math.sqrt(s);
    }
  }
  return norms;
}
