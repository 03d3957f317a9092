// An SAE's activations [T, d_sae] read sparse: each token's active features (non-zero), the top k
// by value (ties: the smaller id first), as `ffn-lens sae` lists them (src/cli/saeCommand.ts).

export interface ActiveFeatures {
  /** How many features fire on the token. */
  readonly active: number;
  /** The top k, [feature, value], largest first. */
  readonly top: ReadonlyArray<readonly [number, number]>;
}

export function activeFeatures(acts: Float32Array, T: number, N: number, k: number): ActiveFeatures[] {
  const out: ActiveFeatures[] = [];
  for (let t = 0; t < T; t++) {
    const on: Array<[number, number]> = [];
    for (let f = 0, o = t * N; f < N; f++) if (acts[o + f] !== 0) on.push([f, acts[o + f]]);
    on.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    out.push({ active: on.length, top: on.slice(0, k) });
  }
  return out;
}
