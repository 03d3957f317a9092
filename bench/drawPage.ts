// Loaded into a Chromium page by bench.ts: times drawing one 32 × 3072 heatmap as the panel draws it,
// and the baseline (a grey-level pass + putImageData of the same numbers) in turns. Each sample is
// a batch of draws of fresh numbers, since one draw takes under a millisecond and the page's clock
// ticks in 0.1 ms steps; the result is ms per draw.
import { drawHeatmap } from '../webview/heatmap';

const BATCH = 5;

function benchDraw(): { full: number[]; pooled: number[]; blit: number[] } {
  const rows = 32;
  const cols = 3072;
  const canvas = document.getElementById('c') as HTMLCanvasElement;
  canvas.style.width = '1024px';
  canvas.style.height = '320px';
  const batch = Array.from({ length: BATCH }, () => new Float32Array(rows * cols));
  let round = 0;
  // new numbers for every draw, as after an edit (filled outside the timing)
  const fresh = (): void => {
    round++;
    batch.forEach((data, b) => {
      for (let k = 0; k < data.length; k++) data[k] = Math.sin(k * 0.37 + round + b * 0.1) * 3;
    });
  };
  const landed = (): void => void canvas.getContext('2d')!.getImageData(0, 0, 1, 1); // wait for the pixels to land
  const full: number[] = [];
  const pooled: number[] = [];
  const blit: number[] = [];
  const plain = new ImageData(cols, rows);
  for (let i = 0; i < 30; i++) {
    fresh();
    let t0 = performance.now();
    for (const data of batch) {
      drawHeatmap(canvas, { data, rows, cols }, { colormap: 'coolwarm', range: [-3, 3], maxCells: { rows, cols } });
      landed();
    }
    full.push((performance.now() - t0) / BATCH);
    fresh();
    t0 = performance.now();
    for (const data of batch) {
      drawHeatmap(canvas, { data, rows, cols }, { colormap: 'coolwarm', range: [-3, 3], maxCells: { rows, cols: 1024 } });
      landed();
    }
    pooled.push((performance.now() - t0) / BATCH);
    // the baseline, what any drawing of these numbers must at least do: one pass over them to a
    // grey level per cell (no range, no colormap, no pooling), and the image put on the canvas
    fresh();
    t0 = performance.now();
    for (const data of batch) {
      const px = plain.data;
      for (let k = 0; k < data.length; k++) {
        const g = Math.max(0, Math.min(255, (data[k] * 42 + 128) | 0));
        px[4 * k] = g; px[4 * k + 1] = g; px[4 * k + 2] = g; px[4 * k + 3] = 255;
      }
      canvas.width = cols;
      canvas.height = rows;
      canvas.getContext('2d')!.putImageData(plain, 0, 0);
      landed();
    }
    blit.push((performance.now() - t0) / BATCH);
  }
  return { full: full.slice(4), pooled: pooled.slice(4), blit: blit.slice(4) }; // the first rounds warm up the JIT
}

(window as unknown as { benchDraw: typeof benchDraw }).benchDraw = benchDraw;
