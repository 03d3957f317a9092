// The Generation section: the text as it grows (the input's tokens, then each generated token, a
// chip you can pick), the progress with Cancel, and for the picked step its top_k alternatives as
// bars of their probability; a click on one branches (the host writes it into the input, and the
// edit generates on from there). A generated token picked, every heatmap follows: once generation
// ends the panel shows the run of the input and the generated tokens, that token's row
// highlighted (generatedStages.ts). The run's logic is generationRun.ts's.
import type { FromWebview, ToWebview } from '../../src/protocol/panel';
import type { GeneratedToken } from '../../src/protocol/generation';
import { h } from '../dom';
import { GeneratedStages } from './generatedStages';
import { chipText, GenerationRun, percent } from './generationRun';

export class GenerationView {
  readonly el: HTMLElement;
  private readonly run = new GenerationRun();
  private readonly status = h('span', { class: 'gen-progress', role: 'status' });
  private readonly button = h('vscode-button', { secondary: true, class: 'gen-cancel' }, 'Cancel');
  private readonly text = h('div', { class: 'gen-text' });
  private readonly alts = h('div', { class: 'gen-alts' });
  private readonly stagesNote = h('p', { class: 'gen-stages-note', role: 'status', hidden: true });
  private readonly stages = new GeneratedStages();
  /** The step picked (a click on its chip), or null: the last one, as it grows. */
  private picked: number | null = null;

  constructor(
    private readonly send: (m: FromWebview) => void,
    /** The row of the picked token in the run the heatmaps show (null: none): every heatmap highlights it. */
    private readonly rowPicked: (row: number | null) => void,
  ) {
    this.button.addEventListener('click', () => this.send({ type: 'generate', on: this.run.run?.state !== 'running' }));
    this.text.addEventListener('click', (e) => {
      const chip = (e.target as HTMLElement).closest<HTMLElement>('.gen-token');
      if (chip) this.pick(Number(chip.dataset.step));
    });
    this.alts.addEventListener('click', (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>('.gen-alt');
      const r = this.run.run;
      if (!row || !r) return;
      const b = this.run.branch(Number(row.dataset.step), Number(row.dataset.id));
      if (b) this.send({ type: 'branch', ...b });
    });
    this.el = h('div', { class: 'generation-view' },
      h('div', { class: 'gen-controls' }, this.status, this.button),
      this.text,
      h('p', { class: 'lens-note' }, 'Pick a generated token to see the alternatives of its step and its stages (every heatmap shows its row); click an alternative to continue the input with it (an edit of the model file: generation goes on from there).'),
      this.stagesNote,
      this.alts);
    this.placed();
  }

  /** A generation message of the host's. */
  handle(m: Extract<ToWebview, { type: 'generation' }>): void {
    const applied = this.run.apply(m);
    if (applied === 'ignored') return;
    if (applied === 'start' || applied === 'off' || (applied === 'end' && this.run.run?.tokens.length === 0)) {
      this.picked = null;
      this.drawText();
    } else if (applied === 'token' && m.event === 'token') this.text.append(this.chip(m.token));
    if (applied === 'start') this.ask(this.stages.restarted());
    this.drawStatus();
    if (this.picked === null || applied !== 'token') this.drawAlts();
    if (applied !== 'token') this.follow();
    this.placed();
  }

  /** A render arrived (of the input, or of the input and the generated tokens: `summary.generated`). */
  rendered(version: number, generated: { readonly input: number } | undefined, rows: number): void {
    this.stages.rendered(version, generated, rows);
    this.follow();
  }

  /** The document shown changed: nothing of its generation yet. */
  reset(): void {
    this.run.apply({ type: 'generation', event: 'off' });
    this.stages.shown = null;
    this.picked = null;
    this.follow();
    this.drawText();
    this.drawStatus();
    this.drawAlts();
    this.placed();
  }

  /** Shown only while there is a generation (its section laid out anew keeps this element). */
  placed(): void {
    const section = this.el.closest<HTMLElement>('[data-section="generation"]');
    if (section) section.hidden = !this.run.run;
  }

  /** A chip clicked: its step picked, or (picked already, its stages shown) unpicked: the input's run again. */
  private pick(step: number): void {
    this.picked = this.picked === step && this.stages.shown ? null : step;
    this.drawAlts();
    this.follow();
  }

  /** The heatmaps follow the token picked: the sequence's run asked for, its row highlighted. */
  private follow(): void {
    const step = this.stages.follow(this.run.run, this.picked);
    this.ask(step.ask);
    this.rowPicked(step.row);
    this.el.dataset.stages = this.stages.shown ? 'generated' : 'input';
    this.el.dataset.stagesRow = step.row === null ? '' : String(step.row);
    this.stagesNote.textContent = step.note;
    this.stagesNote.hidden = !step.note;
  }

  private ask(a: { version: number; on: boolean } | null): void {
    if (a) this.send({ type: 'showGenerated', ...a });
  }

  private drawStatus(): void {
    const r = this.run.run;
    this.status.textContent = this.run.progress();
    this.el.dataset.version = String(r?.version ?? -1);
    this.el.dataset.state = r?.state ?? 'off';
    this.el.dataset.done = String(r?.tokens.length ?? 0);
    this.el.dataset.total = String(r?.total ?? 0);
    this.el.dataset.ids = r ? r.tokens.map((t) => t.id).join(',') : '';
    this.el.classList.toggle('gen-error', r?.state === 'error');
    this.button.textContent = r?.state === 'running' ? 'Cancel' : 'Generate again';
    this.button.hidden = !r || r.state === 'changed';
  }

  private drawText(): void {
    const r = this.run.run;
    if (!r) return this.text.replaceChildren();
    const prompt = r.prompt.map((t) => h('span', { class: 'gen-chip gen-prompt', title: `input token #${t.id}` }, chipText(t.text)));
    this.text.replaceChildren(...prompt, ...r.tokens.map((t) => this.chip(t)));
  }

  private chip(t: GeneratedToken): HTMLElement {
    const p = t.top.find((a) => a.id === t.id)?.p;
    return h('button', { class: 'gen-chip gen-token', 'data-step': t.index, 'data-id': t.id, title: `step ${t.index + 1}: #${t.id}${p === undefined ? '' : `, p ${percent(p)}`}` }, chipText(t.text));
  }

  /** The alternatives of the picked step (the last, unless one was picked). */
  private drawAlts(): void {
    const r = this.run.run;
    const step = this.picked ?? (r ? r.tokens.length - 1 : -1);
    for (const c of this.text.querySelectorAll('.gen-token.picked')) c.classList.remove('picked');
    const t = r?.tokens[step];
    if (!r || !t) return this.alts.replaceChildren();
    this.text.querySelector(`.gen-token[data-step="${step}"]`)?.classList.add('picked');
    const max = Math.max(...t.top.map((a) => a.p), 1e-9);
    const sampled = t.top.some((a) => a.q !== undefined);
    const rows = t.top.map((a) => {
      const bar = h('span', { class: 'gen-bar' });
      bar.style.width = `${(100 * a.p) / max}%`;
      return h('button', { class: `gen-alt${a.id === t.id ? ' chosen' : ''}`, 'data-step': step, 'data-id': a.id, title: `continue the input with #${a.id} here` },
        h('span', { class: 'gen-alt-word' }, chipText(a.text)), h('span', { class: 'gen-alt-id' }, a.text === `#${a.id}` ? '' : `#${a.id}`),
        h('span', { class: 'gen-bar-box' }, bar), h('span', { class: 'gen-alt-p' }, percent(a.p) + (sampled && a.q !== undefined ? ` · q ${percent(a.q)}` : '')));
    });
    this.alts.replaceChildren(h('div', { class: 'gen-alts-title' }, `Step ${step + 1}: the top ${t.top.length}, "${chipText(t.text)}" chosen`), ...rows);
  }
}
