// `ffn-lens stages FILE [--only ID[,ID…]] [--summary]`: every stage of a model file as JSON;
// `ffn-lens lens|dla|heads|patch FILE …`: the research lenses (lensCommands.ts).
// Exit codes: 0 done, 1 the file is missing, unreadable or not a valid model, 2 wrong usage.
// Problems go to stderr as FILE:LINE:COL: severity: PATH: message (what problem matchers read).
// No stack trace ever reaches the user.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { npyBytes } from '../common/npy';
import { forward } from '../core/forward';
import { isOutOfMemory } from '../core/runSize';
import { defaultKernel } from '../core/kernel';
import { threadCount } from '../core/wasm';
import { nodeMatmulHelper } from '../worker/nodeMatmulHelper';
import type { Stage } from '../core/stages';
import { LineIndex } from '../model/lines';
import { formatPath } from '../model/problems';
import { readModel, type ModelFile, type ReadResult } from '../model/read';
import type { CheckpointFiles } from '../checkpoint/files';
import { nodeFiles } from '../checkpoint/nodeFiles';
import { CheckpointResolver } from '../checkpoint/resolve';
import { CheckpointStore, resolveReadNow } from '../checkpoint/store';
import { nodeTokenizerScript, nodeTokenizerThread } from '../tokenizer/nodeTokenizerThread';
import { TokenizerRunner } from '../tokenizer/tokenizerRunner';
import { formatFloat32 } from '../common/float32';
import { errorDetail, internalFault } from '../common/faultText';
import { quote, terminalSafe } from '../common/quote';
import { named } from '../checkpoint/errors';
import { enableWasmRelaxedSimd } from '../worker/nodeWasmFeatures';
import { setNodeRunBudget } from '../worker/nodeRunBudget';
import { LensError } from '../lenses/cache';
import { moreLine, shownProblems } from './problemLines';
import { progressText } from './progressLine';
import { LENS_COMMANDS, LENS_FLAGS, LENS_OPTIONS, LENS_USAGE, lensCommand, type LensCommand } from './lensCommands';
import { DecodeError, GENERATE_OPTIONS, GENERATE_USAGE, GenerateUsageError, generateCommand } from './generateCommand';

export const USAGE = `Usage: ffn-lens stages FILE [--only ID[,ID...]] [--summary] [--npy DIR] [--progress] [--threads N] [--no-steer]
${LENS_USAGE}
${GENERATE_USAGE}

Computes every stage of the transformer block(s) in the model file FILE and prints
one JSON object: {"model": {...}, "stages": [{"id", "shape", "data"}, ...]}.

  --only ID[,ID...]  keep only these stages (e.g. --only layers.0.ffn.up,output)
  --summary          print each stage's shape and min/max/mean instead of its data
  --npy DIR          also write each stage as DIR/ID.npy (float32; numpy.load reads it)
  --progress         say how far a large checkpoint's read is on stderr (on a terminal it does)
  --threads N        multiply on at most N threads (default 0: every core; any command)
  --no-steer         the file without its "steer" (its steered stages, layers.6.steer, left out)
  -h, --help         show this help
  -v, --version      show the version

Exit status: 0 on success, 1 if FILE is missing or not a valid model (problems on
stderr as FILE:LINE:COL: error: PATH: message), 2 on wrong usage.`;

export interface Io {
  out(s: string): void;
  err(s: string): void;
  /** stderr is a terminal: a large checkpoint's read is said there as it goes. */
  readonly errTty?: boolean;
}

interface Options { cmd: 'stages' | LensCommand | 'generate'; file: string; only: string[] | null; summary: boolean; npy: string | null; lens: Record<string, string>; progress: boolean; threads: number; noSteer?: boolean }

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): Options | 'help' | 'version' {
  const rest = argv.filter((a) => a !== '--progress'); // (every command's)
  if (rest.includes('-h') || rest.includes('--help')) return 'help';
  if (rest.includes('-v') || rest.includes('--version')) return 'version';
  const cmd = rest.shift();
  if (cmd === undefined) throw new UsageError('missing command');
  const lensCmd = (LENS_COMMANDS as readonly string[]).includes(cmd) ? (cmd as LensCommand) : cmd === 'generate' ? 'generate' : null;
  if (cmd !== 'stages' && !lensCmd) throw new UsageError(`unknown command "${cmd}" (commands: stages, ${LENS_COMMANDS.join(', ')}, generate)`);
  const lensOptions: readonly string[] = lensCmd === 'generate' ? GENERATE_OPTIONS : lensCmd ? LENS_OPTIONS[lensCmd] : [];
  let file: string | undefined;
  let only: string[] | null = null;
  let summary = false;
  let npy: string | null = null;
  let threads = 0;
  let noSteer = false;
  const lens: Record<string, string> = {};
  while (rest.length) {
    const a = rest.shift()!;
    const name = a.split('=')[0];
    if (lensCmd && lensOptions.includes(name)) {
      if (LENS_FLAGS.has(name)) lens[name] = '';
      else {
        const v = a.includes('=') ? a.slice(name.length + 1) : rest.shift();
        if (v === undefined || v === '') throw new UsageError(`${name} needs a value`);
        lens[name] = v;
      }
    } else if (a === '--threads' || a.startsWith('--threads=')) threads = threadsArg(a === '--threads' ? rest.shift() : a.slice('--threads='.length));
    else if (lensCmd && a.startsWith('-') && a !== '-') throw new UsageError(`unknown option "${a}" for ${lensCmd} (it takes ${lensOptions.join(', ')})`);
    else if (a === '--summary') summary = true;
    else if (a === '--no-steer') noSteer = true;
    else if (a === '--npy' || a.startsWith('--npy=')) {
      const v = a === '--npy' ? rest.shift() : a.slice('--npy='.length);
      if (!v) throw new UsageError('--npy needs a folder to write the .npy files into');
      npy = v;
    }
    else if (a === '--only' || a.startsWith('--only=')) {
      const v = a === '--only' ? rest.shift() : a.slice('--only='.length);
      if (!v) throw new UsageError('--only needs a comma-separated list of stage ids');
      only = v.split(',').map((s) => s.trim()).filter(Boolean);
      if (only.length === 0) throw new UsageError('--only needs a comma-separated list of stage ids');
    } else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option "${a}"`);
    else if (file === undefined) file = a;
    else throw new UsageError(`unexpected argument "${a}"`);
  }
  if (file === undefined) throw new UsageError('missing FILE');
  return { cmd: lensCmd ?? 'stages', file, only, summary, npy, lens, progress: argv.includes('--progress'), threads, noSteer };
}

function threadsArg(v: string | undefined): number {
  if (v === undefined || !/^\d+$/.test(v)) throw new UsageError(`--threads needs a whole number of threads (0: every core), got ${v === undefined ? 'nothing' : quote(v)}`);
  return Number(v);
}

/**
 * The kernel every command uses (made once, here, before anything multiplies): helper threads
 * from dist/matmulHelper.js beside the bundle (or the compiled source's, as tests run it), as many
 * as --threads asks (0: every core).
 */
function startKernel(setting: number): void {
  const threads = threadCount(setting, availableParallelism());
  const script = basename(__filename) === 'cli.js' ? join(__dirname, 'matmulHelper.js') : join(__dirname, '..', 'worker', 'matmulHelperThread.js');
  defaultKernel(threads > 1 ? nodeMatmulHelper(script) : undefined, threads);
}

function modelJson(m: ModelFile): object {
  const d = m.dims;
  return {
    name: m.name, seq: d.seq, d_model: d.dModel, d_ff: d.dFf, heads: d.heads, layers: d.layers, vocab: d.vocab,
    params: m.paramCounts,
  };
}

function summaryOf(s: Stage): object {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  // (an index loop: for…of over a typed array is ~6 times slower, seconds over a long input's attention)
  const d = s.data;
  const n = d.length;
  for (let i = 0; i < n; i++) {
    const v = d[i];
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  return { id: s.id, shape: s.shape, min: formatNumber(min), max: formatNumber(max), mean: formatNumber(n ? Math.fround(sum / n) : 0) };
}

function formatNumber(v: number): number | null {
  return Number.isFinite(v) ? Number(formatFloat32(v)) : null;
}

/** Writes the stage list without building one giant string per stage for big models. */
function writeStages(io: Io, stages: readonly Stage[], summary: boolean): void {
  io.out('"stages":[');
  stages.forEach((s, i) => {
    if (i) io.out(',');
    if (summary) {
      io.out(JSON.stringify(summaryOf(s)));
      return;
    }
    io.out(`{"id":${JSON.stringify(s.id)},"shape":${JSON.stringify(s.shape)},"data":[`);
    const parts: string[] = [];
    for (let k = 0; k < s.data.length; k++) {
      parts.push(formatFloat32(s.data[k]));
      if (parts.length === 4096) {
        io.out(parts.join(','));
        parts.length = 0;
        if (k + 1 < s.data.length) io.out(',');
      }
    }
    io.out(parts.join(','));
    io.out(']}');
  });
  io.out(']');
}

/**
 * JSON for a terminal: JSON.stringify escapes U+0000–U+001F but leaves DEL, the C1 controls (U+009B
 * starts a terminal command too) and bidi/format characters raw. Escaped, the JSON means the same.
 */
function jsonSafe(s: string): string {
  const unit = (u: string): string => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return s.replace(/[\u007f-\u009f\p{Cf}\u2028\u2029]/gu, (c) => c.split('').map(unit).join(''));
}

/** Runs the command line; returns the exit code. */
export async function run(argv: readonly string[], raw: Io, readFile: (f: string) => string = (f) => readFileSync(f, 'utf8'), files: CheckpointFiles = nodeFiles): Promise<number> {
  // Nothing from the file or the command line reaches the terminal as a control character (a key
  // "\u001b[2J" would clear the screen): messages quote such text visibly already; this is the
  // last guard, for every line written to stderr (and jsonSafe for the model's name on stdout).
  const io: Io = { out: raw.out, err: (s) => raw.err(terminalSafe(s)) };
  let opts: ReturnType<typeof parseArgs>;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    io.err(`ffn-lens: ${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (opts === 'help') {
    io.out(USAGE + '\n');
    return 0;
  }
  if (opts === 'version') {
    io.out(`${VERSION}\n`);
    return 0;
  }
  let text: string;
  try {
    text = readFile(opts.file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : errorDetail(e);
    io.err(`ffn-lens: cannot read ${named(opts.file)}: ${why}\n`);
    return 1;
  }
  startKernel(opts.threads);
  // (a tokenizer's own pattern may backtrack for minutes: it runs in a thread stopped after a budget)
  const store = new CheckpointStore(files, undefined, defaultKernel(), new TokenizerRunner(nodeTokenizerThread(nodeTokenizerScript(__dirname))));
  if (opts.progress || raw.errTty) {
    const tenth = { n: -1 };
    store.onRead = (r) => {
      const line = progressText(r, raw.errTty === true, tenth); // (terminalSafe inside: it writes \r itself)
      if (line) raw.err(line);
    };
  }
  // (a fault nothing foresaw is said as an internal error in the step it happened in, never as a bare TypeError)
  let step = 'reading the model file and what it names';
  try {
    const res = await resolveReadNow(readModel(text, opts.file), opts.file, store, new CheckpointResolver());
    store.runner.dispose();
    writeProblems(io, opts.file, text, res.problems);
    if (!res.file) return 1;
    step = opts.cmd === 'generate' ? 'generating' : opts.cmd === 'stages' ? 'computing the stages' : `the ${opts.cmd} lens`;
    if (opts.cmd === 'generate') return runGenerate(io, res.file, opts.lens);
    return opts.cmd === 'stages' ? runStages(io, opts, res.file) : runLens(io, opts.cmd, res.file, opts.lens);
  } catch (e) {
    store.runner.dispose();
    if (isOutOfMemory(e)) throw e; // (main's words for it)
    io.err(`ffn-lens: ${internalFault(step, e)}\n`);
    return 1;
  }
}

/** The read's problems to stderr, one line each as FILE:LINE:COL: severity: PATH: message. */
function writeProblems(io: Io, file: string, text: string, problems: ReadResult['problems']): void {
  const lines = new LineIndex(text);
  const { shown: printed, more } = shownProblems(problems);
  for (const p of printed) {
    const { line, col } = lines.position(p.start);
    // one line per problem, whatever a message holds: that is what problem matchers read
    // (a message that begins with its path is not given it twice: "token_ids[2]: must be a token id…")
    const path = formatPath(p.path);
    const message = p.message.startsWith(`${path} `) ? p.message.slice(path.length + 1) : p.message;
    io.err(`${file}:${line}:${col}: ${p.severity}: ${path}: ${message.replace(/\s*[\r\n]+\s*/g, ' ')}\n`);
  }
  if (more > 0) io.err(`${moreLine(file, more)}\n`);
}

/** `ffn-lens lens|dla|heads|patch`: the lens's answer as one JSON line. */
function runLens(io: Io, cmd: LensCommand, file: ModelFile, lens: Options['lens']): number {
  let out: object;
  try {
    out = lensCommand(cmd, file, lens);
  } catch (e) {
    if (!(e instanceof LensError)) throw e;
    io.err(`ffn-lens ${cmd}: ${e.message}\n`);
    return 1;
  }
  io.out(jsonSafe(JSON.stringify(out)) + '\n');
  return 0;
}

/** `ffn-lens generate`: the decoded tokens as one JSON line (src/cli/generateCommand.ts). */
function runGenerate(io: Io, file: ModelFile, opts: Options['lens']): number {
  let out: object;
  try {
    out = generateCommand(file, opts);
  } catch (e) {
    if (e instanceof GenerateUsageError) return io.err(`ffn-lens generate: ${e.message}\n`), 2;
    if (!(e instanceof DecodeError)) throw e;
    io.err(`ffn-lens generate: ${e.message}\n`);
    return 1;
  }
  io.out(jsonSafe(JSON.stringify(out)) + '\n');
  return 0;
}

/** `ffn-lens stages`: the stages asked for as JSON (and as .npy files with --npy). */
function runStages(io: Io, opts: Options, file: ModelFile): number {
  const stages = forward((opts.noSteer && file.checkpoint?.unsteered) || file.model, defaultKernel());
  let shown: Stage[] = stages;
  if (opts.only) {
    const ids = new Set(stages.map((s) => s.id));
    const unknown = opts.only.filter((id) => !ids.has(id));
    if (unknown.length) {
      io.err(`ffn-lens: no stage ${unknown.map((u) => `"${u}"`).join(', ')} in this model; its stages are:\n  ${[...ids].join('\n  ')}\n`);
      return 2;
    }
    const keep = new Set(opts.only);
    shown = stages.filter((s) => keep.has(s.id));
  }
  if (opts.npy) {
    try {
      writeNpy(opts.npy, shown);
    } catch (e) {
      io.err(`ffn-lens: cannot write the .npy files into ${named(opts.npy)}: ${(e as NodeJS.ErrnoException).code ?? errorDetail(e)}\n`);
      return 1;
    }
  }
  io.out(`{"model":${jsonSafe(JSON.stringify(modelJson(file)))},`); // (the stages hold only our ids and numbers)
  writeStages(io, shown, opts.summary);
  io.out('}\n');
  return 0;
}

/** Each stage as DIR/ID.npy (the ids are file-name safe: letters, digits, dots, underscores). */
function writeNpy(dir: string, stages: readonly Stage[]): void {
  makeDirs(dir);
  for (const s of stages) writeFileSync(join(dir, `${s.id}.npy`), npyBytes(s.data, s.shape));
}

/**
 * mkdir -p one level at a time: Node 20's own recursive mkdir never returns where an existing
 * folder refuses a new one with ENOENT (/proc/x); this fails at once with that error.
 */
function makeDirs(dir: string): void {
  if (existsSync(dir)) return; // (a file there: writing into it fails with ENOTDIR)
  const parent = dirname(dir);
  if (parent !== dir) makeDirs(parent);
  mkdirSync(dir);
}

declare const __VERSION__: string | undefined;
const VERSION = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev';

if (require.main === module) void main();

/** What the process sets before run(): the kernel's features and the memory a run may take (from the machine's). */
export function prepareProcess(): void {
  enableWasmRelaxedSimd(); // before the kernel is made
  setNodeRunBudget();
}

async function main(): Promise<void> {
  prepareProcess();
  const chunks: string[] = [];
  const io: Io = { out: (s) => chunks.push(s), err: (s) => process.stderr.write(s), errTty: process.stderr.isTTY === true };
  let code: number;
  try {
    code = await run(process.argv.slice(2), io);
  } catch (e) {
    const what = isOutOfMemory(e) ? 'out of memory: give a shorter input or fewer layers' : internalFault(`ffn-lens ${process.argv[2] ?? ''}`.trim(), e);
    process.stderr.write(terminalSafe(`ffn-lens: ${what}`) + '\n');
    code = 1;
    chunks.length = 0;
  }
  // Let stdout drain before the process ends (a pipe may be slower than we are). A reader that
  // stops early (`| head`) closes the pipe: that is not an error of ours, so end quietly.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(code);
    process.stderr.write(`ffn-lens: cannot write the output: ${e.code ?? errorDetail(e)}\n`);
    process.exit(1);
  });
  process.exitCode = code;
  for (const c of chunks) process.stdout.write(c);
}
