// Loaded into a Chromium page by bench.ts: times drawing one 32 × 3072 heatmap as the panel draws it.
import { drawHeatmap } from '../webview/heatmap';

function benchDraw(): { full: number[]; pooled: number[]; blit: number[] } {
  const rows = 32;
  const cols = 3072;
  const canvas = document.getElementById('c') as HTMLCanvasElement;
  canvas.style.width = '1024px';
  canvas.style.height = '320px';
  const data = new Float32Array(rows * cols);
  const full: number[] = [];
  const pooled: number[] = [];
  const blit: number[] = [];
  const plain = new ImageData(cols, rows);
  for (let i = 0; i < 40; i++) {
    for (let k = 0; k < data.length; k++) data[k] = Math.sin(k * 0.37 + i) * 3; // new numbers each time, as after an edit
    let t0 = performance.now();
    drawHeatmap(canvas, { data, rows, cols }, { colormap: 'coolwarm', range: [-3, 3], maxCells: { rows, cols } });
    canvas.getContext('2d')!.getImageData(0, 0, 1, 1); // wait for the pixels to land
    full.push(performance.now() - t0);
    t0 = performance.now();
    drawHeatmap(canvas, { data, rows, cols }, { colormap: 'coolwarm', range: [-3, 3], maxCells: { rows, cols: 1024 } });
    canvas.getContext('2d')!.getImageData(0, 0, 1, 1);
    pooled.push(performance.now() - t0);
    // the baseline, what any drawing of these numbers must at least do: one pass over them to a
    // grey level per cell (no range, no colormap, no pooling), and the image put on the canvas
    t0 = performance.now();
    const px = plain.data;
    for (let k = 0; k < data.length; k++) {
      const g = Math.max(0, Math.min(255, (data[k] * 42 + 128) | 0));
      px[4 * k] = g; px[4 * k + 1] = g; px[4 * k + 2] = g; px[4 * k + 3] = 255;
    }
    canvas.width = cols;
    canvas.height = rows;
    canvas.getContext('2d')!.putImageData(plain, 0, 0);
    canvas.getContext('2d')!.getImageData(0, 0, 1, 1);
    blit.push(performance.now() - t0);
  }
  return { full: full.slice(5), pooled: pooled.slice(5), blit: blit.slice(5) }; // the first draws warm up the JIT
}

(window as unknown as { benchDraw: typeof benchDraw }).benchDraw = benchDraw;
