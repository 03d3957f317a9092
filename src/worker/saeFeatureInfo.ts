// What the panel's feature view and the editor's hover say of one SAE feature (the lens is
// src/lenses/saeFeature.ts), and the SAE's fit for the `.error` card: from the document's model
// and its last computed stages.

import { parseSaeId, saeFeatureId, SAE_PART, saeStageId } from '../core/ids';
import type { JsonNode } from '../model/jsonc';
import { saeFit } from '../core/saeError';
import type { SaeSpec } from '../core/saeSpec';
import type { Run } from '../lenses/cache';
import { LensError } from '../lenses/cache';
import { featureActs, featureWords, predictionsAt, saeAt, saeDla } from '../lenses/saeFeature';
import type { ModelFile } from '../model/read';
import type { LensResult, SaeFeatureResult } from '../protocol/lenses';
import { formatValue } from '../common/numberFormat';
import { runOf } from '../lenses/cache';
import type { SaeEdit } from '../model/checkpointRequest';
import type { DocStages } from './docStages';

export const WORDS_NOTE = 'W_dec[f] · W_U through the final norm\'s gain, its scale (1/σ) taken as 1, as Neuronpedia shows';

/** A feature's Neuronpedia page, when the SAE names its release (`gpt2-small/0-res-jb`); no other network use. */
export function neuronpediaUrl(sae: SaeSpec, feature: number): string | null {
  const np = sae.neuronpedia;
  if (!np || !/^[\w.-]+\/[\w.-]+$/.test(np)) return null;
  return `https://www.neuronpedia.org/${np}/${feature}`;
}

/** The top predictions at a position offered as attribution targets. */
const PREDICTIONS = 10;

export function saeFeatureResult(file: ModelFile, run: Run, site: string, feature: number, pos: number | null, target: number | null = null): SaeFeatureResult {
  const sae = saeAt(run, site);
  const acts = Array.from(featureActs(run, sae, feature));
  let best = 0;
  for (let t = 1; t < acts.length; t++) if (acts[t] > acts[best]) best = t;
  const words = run.model.spec.head ? featureWords(run, sae, feature) : { promoted: [], suppressed: [] };
  let dla: SaeFeatureResult['dla'];
  try {
    const d = saeDla(run, sae, { pos: pos ?? undefined, target: target ?? undefined });
    const i = d.features.findIndex(([f]) => f === feature);
    dla = { pos: d.pos, target: d.target, value: i < 0 ? 0 : d.features[i][1], logitDiff: d.logitDiff, rank: i < 0 ? -1 : i + 1, active: d.features.length, predictions: predictionsAt(run, d.pos, PREDICTIONS) };
  } catch (e) {
    if (!(e instanceof LensError)) throw e;
    dla = { error: e.message };
  }
  const ids = new Set<number>([...words.promoted, ...words.suppressed].map(([w]) => w));
  if (!('error' in dla)) for (const w of [dla.target, ...dla.predictions]) ids.add(w);
  const vocab: Record<number, string> = {};
  for (const w of ids) vocab[w] = file.vocab[w] ?? `#${w}`;
  return {
    kind: 'saeFeature', site, feature, id: saeFeatureId(site, feature), tokens: file.tokens, acts, max: { value: acts[best] ?? 0, pos: best },
    promoted: words.promoted, suppressed: words.suppressed, wordsNote: WORDS_NOTE, dla, neuronpedia: neuronpediaUrl(sae, feature), edit: editsOf(file, site).filter(([f]) => f === feature).map(([, w]) => w).join('; ') || null, words: vocab,
  };
}

/** The file's edits of the SAE at site's features, said as the hover says them. */
function editsOf(file: ModelFile, site: string): Array<[number, string]> {
  return saeEditsOf(file).filter((e) => e.site === site).map((e) => [e.feature, EDIT_VERB[e.kind](e.value)]);
}

/** The file's SAE feature edits: a checkpoint file's, or a written-out model's (its saeKeys). */
function saeEditsOf(file: ModelFile): readonly SaeEdit[] {
  return file.checkpoint?.request.saeEdits ?? file.saeKeys?.edits ?? [];
}

export function saeFitResult(file: ModelFile, run: Run, site: string): LensResult {
  const sae = saeAt(run, site);
  const fit = saeFit(run.stage(site), run.stage(saeStageId(site, SAE_PART.recon)), run.model.spec.T, sae.dIn);
  return { kind: 'saeFit', site, errorNorm: fit.errorNorm, tokenErrorNorms: fit.tokenErrorNorms, varianceExplained: fit.varianceExplained, edits: editsOf(file, site) };
}

const word = (r: SaeFeatureResult, w: number): string => `\`${(r.words[w] ?? `#${w}`).replace(/`/g, "'")}\``;

/** The feature's summary as hover Markdown: its activation max and where, top promoted words, DLA. */
export function saeFeatureMarkdown(r: SaeFeatureResult): string {
  const tok = (t: number): string => `\`${(r.tokens[t] ?? `t${t}`).replace(/`/g, "'")}\``;
  const lines = [`**${r.id}** · SAE feature ${r.feature} of ${r.site}`, ''];
  const fired = r.acts.filter((a) => a !== 0).length;
  lines.push(fired ? `Fires on ${fired} of ${r.acts.length} tokens; most at ${tok(r.max.pos)} (position ${r.max.pos}): ${formatValue(r.max.value)}` : `Does not fire on this prompt (${r.acts.length} tokens).`);
  if (r.promoted.length) {
    lines.push('', `Promotes: ${r.promoted.map(([w, v]) => `${word(r, w)} ${formatValue(v)}`).join(', ')}`);
    lines.push('', `Suppresses: ${r.suppressed.map(([w, v]) => `${word(r, w)} ${formatValue(v)}`).join(', ')}`, '', `_${WORDS_NOTE}._`);
  }
  if ('error' in r.dla) lines.push('', `Attribution: ${r.dla.error}`);
  else lines.push('', `Attribution to ${word(r, r.dla.target)} after ${tok(r.dla.pos)}: ${formatValue(r.dla.value)} of the logit ${formatValue(r.dla.logitDiff)}${r.dla.rank > 0 ? ` (#${r.dla.rank} of ${r.dla.active} active features by size)` : ' (not active there)'}`);
  if (r.neuronpedia) lines.push('', `[Open on Neuronpedia](${r.neuronpedia})`);
  return lines.join('\n');
}

const EDIT_VERB: Record<SaeEdit['kind'], (v: number) => string> = {
  ablate: () => 'switched off (sae_ablate)',
  scale: (v) => `scaled by ${formatValue(v)} (sae_scale)`,
  clamp: (v) => `held at ${formatValue(v)} (sae_clamp)`,
};

/** The hover over an `sae_ablate` / `sae_scale` / `sae_clamp` entry: the feature's summary on the run as edited. */
export function saeEditHover(c: DocStages, e: SaeEdit): { markdown: string; start: number; end: number } {
  const lines: string[] = [];
  try {
    const run = runOf(c.file.model, c.stages.values());
    lines.push(saeFeatureMarkdown(saeFeatureResult(c.file, run, e.site, e.feature, null)));
    lines.push('', `In this file: ${EDIT_VERB[e.kind](e.value)}. Its activation and attribution above are the encoder's, before the edit (what the feature writes unedited); the rest of the run is as edited.`);
  } catch (err) {
    if (!(err instanceof LensError)) throw err;
    lines.push(`**${e.text}** · ${err.message}`);
  }
  if (c.stale) lines.push('', '_Values from the last computation, before your latest edit._');
  return { markdown: lines.join('\n'), start: e.at.start, end: e.at.end };
}

/** The string (a value, or a property's name) at offset in the file's JSON, with its range; null elsewhere. */
export function stringAt(root: JsonNode | null, offset: number): { text: string; start: number; end: number } | null {
  const inside = (n: { start: number; end: number }): boolean => offset >= n.start && offset <= n.end;
  let node = root;
  while (node && inside(node)) {
    if (node.kind === 'string') return { text: node.value, start: node.start, end: node.end };
    if (node.kind === 'object') {
      const prop = node.props.find((p) => inside(p) || (offset >= p.keyStart && offset <= p.keyEnd));
      if (!prop) return null;
      if (offset >= prop.keyStart && offset <= prop.keyEnd) return { text: prop.key, start: prop.keyStart, end: prop.keyEnd };
      node = prop.value;
    } else if (node.kind === 'array') node = node.items.find(inside) ?? null;
    else return null;
  }
  return null;
}

/**
 * The hover over an SAE feature's id anywhere in the file (a `steer`'s feature, a key of
 * `sae_scale`, any string naming one): its summary, and what the file does with it.
 */
export function saeIdHover(c: DocStages, offset: number): { markdown: string; start: number; end: number } | null {
  const s = stringAt(c.root, offset);
  const n = s ? parseSaeId(s.text) : null;
  if (!s || !n || !('feature' in n)) return null;
  const lines: string[] = [];
  try {
    const run = runOf(c.file.model, c.stages.values());
    lines.push(saeFeatureMarkdown(saeFeatureResult(c.file, run, n.site, n.feature, null)));
  } catch (err) {
    if (!(err instanceof LensError)) throw err;
    lines.push(`**${s.text}** · ${err.message}`);
  }
  const req = c.file.checkpoint?.request;
  const uses = [
    ...saeEditsOf(c.file).filter((e) => e.site === n.site && e.feature === n.feature).map((e) => EDIT_VERB[e.kind](e.value)),
    ...(req?.steers ?? []).filter((x) => x.source.kind === 'feature' && x.source.site === n.site && x.source.feature === n.feature).map((x) => `its decoder row steers ${x.site} (alpha ${formatValue(x.alpha)})`),
  ];
  if (uses.length) lines.push('', `In this file: ${uses.join('; ')}.`);
  if (c.stale) lines.push('', '_Values from the last computation, before your latest edit._');
  return { markdown: lines.join('\n'), start: s.start, end: s.end };
}
