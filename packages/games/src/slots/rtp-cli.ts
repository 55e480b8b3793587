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
 * `--jackpot reference` (or a definition, `level:rate_ppm:seed_minor:hit_every_minor[:cap_minor]`
 * comma-separated, e.g. `--jackpot mini:5000:1000:200000,mega:1500:1000000:500000000`) adds a
 * jackpot to every slot title (`--bet N`: the base bet in minor units, default 100; the stake the
 * jackpot sees is bet × the mode's cost factor): the summary gains the jackpot's and the total's
 * expected and measured RTP, and each title gets a table of its base game, each level, the jackpot
 * and the total, measured against expected (./jackpot-simulate.ts; docs/jackpots-and-promotions.md,
 * "The jackpot in the RTP simulator").
 *
 * `--family crash` runs the crash titles (`dcrash1`, `dcrash2`, `dcrash3`): `--spins` rounds per
 * title, each scored under the documented cash-out strategies (`--targets 1.01,1.5,2,10,100`;
 * `--symbol` narrows the set): see ../crash/rtp-table.ts.
 */
import { parseArgs } from 'node:util';
import { STORED_RTP } from '../catalog.js';
import { printCrashRtpTable } from '../crash/rtp-table.js';
import { runNative } from '../native/rtp-table.js';
import { ciCells, pct, textTable } from '../rtp-report.js';
import { slotConfigs } from './configs.js';
import type { SpinMode } from './engine.js';
import {
  formatJackpotSpec,
  type JackpotDef,
  type JackpotRunResult,
  jackpotSeedFor,
  parseJackpotSpec,
  simulateTitleWithJackpot,
  type TitleJackpotResult,
} from './jackpot-simulate.js';
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
    jackpot: { type: 'string' },
    bet: { type: 'string', default: '100' },
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
const jackpot: JackpotDef | null = values.jackpot === undefined ? null : parseJackpotSpec(values.jackpot);
const betMinor = Number(values.bet);
if (!Number.isSafeInteger(betMinor) || betMinor < 1) throw new Error(`bad --bet ${values.bet} (minor units)`);

const configs = slotConfigs().filter((c) => {
  if (values.symbol !== undefined) return c.symbol === values.symbol;
  if (mode === 'buy') return c.buyPriceX !== null;
  if (mode === 'special') return c.special !== null;
  return true;
});
if (configs.length === 0) throw new Error('no matching title');

const pct4 = (x: number): string => (x * 100).toFixed(4);
console.log(`mode=${mode} spins=${spins} seed=${seed} (xoshiro128**, per title)`);
if (jackpot) {
  console.log(
    `jackpot ${jackpot.name}: ${formatJackpotSpec(jackpot)} (level:rate_ppm:seed:hit_every[:cap], minor units); ` +
      `bet ${betMinor} minor units; jackpot draws seed ${jackpotSeedFor(seed)}`,
  );
}
const header = [
  'symbol',
  'bl',
  'stored',
  'theory',
  'measured',
  'ci99',
  'inside',
  ...(jackpot ? ['stake', 'jp expected', 'jp measured', 'jp held', 'total expected', 'total measured'] : []),
  'spins',
  'seconds',
  'spins/s',
];
const rows: string[][] = [];
const titleTables: string[] = [];
/** The jackpot does not depend on the title: one run per stake serves every title at that stake. */
const jackpotRuns = new Map<number, JackpotRunResult>();
for (const cfg of configs) {
  const stored = Number(STORED_RTP[cfg.symbol as keyof typeof STORED_RTP]) / 100;
  let t: TitleJackpotResult | null = null;
  if (jackpot) {
    t = simulateTitleWithJackpot(cfg, jackpot, {
      spins,
      seed,
      betMinor,
      mode,
      ...(bl !== undefined ? { betLevel: bl } : {}),
      jackpotRuns,
    });
    titleTables.push(titleTable(cfg.symbol, t));
  }
  const r = t?.base ?? simulate(cfg, spins, seed, mode, bl);
  const theory = theoreticalRtp(cfg, mode, r.betLevel);
  const row = [
    cfg.symbol,
    String(r.betLevel),
    pct(stored),
    pct(theory),
    pct(r.rtp),
    ...ciCells(stored, r.ci99),
    ...(t
      ? [
          String(t.stakeMinor),
          pct(t.jackpot.expectedShare),
          pct(t.jackpot.share),
          pct(t.jackpot.heldShare),
          pct(t.totalExpected),
          pct(t.total),
        ]
      : []),
    String(r.spins),
    r.seconds.toFixed(2),
    Math.round(r.spins / r.seconds).toLocaleString('en-US'),
  ];
  rows.push(row);
  console.log(row.join('\t'));
}
console.log();
console.log(textTable(header, rows));
for (const t of titleTables) console.log(`\n${t}`);

/** Micros as minor units with six decimals, exactly. */
function minor(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const m = micros < 0n ? -micros : micros;
  const whole = (m / 1_000_000n).toLocaleString('en-US');
  return `${sign}${whole}.${(m % 1_000_000n).toString().padStart(6, '0')}`;
}

/**
 * One title: base game, each level, the jackpot, the total (RTP shares in % of the stake). `z` is
 * (measured + held − expected) / sigma; a level's sigma is its binomial hit count's (the only
 * randomness of measured + held), the total's sqrt(base stdError² + jackpot sigma²).
 */
function titleTable(symbol: string, t: TitleJackpotResult): string {
  const j = t.jackpot;
  const z = (measured: number, expected: number, sigma: number): string =>
    sigma > 0 ? ((measured - expected) / sigma).toFixed(2) : measured === expected ? '0' : 'exact';
  const head = [
    'part',
    'expected',
    'measured',
    'held at end',
    'sigma',
    'z',
    'hits (expected)',
    'contributions (minor)',
    'wins paid (minor)',
  ];
  const body: string[][] = [
    [
      'base game',
      pct(t.baseExpected),
      pct(t.base.rtp),
      '',
      pct4(t.base.stdError),
      z(t.base.rtp, t.baseExpected, t.base.stdError),
      '',
      '',
      '',
    ],
    ...j.levels.map((l) => [
      `${l.level}${l.capMinor === null ? '' : ` (cap ${l.capMinor}: a bound)`}`,
      pct(l.expectedShare),
      pct(l.share),
      pct(l.heldShare),
      pct4(l.sigma),
      z(l.share + l.heldShare, l.expectedShare, l.sigma),
      `${l.hits} (${l.expectedHits.toFixed(l.expectedHits < 10 ? 2 : 1)})`,
      minor(l.contributionsMicros),
      l.winsMinor.toLocaleString('en-US'),
    ]),
    [
      'jackpot',
      pct(j.expectedShare),
      pct(j.share),
      pct(j.heldShare),
      pct4(j.sigma),
      z(j.share + j.heldShare, j.expectedShare, j.sigma),
      '',
      minor(j.levels.reduce((a, l) => a + l.contributionsMicros, 0n)),
      j.levels.reduce((a, l) => a + l.winsMinor, 0n).toLocaleString('en-US'),
    ],
    [
      'total',
      pct(t.totalExpected),
      pct(t.total),
      pct(j.heldShare),
      pct4(t.totalStdError),
      z(t.totalWithHeld, t.totalExpected, t.totalStdError),
      '',
      '',
      '',
    ],
  ];
  const title =
    `${symbol} (bl ${t.base.betLevel}): stake ${t.stakeMinor} minor units a spin, ${t.base.spins.toLocaleString('en-US')} spins, ` +
    `total stake ${j.totalStakeMinor.toLocaleString('en-US')}; jackpot ${j.seconds.toFixed(2)} s`;
  return `${title}\n${textTable(head, body)}`;
}
