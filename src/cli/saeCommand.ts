// `ffn-lens sae FILE [--k N]`: the SAEs of a model file on its input, as one JSON object: for each
// SAE (its site, size, activation; how well it reconstructs the run: the error's norm and the
// fraction of variance explained) each token's active features, the top k by value, with their
// ids (`layers.12.sae.1234`) and values.

import type { Stage } from '../core/stages';
import { SAE_PART, saeFeatureId, saeStageId } from '../core/ids';
import { saeFit } from '../core/saeError';
import { LensError } from '../lenses/cache';
import type { ModelFile } from '../model/read';

const r = (x: number): number => (Number.isFinite(x) ? Number(x.toPrecision(7)) : x);

/** The SAEs' features per token of a run's stages (`k`: the most shown per token). */
export function saeReport(file: ModelFile, stages: readonly Stage[], k: number): object {
  const saes = file.model.spec.saes ?? [];
  if (saes.length === 0) throw new LensError('this model file attaches no SAE: add "saes": [{ "path": "./sae", "at": "layers.6.out" }]');
  const byId = new Map(stages.map((s) => [s.id, s.data]));
  const T = file.model.spec.T;
  return {
    sae: saes.map((sae) => {
      const acts = byId.get(saeStageId(sae.site, SAE_PART.acts))!;
      const fit = saeFit(byId.get(sae.site)!, byId.get(saeStageId(sae.site, SAE_PART.recon))!, T, sae.dIn);
      const N = sae.dSae;
      return {
        at: sae.site, name: sae.name ?? null, d_in: sae.dIn, d_sae: N, activation: sae.activation, ...(sae.k === undefined ? {} : { k: sae.k }),
        error_norm: r(fit.errorNorm), variance_explained: fit.varianceExplained === null ? null : r(fit.varianceExplained),
        tokens: Array.from({ length: T }, (_, t) => {
          const active: Array<[number, number]> = [];
          for (let f = 0; f < N; f++) if (acts[t * N + f] !== 0) active.push([f, acts[t * N + f]]);
          active.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
          return {
            pos: t, token: file.tokens[t] ?? null, active: active.length, error_norm: r(fit.tokenErrorNorms[t]),
            top: active.slice(0, k).map(([f, v]) => ({ id: saeFeatureId(sae.site, f), feature: f, value: r(v) })),
          };
        }),
      };
    }),
  };
}
