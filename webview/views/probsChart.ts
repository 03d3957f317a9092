// The head's probabilities for one token (the last, by default) as bars of the top words:
// softmax of its logits divided by the temperature, as in the blog post's prediction step.
import type { TopWords } from '../../src/protocol/stages';
import { h } from '../dom';
import { makeChart, themeColors, type Chart, type Plugin } from './charts';
import { byteNote, predictedWordAt } from '../lenses/byteLabels';

/**
 * Each bar's probability as a percentage just past its end (chart.js draws no value labels
 * itself), the baseline's too when comparing, in a muted color: the chart keeps room at its right
 * for them (LABEL_ROOM), so a label never covers a bar.
 */
const percentLabels: Plugin<'bar'> = {
  id: 'ffnPercentLabels',
  afterDatasetsDraw(chart) {
    const { ctx } = chart;
    ctx.save();
    const c = themeColors();
    ctx.font = `11px ${getComputedStyle(document.body).getPropertyValue('--vscode-font-family') || 'sans-serif'}`;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'left';
    chart.data.datasets.forEach((ds, d) => {
      const values = ds.data as number[];
      ctx.fillStyle = d === 0 ? c.fg : c.muted;
      chart.getDatasetMeta(d).data.forEach((bar, i) => {
        const { x, y } = bar.getProps(['x', 'y'], true) as { x: number; y: number };
        ctx.fillText(percent(values[i]), x + 4, y);
      });
    });
    ctx.restore();
  },
};

/** Room at the chart's right for the label of a bar that reaches 100 %. */
const LABEL_ROOM = 52;

const TOP = 12;

export class ProbsChart {
  readonly el: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly select: HTMLElement & { value: string };
  private readonly caption: HTMLElement;
  private chart: Chart | null = null;
  private top: TopWords | null = null;
  private tokens: readonly string[] = [];
  private vocab: readonly string[] = [];
  private temperature = 1;
  /** Compare: the baseline's top words per token ([T][k] flattened), shown beside. */
  private baseline: TopWords | null = null;
  private baselineLabel = '';

  constructor(private token: number, private readonly onToken: (t: number) => void) {
    this.canvas = h('canvas', { class: 'chart-canvas', role: 'img' });
    this.select = h('vscode-single-select', { class: 'probs-token', 'aria-label': 'token' }) as HTMLElement & { value: string };
    this.select.addEventListener('change', () => {
      this.token = Number(this.select.value);
      this.onToken(this.token);
      this.draw();
    });
    this.caption = h('p', { class: 'chart-caption' });
    this.el = h('div', { class: 'chart probs-chart' },
      h('div', { class: 'control-row' }, h('span', { class: 'control-label' }, 'Next-word probabilities after'), this.select),
      h('div', { class: 'chart-box' }, this.canvas), this.caption);
  }

  /** The worker's top words of every token (its head.probs), most probable first. */
  update(top: TopWords, tokens: readonly string[], vocab: readonly string[], temperature: number): void {
    this.top = top;
    const changed = tokens.join('\u0000') !== this.tokens.join('\u0000');
    this.tokens = tokens;
    this.vocab = vocab;
    this.temperature = temperature;
    if (changed) {
      this.select.replaceChildren(...tokens.map((t, i) => h('vscode-option', { value: String(i) }, `${i}: ${t}${i === tokens.length - 1 ? ' (last)' : ''}`)));
    }
    const t = this.token < 0 || this.token >= tokens.length ? tokens.length - 1 : this.token;
    this.select.value = String(t);
    this.draw();
  }

  /** Compare: the baseline's prediction beside the model's (null: none). */
  setBaseline(top: TopWords | null, label: string | null): void {
    this.baseline = top;
    this.baselineLabel = label ?? '';
    this.chart?.destroy(); // (one dataset or two: built again)
    this.chart = null;
    this.draw();
  }

  /** The theme changed: draw again with its colors. */
  retheme(): void {
    this.chart?.destroy();
    this.chart = null;
    this.draw();
  }

  private draw(): void {
    const p = this.top;
    if (!p) return;
    const V = this.vocab.length;
    const T = this.tokens.length;
    const t = this.token < 0 || this.token >= T ? T - 1 : this.token;
    const top = Array.from({ length: Math.min(TOP, p.k) }, (_, i) => {
      const id = p.ids[t * p.k + i];
      return { v: p.p[t * p.k + i], w: predictedWordAt(this.tokens, t, this.vocab[id] ?? `v${id}`), id };
    });
    const c = themeColors();
    // the baseline's probability of each word shown, and its own top word
    let base: number[] | null = null;
    let baseBest: { w: string; v: number } | null = null;
    const b = this.baseline;
    if (b && b.ids.length >= (t + 1) * b.k) {
      const at = new Map<number, number>();
      for (let i = 0; i < b.k; i++) at.set(b.ids[t * b.k + i], b.p[t * b.k + i]);
      base = top.map((r) => at.get(r.id) ?? 0);
      baseBest = { w: predictedWordAt(this.tokens, t, this.vocab[b.ids[t * b.k]] ?? `v${b.ids[t * b.k]}`), v: b.p[t * b.k] };
    }
    const data = {
      labels: top.map((r) => r.w),
      datasets: [
        { label: b ? 'edited' : 'probability', data: top.map((r) => r.v), backgroundColor: top.map((_, i) => (i === 0 ? c.accent : c.muted)) },
        ...(base ? [{ label: `baseline (${this.baselineLabel})`, data: base, backgroundColor: c.grid, borderColor: c.muted, borderWidth: 1 }] : []),
      ],
    };
    // (two bars per word when comparing: taller, so each word keeps its line)
    (this.canvas.parentElement as HTMLElement | null)?.style.setProperty('height', base ? `${Math.max(240, top.length * 34 + 40)}px` : '');
    if (this.chart) {
      this.chart.data = data;
      this.chart.update('none');
    } else {
      this.chart = makeChart(this.canvas, {
        type: 'bar', data,
        options: {
          indexAxis: 'y', animation: false, responsive: true, maintainAspectRatio: false,
          layout: { padding: { right: LABEL_ROOM } },
          // (every word named: chart.js skips labels it finds crowded, which compare's two bars per word made it do)
          scales: { x: { min: 0, max: 1, grid: { color: c.grid } }, y: { grid: { display: false }, ticks: { autoSkip: false } } },
          plugins: { legend: { display: !!base } },
        },
        plugins: [percentLabels as Plugin],
      });
    }
    const best = top[0];
    this.canvas.setAttribute('aria-label', `probabilities after "${this.tokens[t]}": ${top.map((r) => `${r.w} ${percent(r.v)}`).join(', ')}`);
    this.caption.textContent = `After "${this.tokens[t]}", the model predicts "${best.w}" (${percent(best.v)}) — softmax of the logits / temperature ${this.temperature}${V > TOP ? `; the top ${TOP} of ${V} words` : ''}.${baseBest ? ` The baseline (${this.baselineLabel}) predicts "${baseBest.w}" (${percent(baseBest.v)}).` : ''}${byteNote(top.map((r) => r.w))}`;
  }

  dispose(): void {
    this.chart?.destroy();
  }
}

/** A probability as a percentage that still reads when small (a random model's 0.0021%). */
function percent(v: number): string {
  if (v >= 0.1) return `${(v * 100).toFixed(1)}%`;
  if (v >= 0.001) return `${(v * 100).toFixed(2)}%`;
  return `${(v * 100).toPrecision(2)}%`;
}
