// Paths of the project's own test fixtures (copied in from the reference cases; tests never
// read anything outside the repository).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root, found from the compiled location out/test/helpers/. */
export const REPO = resolve(__dirname, '..', '..', '..');
export const FIXTURES = join(REPO, 'test', 'fixtures');
export const GOLDEN = join(FIXTURES, 'golden');

export interface GoldenCase {
  readonly name: string;
  readonly description: string;
  readonly model: unknown;
  readonly expected: Record<string, { shape: number[]; data: number[] }>;
  readonly tolerance: { abs: number; rel: number };
}

export function goldenCases(): GoldenCase[] {
  return readdirSync(GOLDEN)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), ...JSON.parse(readFileSync(join(GOLDEN, f), 'utf8')) }));
}

export function fixture(...parts: string[]): string {
  return readFileSync(join(FIXTURES, ...parts), 'utf8');
}
