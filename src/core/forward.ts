// The model forward pass: every stage the panel draws, in computation order, under the ids of
// the model file spec (docs in README, "Stages").
//
//   input (+ positions) -> layers.0 … layers.L-1 -> [ln_f] -> output -> [head.logits, head.probs]

import { isGated } from './activation';
import { blockForward, type BlockConfig } from './block';
import { tsKernel, type MatmulKernel } from './kernel';
import { layernormForward } from './layernorm';
import { linearForward } from './linear';
import { positionalForward } from './positional';
import { softmaxForward } from './softmax';
import type { Stage, StageSink } from './stages';
import { checkSize } from './tensor';
import type { ModelWeights } from './weights';

/** The ids and shapes modelForward will produce, in order, without computing anything. */
export function planStages(m: ModelWeights): Array<{ id: string; shape: number[] }> {
  const { T, C } = m;
  const out: Array<{ id: string; shape: number[] }> = [{ id: 'input', shape: [T, C] }];
  const add = (id: string, shape: number[]): void => {
    out.push({ id, shape });
  };
  m.layers.forEach((l, i) => {
    const p = `layers.${i}.`;
    if (l.attention) {
      const NH = l.attention.heads;
      const HS = C / NH;
      if (m.norm === 'pre') add(p + 'ln1', [T, C]);
      for (const k of ['q', 'k', 'v']) add(`${p}attn.${k}`, [NH, T, HS]);
      add(p + 'attn.scores', [NH, T, T]);
      add(p + 'attn.weights', [NH, T, T]);
      add(p + 'attn.context', [T, C]);
      add(p + 'attn.out', [T, C]);
      if (m.residual) add(p + 'attn.residual', [T, C]);
      if (m.norm === 'post') add(p + 'ln1', [T, C]);
    }
    if (l.ffn) {
      const F = l.ffn.F;
      if (m.norm === 'pre') add(p + 'ln2', [T, C]);
      add(p + 'ffn.up', [T, F]);
      if (isGated(l.ffn.activation)) add(p + 'ffn.gate', [T, F]);
      add(p + 'ffn.act', [T, F]);
      add(p + 'ffn.down', [T, C]);
      if (m.residual) add(p + 'ffn.residual', [T, C]);
      if (m.norm === 'post') add(p + 'ln2', [T, C]);
    }
    add(p + 'out', [T, C]);
  });
  if (m.finalNorm) add('ln_f', [T, C]);
  add('output', [T, C]);
  if (m.head) {
    add('head.logits', [T, m.head.V]);
    add('head.probs', [T, m.head.V]);
  }
  return out;
}

// m -> stages; each is also handed to `emit` the moment it exists (the panel streams them)
export function modelForward(m: ModelWeights, kernel: MatmulKernel = tsKernel, emit?: StageSink): Stage[] {
  const stages: Stage[] = [];
  const sink: StageSink = (s) => {
    checkSize(`stage ${s.id}`, s.shape, s.data);
    stages.push(s);
    emit?.(s);
  };
  const { T, C } = m;
  const td = [T, C];

  let x: Float32Array = new Float32Array(T * C);
  if (m.positional === 'sinusoidal') positionalForward(x, m.input, T, C);
  else x.set(m.input);
  sink({ id: 'input', shape: td, data: x });

  const cfg: BlockConfig = { T, C, layout: m.layout, residual: m.residual, norm: m.norm };
  m.layers.forEach((layer, i) => {
    x = blockForward(x, layer, i, cfg, kernel, sink);
  });

  if (m.finalNorm) {
    const y = new Float32Array(T * C);
    layernormForward(y, x, m.lnF.gamma, m.lnF.beta, m.lnF.eps, T, C);
    sink({ id: 'ln_f', shape: td, data: y });
    x = y;
  }
  sink({ id: 'output', shape: td, data: x });

  if (m.head) {
    const { V, W, b, temperature } = m.head;
    const logits = new Float32Array(T * V);
    linearForward(logits, x, W, b, T, C, V, m.layout, kernel);
    sink({ id: 'head.logits', shape: [T, V], data: logits });
    const probs = new Float32Array(T * V);
    softmaxForward(probs, logits, T, V, 1 / temperature);
    sink({ id: 'head.probs', shape: [T, V], data: probs });
  }
  return stages;
}
