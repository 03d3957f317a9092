// Which run the heatmaps show while a generation is on screen (no DOM: tested on its own): the
// input's, or, once a generated token is picked and its generation has ended, the run of the input
// followed by the generated tokens, which the worker sends when asked (FromWebview
// `showGenerated`): every heatmap then has a row per token, and the picked token's is highlighted.
// Nothing of it is asked for while generating: a run's stages go over the wire once, on a pick.
import type { Run } from './generationRun';

export interface StagesAsk {
  readonly version: number;
  readonly on: boolean;
}

/** What the panel does now: ask the worker for a run (or for the input's again), and the row to highlight. */
export interface StagesStep {
  readonly ask: StagesAsk | null;
  readonly row: number | null;
  /** What the Generation section says of it ('' for nothing). */
  readonly note: string;
}

export class GeneratedStages {
  /** The generated sequence the heatmaps show (its version, input tokens and rows), or null: the input's run. */
  shown: { readonly version: number; readonly input: number; readonly rows: number } | null = null;
  /** The version whose sequence this view asked for (asked once: a refusal is not asked again). */
  private asked = -1;

  /** A render arrived: of a generated sequence (`generated`: its input's length) or of the input. */
  rendered(version: number, generated: { readonly input: number } | undefined, rows: number): void {
    this.shown = generated ? { version, input: generated.input, rows } : null;
  }

  /** A new generation began: whatever the heatmaps show of the last is of another run. */
  restarted(): StagesAsk | null {
    this.asked = -1;
    return this.shown ? { version: this.shown.version, on: false } : null;
  }

  /** The step for `run` with token `picked` (its index among the generated, or null). */
  follow(run: Run | null, picked: number | null): StagesStep {
    const shown = this.shown;
    if (picked === null || !run || !run.tokens[picked]) {
      // (the input's run again when this view asked for the sequence shown: not for one it never asked for)
      const mine = shown !== null && this.asked === shown.version;
      this.asked = -1;
      return { ask: mine ? { version: shown.version, on: false } : null, row: null, note: '' };
    }
    if (run.state === 'running') return { ask: null, row: null, note: 'Its stages (a row of every heatmap) come once generation ends.' };
    if (run.state !== 'done' && run.state !== 'cancelled') return { ask: null, row: null, note: '' };
    if (shown?.version === run.version) {
      const row = shown.input + picked;
      const n = shown.rows - shown.input;
      if (row >= shown.rows) return { ask: null, row: null, note: `The model has no position for this token: the heatmaps show the input and the first ${n} generated.` };
      return { ask: null, row, note: `The heatmaps show the input and the ${n} generated token${n === 1 ? '' : 's'}: this one is row ${row}, highlighted. Pick it again for the input's run.` };
    }
    if (this.asked === run.version) return { ask: null, row: null, note: 'Computing the generated tokens\' stages…' };
    this.asked = run.version;
    return { ask: { version: run.version, on: true }, row: null, note: 'Computing the generated tokens\' stages…' };
  }
}
