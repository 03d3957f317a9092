// A steered stage in the block graph (plan.ts calls planSteer right after its site's stage, and
// after the site's SAE when it has one: the SAE reads the model's own stage, its edits are made,
// then the steer adds its vector to what the SAE hands on):
//
//   <site>.steer  [T, C]  site + alpha·v at the positions steered: what every later stage reads
//
// (`layers.6.steer` for `layers.6.out`, ids.ts.)

import type { StageOp } from './graph';
import { parseStageId, steerParamId, steerStageId } from './ids';
import { siteGroup, type AddStage } from './planSae';
import { steerOp, type SteerArgs, type SteerSpec } from './steer';

const where = (p: SteerSpec['positions']): string =>
  p === 'all' ? 'at every token' : p.length === 1 ? `at token ${p[0]}` : `at tokens ${p.length > 6 ? `${p.slice(0, 6).join(', ')}, …` : p.join(', ')}`;

/** Adds the steered stage after `x` (the site's stage, or its SAE's `out`); returns its id. */
export function planSteer(add: AddStage, steer: SteerSpec, x: string, T: number, C: number): string {
  const { site } = steer;
  const { layer, kind } = parseStageId(steerStageId(site));
  const vector = steerParamId(site);
  const args: SteerArgs = { x, vector, positions: steer.positions, C };
  return add(layer, kind, [T, C], steerOp as StageOp<SteerArgs>, args, { inputs: [x], params: [vector] }, {
    title: `Steered ${site}`,
    meaning: `${site}${x === site ? '' : ' (after its SAE)'} + alpha·v ${where(steer.positions)}, v = ${steer.source}: what every later stage reads in its place (the steer key)`,
    cols: 'dim', group: siteGroup(parseStageId(site).kind),
  });
}
