// Tensors of the core: a Float32Array, row-major, with its shape.
//
// Dimension key used in every comment of src/core/:
//   T  = seq (tokens)      C  = d_model        F  = d_ff
//   NH = heads             HS = head size = C / NH
//   V  = vocab             OC = output channels of a linear layer

export interface Tensor {
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

/** Number of elements a shape holds. */
export function sizeOf(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** `[5, 32]`: the form every shape message uses. */
export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

/** The invariant every stage keeps: as many numbers as its shape says (a bug of ours otherwise). */
export function checkSize(what: string, shape: readonly number[], data: Float32Array): void {
  const n = sizeOf(shape);
  if (data.length !== n) throw new RangeError(`${what} has ${data.length} numbers, its shape ${formatShape(shape)} needs ${n}`);
}
