// A model message's summary made whole: the worker leaves out the words and the plan the panel
// holds already (src/protocol/stages.ts's SummaryMessage), which the last summary with the same
// key carried; the plan's dims that are T are set to this summary's T (a prompt typed changes T,
// not the plan sent).
import { stagesAtT } from '../src/core/stageView';
import type { ModelSummary, SummaryMessage } from '../src/protocol/stages';

/** `s` with the parts it leaves out taken from `last`; null if `last` is not of their keys (the panel asks for everything again). */
export function wholeSummary(s: SummaryMessage, last: ModelSummary | null | undefined): ModelSummary | null {
  const vocab = s.vocab ?? (last?.vocabKey === s.vocabKey ? last.vocab : null);
  const held = s.stages && s.tokenDims ? { stages: s.stages, tokenDims: s.tokenDims } : last?.planKey === s.planKey ? last : null;
  if (!vocab || !held) return null;
  const stages = held.stages === s.stages ? s.stages : stagesAtT(held.stages, held.tokenDims, s.T);
  return { ...s, vocab, stages, tokenDims: held.tokenDims };
}
