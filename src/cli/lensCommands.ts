// The research lenses on the command line, each printing one JSON object (so they can be checked
// from outside, and scripted): `ffn-lens lens|dla|heads|patch|sae FILE [options]`.

import { Engine } from '../core/engine';
import { forward } from '../core/forward';
import { defaultKernel } from '../core/kernel';
import type { Model } from '../core/model';
import type { ModelFile } from '../model/read';
import { LensError, runOf, tokenIds, withTokens } from '../lenses/cache';
import { directLogitAttribution } from '../lenses/dla';
import { headScores, inductionSequence } from '../lenses/headScores';
import { logitLensGrid } from '../lenses/logitLens';
import { runPatching } from '../lenses/patching';
import { saeReport } from './saeCommand';

export const LENS_COMMANDS = ['lens', 'dla', 'heads', 'patch', 'sae'] as const;
export type LensCommand = (typeof LENS_COMMANDS)[number];

export const LENS_USAGE = `       ffn-lens lens  FILE [--k N] [--target ID]
       ffn-lens dla   FILE [--pos N] [--target ID] [--alt ID|second|none] [--neurons N]
       ffn-lens heads FILE [--repeat N]
       ffn-lens patch FILE [--corrupted-ids ID,ID,...] [--target ID] [--alt ID] [--views resid|heads|both]
       ffn-lens sae   FILE [--k N]

  lens   the logit lens: each layer's top words at each token (softmax of the head read
         off the final norm of layers.i.out), and a target word's probability and rank
  dla    direct logit attribution at a position (default the last) for a target word
         (default the top prediction), minus --alt (default the runner-up, as the panel;
         none: the target's logit alone): embeddings, every head, attention bias and MLP
         layer (they sum to the logit difference with "constant"), top neurons
  heads  previous-token, duplicate-token and induction scores of every head on the
         input, and on a random sequence of N ids repeated twice (default 20), after
         the checkpoint's BOS token where it has one
  patch  activation patching of the input's run into the run on the corrupted ids
         (default the model file's "corrupted_prompt" or "corrupted_token_ids", as the
         panel): the share of the logit difference recovered per (layer, position) of
         the residual stream entering each layer, and per head
  sae    each SAE of the file ("saes"): its error norm and variance explained, and per
         token its active features, the top N by value (default 10), with their ids`;

export type LensOptions = Readonly<Record<string, string>>;

/** The option names each command takes (each with one value, but the flags). */
export const LENS_OPTIONS: Readonly<Record<LensCommand, readonly string[]>> = {
  lens: ['--k', '--target'],
  dla: ['--pos', '--target', '--alt', '--neurons'],
  heads: ['--repeat'],
  patch: ['--corrupted-ids', '--target', '--alt', '--views'],
  sae: ['--k'],
};
export const LENS_FLAGS = new Set<string>();

function int(opts: LensOptions, name: string, min: number): number | undefined {
  const v = opts[name];
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new LensError(`${name} needs a whole number ≥ ${min}, not "${v}"`);
  return Number(v);
}

function views(v: string | undefined): 'resid' | 'heads' | 'both' {
  if (v === undefined) return 'both';
  if (v === 'resid' || v === 'heads' || v === 'both') return v;
  throw new LensError(`--views is resid, heads or both, not "${v}"`);
}

const r = (x: number): number => (Number.isFinite(x) ? Number(x.toPrecision(7)) : x);

/** The JSON a lens command prints, or a LensError saying why it does not apply. */
export function lensCommand(cmd: LensCommand, file: ModelFile, opts: LensOptions): object {
  const model = file.model;
  const word = (id: number): string => file.vocab[id] ?? String(id);
  const kernel = defaultKernel();
  const runFull = (m: Model) => runOf(m, forward(m, kernel));
  switch (cmd) {
    case 'lens': {
      const lensModel: Model = { params: model.params, spec: { ...model.spec, lens: true } };
      const k = int(opts, '--k', 1) ?? 5;
      const target = int(opts, '--target', 0) ?? null;
      const g = logitLensGrid(runFull(lensModel), k, target);
      const ids = new Set<number>();
      for (const row of g.cells) for (const c of row) for (const [id] of c.top) ids.add(id);
      return {
        lens: {
          k, layers: g.L, tokens: file.tokens, target,
          top: g.cells.map((row) => row.map((c) => c.top.map(([id, p]) => [id, r(p)]))),
          ...(target === null ? {} : { target_p: g.cells.map((row) => row.map((c) => r(c.target!.p))), target_rank: g.cells.map((row) => row.map((c) => c.target!.rank)) }),
          words: Object.fromEntries([...ids].sort((x, y) => x - y).map((id) => [id, word(id)])),
        },
      };
    }
    case 'dla': {
      const altOpt = opts['--alt'];
      // (the panel's default: the runner-up)
      const alt = altOpt === undefined || altOpt === 'second' ? 'second' : altOpt === 'none' ? null : int(opts, '--alt', 0)!;
      const d = directLogitAttribution(runFull(model), { pos: int(opts, '--pos', 0), target: int(opts, '--target', 0), alt, topNeurons: int(opts, '--neurons', 0) ?? 20 });
      return {
        dla: {
          pos: d.pos, target: d.target, target_word: word(d.target), alt: d.alt, alt_word: d.alt === null ? null : word(d.alt),
          logit_diff: r(d.logitDiff), constant: r(d.constant),
          sum: r(d.parts.reduce((s, p) => s + p.value, d.constant)), remainder: r(d.remainder), note: d.note,
          components: Object.fromEntries(d.parts.map((p) => [p.name, r(p.value)])),
          heads: d.heads.map((row) => row.map(r)),
          top_neurons: d.topNeurons.map((p) => ({ name: p.name, value: r(p.value) })),
        },
      };
    }
    case 'heads': {
      const s = headScores(runFull(model));
      const out: Record<string, unknown> = { prev: s.prev.map((x) => x.map(r)), dup: s.dup?.map((x) => x.map(r)) ?? null, induction: s.induction?.map((x) => x.map(r)) ?? null };
      let repeat: object | null = null;
      if (tokenIds(model) && model.spec.head) {
        const n = int(opts, '--repeat', 2) ?? 20;
        const ids = inductionSequence(model.spec.head.V, n, { bos: file.checkpoint?.source.bos });
        const rep = headScores(runFull(withTokens(model, ids)));
        repeat = { token_ids: ids, induction: rep.induction!.map((x) => x.map(r)) };
      }
      return { heads: { ...out, repeat } };
    }
    case 'sae':
      return saeReport(file, forward(model, kernel), int(opts, '--k', 1) ?? 10);
    case 'patch': {
      const corrupted = corruptedIds(opts['--corrupted-ids'], file);
      const altOpt = opts['--alt'];
      const p = runPatching(new Engine(kernel), model, withTokens(model, corrupted), {
        target: int(opts, '--target', 0), alt: altOpt === undefined ? undefined : int(opts, '--alt', 0)!, views: views(opts['--views']),
      });
      return {
        patch: {
          target: p.target, target_word: word(p.target), alt: p.alt, alt_word: p.alt === null ? null : word(p.alt),
          ld_clean: r(p.ldClean), ld_corrupted: r(p.ldCorrupted), resid: p.resid?.map((x) => x.map(r)) ?? null, heads: p.heads?.map((x) => x.map(r)) ?? null,
        },
      };
    }
  }
}

/** --corrupted-ids, else the model file's corrupted input (as the panel patches it). */
function corruptedIds(c: string | undefined, file: ModelFile): number[] {
  if (!c) {
    const own = file.checkpoint?.corruptedIds;
    if (own) return [...own];
    throw new LensError('patch needs the corrupted input: --corrupted-ids 1,2,3 (as many ids as the model file\'s input), or "corrupted_prompt" / "corrupted_token_ids" in the model file');
  }
  const ids = c.split(',').map((s) => s.trim());
  if (!ids.every((s) => /^\d+$/.test(s))) throw new LensError(`--corrupted-ids needs token ids separated by commas, not "${c}"`);
  const V = file.model.spec.head?.V ?? 0;
  const bad = ids.find((s) => Number(s) >= V);
  if (bad !== undefined) throw new LensError(`--corrupted-ids: ${bad} is outside the vocabulary 0…${V - 1}`);
  return ids.map(Number);
}
