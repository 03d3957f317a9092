// NumPy's .npy format (version 1.0) for a float32 array: what `numpy.load` reads. The header is a
// Python dict literal, padded with spaces so that the data starts on a 64-byte boundary.
//   \x93NUMPY  1 0  HEADER_LEN (uint16 LE)  {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }  …\n  data

export function npyBytes(data: Float32Array, shape: readonly number[]): Uint8Array {
  const n = shape.reduce((a, b) => a * b, 1);
  if (n !== data.length) throw new RangeError(`npy: shape [${shape.join(', ')}] holds ${n} values, the data ${data.length}`);
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims}), }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const out = new Uint8Array(10 + header.length + data.length * 4);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0); // \x93NUMPY v1.0
  out[8] = header.length & 0xff;
  out[9] = header.length >> 8;
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  const body = new DataView(out.buffer, 10 + header.length);
  for (let i = 0; i < data.length; i++) body.setFloat32(i * 4, data[i], true);
  return out;
}

/** A stage as CSV: one line per row of its last axis (heads and rows of a 3-D stage first, as columns `head,row`). */
export function csvText(data: Float32Array, shape: readonly number[], rowLabels: readonly string[] | null, format: (v: number) => string): string {
  const cols = shape[shape.length - 1] ?? 1;
  const rows = data.length / cols;
  const lead = shape.length === 3 ? ['head', 'row'] : ['row'];
  const lines = [[...lead, ...Array.from({ length: cols }, (_, j) => String(j))].join(',')];
  const quote = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  for (let r = 0; r < rows; r++) {
    const R = shape.length === 3 ? shape[1] : rows;
    const t = r % R;
    const label = rowLabels?.[t] !== undefined ? quote(rowLabels[t]) : String(t);
    const lead2 = shape.length === 3 ? [String(Math.floor(r / R)), label] : [label];
    const vals: string[] = [];
    for (let j = 0; j < cols; j++) vals.push(format(data[r * cols + j]));
    lines.push([...lead2, ...vals].join(','));
  }
  return lines.join('\n') + '\n';
}
