/**
 * RTP simulator CLI.
 *
 *   node --conditions=source --import tsx packages/games/src/slots/rtp-cli.ts \
 *     --spins 10000000 [--symbol X] [--mode base|buy|special] [--bl N] [--seed N]
 *
 * Prints, per title: stored RTP, theoretical RTP, measured RTP, 99% CI,
 * whether the stored value lies inside the CI, spins and seconds.
 * Special mode defaults to the highest bet level.
 *
 * `--family native` runs the native titles (`cnmines`, `cnhilo`, `cndice`) instead, one row per
 * documented player strategy (`--spins` is then rounds per strategy; `--symbol` or `--strategy`
 * narrows the set): see ../native/simulate.ts.
 *
 * `--family crash` runs the crash titles (`dcrash1`, `dcrash2`, `dcrash3`): `--spins` rounds per
 * title, each scored under the documented cash-out strategies (`--targets 1.01,1.5,2,10,100`;
 * `--symbol` narrows the set): see ../crash/rtp-table.ts.
 */
import { parseArgs } from 'node:util';
import { STORED_RTP } from '../catalog.js';
import { printCrashRtpTable } from '../crash/rtp-table.js';
import { runNative } from '../native/rtp-table.js';
import { slotConfigs } from './configs.js';
import type { SpinMode } from './engine.js';
import { theoreticalRtp } from './math.js';
import { simulate } from './simulate.js';

const { values } = parseArgs({
  options: {
    spins: { type: 'string', default: '1000000' },
    symbol: { type: 'string' },
    mode: { type: 'string', default: 'base' },
    bl: { type: 'string' },
    seed: { type: 'string', default: '20250101' },
    family: { type: 'string', default: 'slots' },
    strategy: { type: 'string' },
    targets: { type: 'string' },
  },
});
if (values.family === 'crash') {
  printCrashRtpTable({
    rounds: Number(values.spins),
    seed: Number(values.seed),
    ...(values.symbol !== undefined ? { symbol: values.symbol } : {}),
    ...(values.targets !== undefined ? { targets: values.targets } : {}),
  });
  process.exit(0);
}
if (values.family === 'native') {
  runNative({
    rounds: Number(values.spins),
    seed: Number(values.seed),
    ...(values.symbol !== undefined ? { symbol: values.symbol } : {}),
    ...(values.strategy !== undefined ? { strategy: values.strategy } : {}),
  });
  process.exit(0);
}
if (values.family !== 'slots') throw new Error(`bad --family ${values.family} (slots, native or crash)`);

const spins = Number(values.spins);
const seed = Number(values.seed);
const mode = values.mode as SpinMode;
if (!['base', 'buy', 'special'].includes(mode)) throw new Error(`bad --mode ${values.mode}`);
const bl = values.bl === undefined ? undefined : Number(values.bl);

const configs = slotConfigs().filter((c) => {
  if (values.symbol !== undefined) return c.symbol === values.symbol;
  if (mode === 'buy') return c.buyPriceX !== null;
  if (mode === 'special') return c.special !== null;
  return true;
});
if (configs.length === 0) throw new Error('no matching title');

const pct = (x: number): string => (x * 100).toFixed(3);
console.log(`mode=${mode} spins=${spins} seed=${seed} (xoshiro128**, per title)`);
const header = [
  'symbol',
  'bl',
  'stored',
  'theory',
  'measured',
  'ci99',
  'inside',
  'spins',
  'seconds',
  'spins/s',
];
const rows: string[][] = [];
for (const cfg of configs) {
  const stored = Number(STORED_RTP[cfg.symbol as keyof typeof STORED_RTP]) / 100;
  const r = simulate(cfg, spins, seed, mode, bl);
  const theory = theoreticalRtp(cfg, mode, r.betLevel);
  const inside = stored >= r.ci99[0] && stored <= r.ci99[1];
  const row = [
    cfg.symbol,
    String(r.betLevel),
    pct(stored),
    pct(theory),
    pct(r.rtp),
    `[${pct(r.ci99[0])}, ${pct(r.ci99[1])}]`,
    inside ? 'yes' : 'no',
    String(r.spins),
    r.seconds.toFixed(2),
    Math.round(r.spins / r.seconds).toLocaleString('en-US'),
  ];
  rows.push(row);
  console.log(row.join('\t'));
}
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const fmt = (r: string[]): string => r.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
console.log();
console.log(fmt(header));
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
for (const r of rows) console.log(fmt(r));
