// The card of an SAE's `.error` stage: its heatmap, and above it how well the SAE reconstructs
// this run, as the worker computes it (src/core/saeError.ts's saeFit): the error's norm and the
// fraction of variance explained, asked for after each render.
import type { LensResult } from '../../src/protocol/lenses';
import type { StageView } from '../../src/protocol/stages';
import { formatValue } from '../../src/common/numberFormat';
import { h } from '../dom';
import { StageCard, type CardContext } from '../views/stageCard';
import { post } from '../viewState';

export class SaeErrorCard extends StageCard {
  private readonly fit = h('p', { class: 'sae-fit', role: 'status' });

  constructor(info: StageView, shape: readonly number[], ctx: CardContext, readonly site: string) {
    super(info, shape, ctx);
    this.el.querySelector('.card-header')?.append(this.fit);
    this.el.dataset.sae = 'error';
  }

  onRendered(): void {
    post({ type: 'lens', request: { kind: 'saeFit', site: this.site } });
  }

  showFit(r: Extract<LensResult, { kind: 'saeFit' }>): void {
    const ve = r.varianceExplained;
    this.fit.dataset.errorNorm = String(r.errorNorm);
    this.fit.dataset.varianceExplained = String(ve);
    this.fit.textContent = `Error norm ‖x − recon‖ = ${formatValue(r.errorNorm)} over all tokens · fraction of variance explained ${ve === null ? '— (one token: no variance)' : formatValue(ve)}`
      + ` · per token ${r.tokenErrorNorms.slice(0, 8).map((v) => formatValue(v)).join(', ')}${r.tokenErrorNorms.length > 8 ? ', …' : ''}`;
  }

  fitError(message: string): void {
    this.fit.textContent = message;
  }
}
