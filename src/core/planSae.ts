// The stages of an SAE in the block graph (plan.ts calls planSae right after its site's stage):
//
//   <sae>.acts   [T, d_sae]  the features' activations of each token
//   <sae>.recon  [T, d_in]   their reconstruction
//   <sae>.error  [T, d_in]   x − recon
//   <sae>.out    [T, d_in]   what every later stage reads in the site's place: x itself without an
//                            edit, recon(edited acts) + error with one (saeSplice.ts)
//
// (<sae>: `layers.12.sae` for an SAE at `layers.12.out`, ids.ts.)

import type { AxisKind, StageGroup, StageOp } from './graph';
import { parseStageId, SAE_PARAM, SAE_PART, saeParamId, saeStageId, STAGE, type SaePart } from './ids';
import { saeDecodeOp } from './saeDecode';
import { saeEncodeOp } from './saeEncode';
import { saeErrorOp } from './saeError';
import type { SaeSpec } from './saeSpec';
import { saeSpliceOp } from './saeSplice';
import type { StageShow } from './stageShow';

/** How planSae adds a stage (the planner's own add, without the SAE hook). */
export type AddStage = <A>(layer: number, kind: string, shape: number[], op: StageOp<A>, args: A, reads: { inputs: string[]; params: string[] },
  text: { title: string; meaning: string; cols: AxisKind; group: StageGroup; show?: StageShow }) => string;

/** The stage kinds an SAE may be attached to: the residual stream, an attention output, an MLP output. */
export const SAE_SITES: readonly string[] = [STAGE.input, STAGE.attnResidual, STAGE.ffnResidual, STAGE.out, STAGE.attnOut, STAGE.down, STAGE.ln1Post, STAGE.ln2Post];

/** The panel's group of a stage an SAE or a steer reads (planSteer.ts too). */
export const siteGroup = (kind: string): StageGroup =>
  kind === STAGE.input ? 'input' : kind === STAGE.out ? 'layer' : kind.startsWith('attn.') || kind === STAGE.ln1Post ? 'attention' : 'ffn';

const ACT_TEXT: Record<SaeSpec['activation'], string> = {
  relu: 'ReLU(x̃·W_enc + b_enc)',
  topk: 'the top k of x̃·W_enc + b_enc per token, through ReLU',
  jumprelu: 'JumpReLU(x̃·W_enc + b_enc): a feature fires only above its threshold',
};

/** Adds the SAE's stages after its site's; returns the stage later stages read in the site's place. */
export function planSae(add: AddStage, sae: SaeSpec, T: number): string {
  const { site, dIn, dSae } = sae;
  const group = siteGroup(parseStageId(site).kind);
  const p = (k: (typeof SAE_PARAM)[keyof typeof SAE_PARAM]): string => saeParamId(site, k);
  const at = (part: SaePart): { layer: number; kind: string } => parseStageId(saeStageId(site, part));
  const named = sae.name ? ` (${sae.name})` : '';
  const k = sae.activation === 'topk' ? `, k = ${sae.k}` : '';
  const x̃ = `x̃ = ${sae.normalize === 'none' ? 'x' : sae.normalize === 'constant_norm_rescale' ? 'x·√d_in/‖x‖' : `x·${sae.scalingFactor ?? 1}`}${sae.applyBDecToInput ? ' − b_dec' : ''}`;
  const add1 = (part: SaePart, width: number, op: StageOp<never>, args: unknown, inputs: string[], params: string[], title: string, meaning: string, cols: AxisKind, show?: StageShow): string => {
    const { layer, kind } = at(part);
    return add(layer, kind, [T, width], op as StageOp<unknown>, args, { inputs, params }, { title, meaning, cols, group, ...(show ? { show } : {}) });
  };
  const acts = add1(SAE_PART.acts, dSae, saeEncodeOp as StageOp<never>, { x: site, sae, Wenc: p(SAE_PARAM.Wenc), benc: p(SAE_PARAM.benc), bdec: p(SAE_PARAM.bdec), threshold: p(SAE_PARAM.threshold) },
    [site], [p(SAE_PARAM.Wenc), p(SAE_PARAM.benc), p(SAE_PARAM.bdec), p(SAE_PARAM.threshold)],
    `SAE Features of ${site}${named}`, `${ACT_TEXT[sae.activation]}, ${x̃}: which of its ${dSae} features fire on each token (${sae.activation}${k})`, 'neuron', { valueName: 'activation', nonNegative: true });
  const recon = add1(SAE_PART.recon, dIn, saeDecodeOp as StageOp<never>, { x: site, acts, sae, Wdec: p(SAE_PARAM.Wdec), bdec: p(SAE_PARAM.bdec) }, [site, acts], [p(SAE_PARAM.Wdec), p(SAE_PARAM.bdec)],
    `SAE Reconstruction of ${site}`, `acts·W_dec + b_dec${sae.normalize === 'none' ? '' : ', rescaled back'}: what the features say ${site} is`, 'dim');
  const error = add1(SAE_PART.error, dIn, saeErrorOp as StageOp<never>, { x: site, recon, D: dIn }, [site, recon], [],
    `SAE Error of ${site}`, `${site} − its reconstruction: what the SAE misses`, 'dim');
  return add1(SAE_PART.out, dIn, saeSpliceOp as StageOp<never>, { x: site, acts, error, sae, Wdec: p(SAE_PARAM.Wdec), bdec: p(SAE_PARAM.bdec), scale: p(SAE_PARAM.scale), clamp: p(SAE_PARAM.clamp) },
    [site, acts, error], [p(SAE_PARAM.Wdec), p(SAE_PARAM.bdec), p(SAE_PARAM.scale), p(SAE_PARAM.clamp)],
    `After the SAE at ${site}`, `what later stages read in place of ${site}: ${site} itself without an SAE edit; with sae_ablate/sae_scale/sae_clamp, the reconstruction of the edited features + the error`, 'dim');
}
