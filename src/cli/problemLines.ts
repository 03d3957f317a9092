// Which problems the command line prints: all of them up to a bound, then one line saying how
// many more there are. A file can hold hundreds (the reader keeps up to 200 syntax errors alone),
// and a terminal or a CI log is no place for them all: the editor's Problems view shows every one.
import type { Problem } from '../model/problems';

/** Problems printed before the rest are counted instead. */
export const MAX_SHOWN = 20;

/** The problems to print (errors first when some are left out, so one always shows) and how many are not. */
export function shownProblems(problems: readonly Problem[], max = MAX_SHOWN): { shown: readonly Problem[]; more: number } {
  if (problems.length <= max) return { shown: problems, more: 0 };
  const errors = problems.filter((p) => p.severity === 'error');
  const rest = problems.filter((p) => p.severity !== 'error');
  return { shown: [...errors, ...rest].slice(0, max), more: problems.length - max };
}

/** The line after them: "… and 7 more problems in FILE (the editor shows them all)". */
export function moreLine(file: string, more: number): string {
  return `ffn-lens: … and ${more} more problem${more === 1 ? '' : 's'} in ${file}, not shown (VS Code's Problems view lists them all)`;
}
