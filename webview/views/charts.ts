// chart.js where a chart says more than a heatmap: the activation function's curve with this
// input's pre-activation values on it, and the head's probabilities as bars. Only the parts of
// chart.js we use are registered (a smaller bundle).
import {
  BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement,
  PointElement, ScatterController, Tooltip, type ChartConfiguration,
} from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, Legend, LinearScale, LineController, LineElement, PointElement, ScatterController, Tooltip);

export { Chart };
export type { Plugin } from 'chart.js';

/** Theme colors for charts, read from VS Code's CSS variables. */
export function themeColors(): { fg: string; muted: string; grid: string; accent: string; accent2: string; warn: string; onAccent: string } {
  const css = getComputedStyle(document.body);
  const v = (name: string, fallback: string): string => css.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--vscode-foreground', '#ccc'),
    muted: v('--vscode-descriptionForeground', '#999'),
    grid: v('--vscode-editorWidget-border', 'rgba(128,128,128,0.3)'),
    accent: v('--vscode-charts-blue', '#3794ff'),
    accent2: v('--vscode-charts-orange', '#d18616'),
    warn: v('--vscode-charts-red', '#f14c4c'),
    onAccent: v('--vscode-button-foreground', '#ffffff'),
  };
}

export function makeChart(canvas: HTMLCanvasElement, config: ChartConfiguration): Chart {
  Chart.defaults.color = themeColors().fg;
  Chart.defaults.font.family = getComputedStyle(document.body).getPropertyValue('--vscode-font-family') || 'sans-serif';
  return new Chart(canvas, config);
}
