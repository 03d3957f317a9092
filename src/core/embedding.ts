// The first stage, `input`: the vectors entering layer 0.
//   vectors: the model file's own `input` (T,C), plus sinusoidal positions if asked (positional.ts)
//   tokens:  row ids[t] of the embedding table `embed` (V,C), plus row t of the learned
//            positions `pos` (P,C) for GPT-2
//   × `scale` where given (gemma: float32(√C), embedScale.ts)

import { embedScaleForward } from './embedScale';
import { PARAM } from './ids';
import type { StageOp } from './graph';
import { floatData, outputsInputs, readOutputRow, type Param } from './params';
import { positionalForward } from './positional';
import type { Embedding } from './spec';

// out (T,C) = embed[ids[t]] (+ pos[t]); embed (V,C) as its layout says (a tied head's panels
// too: params.ts), pos (P,C)
export function tokenEmbeddingForward(out: Float32Array, ids: readonly number[], embed: Param, pos: Float32Array | null, C: number): void {
  const [V] = outputsInputs(embed);
  ids.forEach((id, t) => {
    if (!embed.half && (embed.layout === undefined || embed.layout === 'out_in')) out.set(embed.data.subarray(id * C, (id + 1) * C), t * C);
    else readOutputRow(embed, id, C, V, out, t * C);
    if (pos) for (let c = 0; c < C; c++) out[t * C + c] += pos[t * C + c];
  });
}

export interface EmbeddingArgs {
  readonly embedding: Embedding;
  readonly C: number;
  /** `input` = the rows × this (ModelSpec.embedScale); absent: as they are. */
  readonly scale?: number;
}

export const embeddingOp: StageOp<EmbeddingArgs> = {
  name: 'embedding',
  run(ctx, a) {
    const { T } = ctx;
    const out = new Float32Array(T * a.C);
    const e = a.embedding;
    if (e.kind === 'vectors') {
      const input = floatData(ctx.param(PARAM.input)!);
      if (e.positional === 'sinusoidal') positionalForward(out, input, T, a.C);
      else out.set(input.subarray(0, T * a.C));
    } else {
      tokenEmbeddingForward(out, e.ids, ctx.param(PARAM.embed)!, e.positional === 'learned' ? floatData(ctx.param(PARAM.pos)!) : null, a.C);
    }
    if (a.scale !== undefined) embedScaleForward(out, out, a.scale);
    return { data: out, changed: 'all' };
  },
  // token ids appended: their rows (and positions) alone
  append(ctx, a, T0, previous) {
    const e = a.embedding;
    if (e.kind !== 'tokens') throw new Error('rows are appended only to token inputs');
    const out = new Float32Array(ctx.T * a.C);
    out.set(previous.subarray(0, T0 * a.C));
    const pos = e.positional === 'learned' ? floatData(ctx.param(PARAM.pos)!).subarray(T0 * a.C) : null;
    tokenEmbeddingForward(out.subarray(T0 * a.C), e.ids.slice(T0), ctx.param(PARAM.embed)!, pos, a.C);
    if (a.scale !== undefined) embedScaleForward(out, out, a.scale, T0 * a.C);
    return out;
  },
};
