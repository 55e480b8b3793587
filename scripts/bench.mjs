// npm run bench -- <name>: runs bench/src/<name>.ts (catalog, settlement, launch, ...).
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ensureInstall, ROOT, runTs } from './ensure-install.mjs';

const name = process.argv[2];
const dir = path.join(ROOT, 'bench', 'src');
const available = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3));
if (!name || !existsSync(path.join(dir, `${name}.ts`))) {
  process.stderr.write(`usage: npm run bench -- <${available.join('|')}>\n`);
  process.exit(2);
}
ensureInstall();
runTs(`bench/src/${name}.ts`, process.argv.slice(3));
