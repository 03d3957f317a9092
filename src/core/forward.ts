// The model forward pass: every stage the panel draws, in computation order, under the ids of
// the model file spec (docs in README, "Stages").
//
//   input (+ positions) -> layers.0 … layers.L-1 -> [ln_f] -> output -> [head.logits, head.probs]

import { blockForward, type BlockConfig } from './block';
import { tsKernel, type MatmulKernel } from './kernel';
import { layernormForward } from './layernorm';
import { linearForward } from './linear';
import { positionalForward } from './positional';
import { softmaxForward } from './softmax';
import type { Stage, StageSink } from './stages';
import type { ModelWeights } from './weights';

// m -> stages; each is also handed to `emit` the moment it exists (the panel streams them)
export function modelForward(m: ModelWeights, kernel: MatmulKernel = tsKernel, emit?: StageSink): Stage[] {
  const stages: Stage[] = [];
  const sink: StageSink = (s) => {
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
