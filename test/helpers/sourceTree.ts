// The source files the tree checks read (vocabulary, sizes): every .ts under a folder of the
// repository but tests and declarations, as paths from the repository's root.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './fixtures';

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(REPO, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(REPO, rel)).isDirectory()) out.push(...sourceFiles(rel));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}
