import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Every file under `dir` whose name `keep` accepts, depth first in directory order, without
 * descending into a folder named in `skip`. A folder that cannot be read (absent) adds nothing.
 * What npm test runs (every *.test.ts) and what the repository-wide rule tests read.
 */
export function filesUnder(
  dir: string,
  keep: (name: string) => boolean,
  skip: ReadonlySet<string>,
  out: string[] = [],
): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (skip.has(name)) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) filesUnder(full, keep, skip, out);
    else if (keep(name)) out.push(full);
  }
  return out;
}
