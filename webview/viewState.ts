// The webview's handle on VS Code: typed messages out, and a typed view state kept with
// setState (it survives hiding the panel and, through the serializer, a window reload).
import type { FromWebview } from '../src/protocol/panel';

export interface ViewState {
  /** The document shown: the serializer reopens it after a reload. */
  uri?: string;
  collapsed: Record<string, boolean>;
  /** Selected head per layer (`layers.0.`): its attention stages all show that head. */
  head: Record<string, number>;
  /** All-heads grid shown per attention stage id. */
  allHeads: Record<string, boolean>;
  /** The token whose probabilities the bar chart shows (-1: the last). */
  probsToken: number;
  scrollY: number;
  /** The lens tab shown (logit lens, attribution, heads, patching). */
  lensTab?: number;
  /** The view states of the other documents this panel has shown (it follows the active editor). */
  others?: Record<string, Omit<ViewState, 'uri' | 'others'>>;
}

/** How many other documents' view states a panel keeps. */
const MAX_REMEMBERED = 10;

export function freshViewState(): Omit<ViewState, 'uri' | 'others'> {
  return { collapsed: {}, head: {}, allHeads: {}, probsToken: -1, scrollY: 0 };
}

/**
 * The state for showing `uri`: the one it had in this panel if it was shown here before (the
 * panel follows the active editor back and forth), else a fresh one; the one left is remembered.
 */
export function switchViewState(state: ViewState, uri: string): ViewState {
  const { uri: was, others = {}, ...mine } = state;
  if (was) others[was] = mine;
  const back = others[uri];
  delete others[uri];
  const keep = Object.keys(others).slice(-MAX_REMEMBERED);
  return { ...(back ?? freshViewState()), uri, others: Object.fromEntries(keep.map((k) => [k, others[k]])) };
}

interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api: VsCodeApi = typeof acquireVsCodeApi === 'function'
  ? acquireVsCodeApi()
  : { postMessage: () => undefined, getState: () => undefined, setState: () => undefined };

export function post(msg: FromWebview): void {
  api.postMessage(msg);
}

export function loadState(): ViewState {
  const s = (api.getState() ?? {}) as Partial<ViewState>;
  return { ...freshViewState(), ...s };
}

export function saveState(s: ViewState): void {
  api.setState(s);
}
