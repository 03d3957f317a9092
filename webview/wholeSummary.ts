// A model message's summary made whole: the worker leaves out the words and the plan the panel
// holds already (src/protocol/stages.ts's SummaryMessage), which the last summary with the same
// key carried.
import type { ModelSummary, SummaryMessage } from '../src/protocol/stages';

/** `s` with the parts it leaves out taken from `last`; null if `last` is not of their keys (the panel asks for everything again). */
export function wholeSummary(s: SummaryMessage, last: ModelSummary | null | undefined): ModelSummary | null {
  const vocab = s.vocab ?? (last?.vocabKey === s.vocabKey ? last.vocab : null);
  const stages = s.stages ?? (last?.planKey === s.planKey ? last.stages : null);
  return vocab && stages ? { ...s, vocab, stages } : null;
}
