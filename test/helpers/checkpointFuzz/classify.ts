// How the checkpoint fuzzer judges one run of the command line: ok, a clean error (lines of
// FILE:LINE:COL: error: PATH: message in our words, each short), or one of the faults it counts.

/** The classes of outcome, worst first (a run shows its worst). */
export const OUTCOMES = ['crash', 'hang', 'memory', 'read-outside', 'internal-error', 'raw-message', 'long-message', 'bad-output', 'clean-error', 'ok'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const FAULTS: readonly Outcome[] = OUTCOMES.filter((o) => o !== 'ok' && o !== 'clean-error');

/** A message longer than this is not one clear line. */
export const MAX_MESSAGE = 300;
/** More problem lines than this for one case is a flood. */
export const MAX_LINES = 8;

/** Text of the engine or a library, not ours: a message holding one is raw. */
const RAW: ReadonlyArray<[RegExp, string]> = [
  [/is not a function/, 'is not a function'],
  [/Cannot read propert/, 'Cannot read properties'],
  [/Cannot set propert/, 'Cannot set properties'],
  [/Cannot convert/, 'Cannot convert'],
  [/Unexpected token|Unexpected end of JSON|Unexpected non-whitespace|in JSON at position|Bad control character|Expected .* after .* in JSON/, 'JSON.parse text'],
  [/Maximum call stack/, 'Maximum call stack'],
  [/Invalid typed array length|Invalid array length|Invalid string length|Array buffer allocation failed|Invalid DataView length|out of memory/i, 'allocation error text'],
  [/\bundefined\b/, 'undefined'],
  [/\bNaN\b/, 'NaN'],
  [/\[object \w+\]/, '[object …]'],
  [/is not defined|is not iterable|is not a constructor|of undefined|of null\b/, 'TypeError text'],
  [/\b(TypeError|RangeError|SyntaxError|ReferenceError)\b/, 'Error class name'],
  [/\bERR_[A-Z_]+/, 'Node error code'],
  [/Invalid regular expression/, 'RegExp text'],
  [/^\s+at .+\(.+:\d+:\d+\)|\bat (async )?\S+ \(.*\.js:\d+/m, 'stack frame'],
];

/**
 * A library's detail after our words ("the tokenizer is not JSON (Unexpected token …)", "cannot be
 * read: Invalid regular expression: …") is allowed, as the project's rules say; `strict` counts it too.
 */
const DETAIL_AFTER_OUR_WORDS = /(is not JSON \(|cannot be read: )(Unexpected token|Unexpected end of JSON|Unexpected non-whitespace|Unterminated string|Expected |Bad control character|Unexpected number|Invalid regular expression)[^]*$/;

export function rawPhrase(message: string, strict = false): string | null {
  // (the model-file reader's own words for a NaN the file holds: "NaN, which is not a number JSON
  // allows"; a bare NaN, "found NaN" too, reads like a value we computed and stays raw)
  let m = message.replace(/\bNaN, which is not a number JSON allows/g, '');
  if (!strict) m = m.replace(DETAIL_AFTER_OUR_WORDS, '$1');
  for (const [re, what] of RAW) if (re.test(m)) return what;
  return null;
}

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** What run() threw (the bundled main would print "internal error: …"). */
  readonly thrown: string | null;
  /** Errors reported by the process while the case ran (unhandled rejections). */
  readonly stray: readonly string[];
}

export interface Verdict {
  readonly outcome: Outcome;
  /** Every class the run showed (the outcome is the worst). */
  readonly flags: readonly Outcome[];
  /** The line that shows it, bounded. */
  readonly detail: string;
}

const bounded = (s: string, n = 400): string => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/** The verdict on a run that ended (hangs, crashes, memory and reads outside are seen by the caller). */
export function classifyRun(res: RunResult): Verdict {
  const flags = new Map<Outcome, string>(); // (each class with the first line that showed it)
  const flag = (o: Outcome, d: string): void => void (flags.has(o) || flags.set(o, d));
  if (res.thrown !== null) flag('internal-error', `run() threw: ${bounded(res.thrown)}`);
  for (const s of res.stray) flag('internal-error', `unhandled: ${bounded(s)}`);
  const lines = res.stderr.split('\n').filter((l) => l.trim() !== '');
  for (const line of lines) {
    if (/internal error/.test(line)) flag('internal-error', bounded(line));
    const raw = rawPhrase(line);
    if (raw) flag('raw-message', `${raw}: ${bounded(line)}`);
    // (the FILE:LINE:COL: prefix is ours: the message after it is what is bounded)
    const msg = line.replace(/^.*?:\d+:\d+: (error|warning): /, '');
    if (msg.length > MAX_MESSAGE) flag('long-message', `${msg.length} chars: ${bounded(line, 200)}`);
  }
  if (lines.length > MAX_LINES) flag('long-message', `${lines.length} lines: ${bounded(lines[0], 200)}`);
  if (res.code === 0) {
    try {
      JSON.parse(res.stdout);
    } catch (e) {
      flag('bad-output', `stdout is not JSON (${(e as Error).message.slice(0, 80)}): ${bounded(res.stdout, 120)}`);
    }
  } else if (res.thrown === null) {
    if (res.code !== 1) flag('bad-output', `exit code ${res.code}: ${bounded(lines[0] ?? '', 200)}`);
    else if (lines.length === 0) flag('bad-output', 'exit code 1 and nothing on stderr');
    else if (!lines.some((l) => /: error: /.test(l) || /^ffn-lens/.test(l))) flag('bad-output', `no error line: ${bounded(lines[0], 200)}`);
  }
  if (flags.size === 0) {
    if (res.code === 0) return { outcome: 'ok', flags: ['ok'], detail: lines[0] ? bounded(lines[0], 200) : '' };
    return { outcome: 'clean-error', flags: ['clean-error'], detail: bounded(lines[0] ?? '', 300) };
  }
  const sorted = [...flags.keys()].sort((a, b) => OUTCOMES.indexOf(a) - OUTCOMES.indexOf(b));
  return { outcome: sorted[0], flags: sorted, detail: flags.get(sorted[0])! };
}
