// The activation function's curve over the range of this input's pre-activation values, with
// every (token, neuron) value plotted on it, and ReLU beside GELU/SiLU for comparison: which
// neurons does the function silence, which does it let through, and how far below zero.
import { activationFn } from '../../src/core/activationFns';
import { activationLabel, gateActivation, isGated, type Activation } from '../../src/core/activationKinds';
import { afterPaint, h } from '../dom';
import type { TooltipItem } from 'chart.js';
import { makeChart, themeColors, type Chart } from './charts';

const fmt = (v: number): string => (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(2) : String(Number(v.toFixed(4))));

export class ActivationChart {
  readonly el: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly caption: HTMLElement;
  private chart: Chart | null = null;

  constructor() {
    this.canvas = h('canvas', { class: 'chart-canvas', role: 'img' });
    this.caption = h('p', { class: 'chart-caption' });
    this.el = h('div', { class: 'chart activation-chart' }, h('div', { class: 'chart-box' }, this.canvas), this.caption);
  }

  private last: { activation: Activation; pre: Float32Array; tokens: readonly string[] } | null = null;
  private readonly drawLater = afterPaint(() => {
    if (this.last) this.update(this.last.activation, this.last.pre, this.last.tokens);
  });

  /** New values, drawn once the heatmaps that changed with them are on screen (the chart is not what an edit waits for). */
  later(activation: Activation, pre: Float32Array, tokens: readonly string[]): void {
    this.last = { activation, pre, tokens };
    this.drawLater();
  }

  /** The theme changed: draw again with its colors. */
  retheme(): void {
    this.chart?.destroy();
    this.chart = null;
    if (this.last) this.update(this.last.activation, this.last.pre, this.last.tokens);
  }

  /**
   * pre: the values the function is applied to (up, or gate when gated), (T, F) for the tokens;
   * the chart shows f(pre) (not ⊙ up).
   */
  update(activation: Activation, pre: Float32Array, tokens: readonly string[]): void {
    this.last = { activation, pre, tokens };
    const T = Math.max(1, tokens.length);
    const F = Math.max(1, Math.floor(pre.length / T));
    const f = activationFn(activation);
    const sample = sampled(pre, f, F);
    if (!sample) return;
    const { points, silenced } = sample;
    const { lo, hi } = sample;
    const curve = (g: (x: number) => number): Array<{ x: number; y: number }> =>
      Array.from({ length: 121 }, (_, i) => {
        const x = lo + ((hi - lo) * i) / 120;
        return { x, y: g(x) };
      });
    const name = activationLabel(activation);
    // (a gated activation plots its function of the gate: geglu_tanh → GELU (tanh))
    const plain = gateActivation(activation);
    const base = activationLabel(plain);
    const c = themeColors();
    const datasets: NonNullable<import('chart.js').ChartConfiguration<'scatter'>['data']>['datasets'] = [
      { type: 'scatter', label: 'this input', data: points, pointRadius: 2.5, backgroundColor: c.accent2, borderColor: c.accent2 },
      { type: 'line', label: base, data: curve(f), borderColor: c.accent, borderWidth: 2, pointRadius: 0, fill: false } as never,
    ];
    if (plain !== 'relu' && plain !== 'linear') {
      datasets.push({ type: 'line', label: 'ReLU', data: curve((x) => Math.max(0, x)), borderColor: c.muted, borderDash: [4, 4], borderWidth: 1, pointRadius: 0, fill: false } as never);
    }
    const config = {
      type: 'scatter' as const,
      data: { datasets },
      options: {
        animation: false as const, responsive: true, maintainAspectRatio: false,
        scales: {
          x: { type: 'linear' as const, title: { display: true, text: isGated(activation) ? 'gate (pre-activation)' : 'up (pre-activation)' }, grid: { color: c.grid } },
          y: { type: 'linear' as const, title: { display: true, text: `${base}(x)` }, grid: { color: c.grid } },
        },
        plugins: {
          legend: { display: true, labels: { boxWidth: 12 } },
          tooltip: {
            enabled: true,
            // the points under the pointer (many can share a place: say how many beyond a few)
            filter: (item: TooltipItem<'scatter'>, i: number) => i < 6 || item.datasetIndex !== 0,
            callbacks: {
              label: (item: TooltipItem<'scatter'>) => {
                const p = item.raw as { x: number; y: number; t?: number; j?: number };
                if (item.datasetIndex === 0 && p.t !== undefined) return `"${tokens[p.t] ?? `t${p.t}`}", neuron ${p.j}: ${fmt(p.x)} → ${fmt(p.y)}`;
                return `${item.dataset.label}(${fmt(p.x)}) = ${fmt(p.y)}`;
              },
              footer: (items: TooltipItem<'scatter'>[]) => {
                // (items are the ones kept by filter; the chart's active elements are all of them)
                const n = items[0]?.chart.getActiveElements().filter((e) => e.datasetIndex === 0).length ?? 0;
                return n > 6 ? `… and ${n - 6} more at this place` : '';
              },
            },
          },
        },
      },
    };
    if (this.chart) {
      this.chart.data = config.data as never;
      this.chart.update('none');
    } else {
      this.chart = makeChart(this.canvas, config as never);
    }
    this.canvas.setAttribute('aria-label', `${name} curve with ${pre.length} pre-activation values`);
    const pct = ((100 * silenced) / pre.length).toFixed(0);
    this.caption.textContent = activation === 'linear'
      ? 'linear: nothing is silenced, and W2·W1 is a single matrix — the FFN adds no expressive power.'
      : `${base} silences ${silenced} of ${pre.length} values (${pct}%: |f(x)| < 0.001)${plain === 'gelu' || plain === 'gelu_tanh' ? '; unlike ReLU it lets small negatives through, down to −0.17' : ''}.`;
  }

  dispose(): void {
    this.chart?.destroy();
    this.chart = null;
  }
}

/**
 * The chart's x range (the values' range, padded), its points (at most 4000: a 32 × 3072 stage is
 * sampled evenly; each point knows its token and neuron, for its tooltip) and how many values f
 * silences (all of them counted); null when a value is not finite.
 */
function sampled(pre: Float32Array, f: (x: number) => number, F: number): { lo: number; hi: number; points: Array<{ x: number; y: number; t: number; j: number }>; silenced: number } | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of pre) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return null;
  const pad = Math.max(0.5, (hi - lo) * 0.08);
  const step = Math.max(1, Math.ceil(pre.length / 4000));
  const points: Array<{ x: number; y: number; t: number; j: number }> = [];
  for (let i = 0; i < pre.length; i += step) points.push({ x: pre[i], y: f(pre[i]), t: Math.floor(i / F), j: i % F });
  let silenced = 0;
  for (const v of pre) if (Math.abs(f(v)) < 1e-3) silenced++;
  return { lo: lo - pad, hi: hi + pad, points, silenced };
}
