// Waiting in the e2e tests: for a condition, with a generous overall deadline, never for a time.
// (On a loaded machine everything is late; a deadline only bounds how long a broken run hangs.)

/** Default overall deadline of a wait: long, since a passing run never reaches it. */
export const WAIT_MS = 60_000;

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Calls `check` until it returns a truthy value (which is returned), at most every `everyMs`, until
 * `timeoutMs` have passed; then fails saying what was awaited and, with `describe`, what was seen.
 * A `check` that throws counts as not yet (the page may be between two states).
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  opts: { timeoutMs?: number; everyMs?: number; describe?: () => Promise<string> | string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? WAIT_MS);
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      const seen = opts.describe ? await Promise.resolve(opts.describe()).catch((e: unknown) => `(could not tell: ${String(e)})`) : '';
      const why = last instanceof Error ? ` (last error: ${last.message.split('\n')[0]})` : '';
      throw new Error(`timed out after ${opts.timeoutMs ?? WAIT_MS} ms waiting for ${what}${seen ? `; ${seen}` : ''}${why}`);
    }
    await pause(opts.everyMs ?? 100);
  }
}
