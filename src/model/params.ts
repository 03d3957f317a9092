// How many parameters a model has, by part: what the reader counts, the generator plans and the
// panel's summary shows.
export type { ParamCounts } from '../protocol/stages';
