// Sinusoidal positions (Attention Is All You Need, 3.5), added to the token vectors:
//   PE(pos, 2i) = sin(pos / 10000^(2i/C)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/C))

// out (T,C) = inp (T,C) + PE (T,C)
export function positionalForward(out: Float32Array, inp: Float32Array, T: number, C: number): void {
  for (let pos = 0; pos < T; pos++) {
    for (let c = 0; c < C; c++) {
      const i2 = c - (c % 2);
      const angle = pos / Math.pow(10000, i2 / C);
      const pe = c % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
      out[pos * C + c] = inp[pos * C + c] + pe;
    }
  }
}
