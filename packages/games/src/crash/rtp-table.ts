/**
 * The crash part of the RTP CLI (`rtp-cli.ts --family crash`): one row per title and cash-out
 * strategy with the stored RTP, the theory (the stored RTP for every target up to the cap), the
 * measured RTP and its 99% confidence interval, and the measured against the theoretical win rate.
 */
import { CATALOG } from '../catalog.js';
import { ciCells, pct, textTable } from '../rtp-report.js';
import { formatMultiplier, parseMultiplier } from './fairness.js';
import { DEFAULT_TARGETS, simulateCrash } from './simulate.js';

export interface CrashRtpOptions {
  rounds: number;
  seed: number;
  symbol?: string;
  /** comma-separated multipliers, e.g. '1.5,2,10' */
  targets?: string;
}

export function printCrashRtpTable(options: CrashRtpOptions): void {
  const titles = CATALOG.filter(
    (e) => e.provider_id === 'prov_d' && (options.symbol === undefined || e.symbol === options.symbol),
  );
  if (titles.length === 0) throw new Error('no matching crash title');
  const targets = options.targets
    ? options.targets.split(',').map((t) => {
        const c = parseMultiplier(t);
        if (c === null || c < 101) throw new Error(`bad target ${t} (a multiplier of at least 1.01)`);
        return c;
      })
    : [...DEFAULT_TARGETS];
  console.log(
    `crash rounds=${options.rounds} per title, seed=${options.seed} (HMAC-SHA256 derivation, nonces 0..n-1)`,
  );
  const header = [
    'symbol',
    'strategy',
    'stored',
    'theory',
    'measured',
    'ci99',
    'inside',
    'win rate',
    'theory rate',
    'rounds',
    'seconds',
  ];
  const rows: string[][] = [];
  for (const title of titles) {
    const sim = simulateCrash(title.symbol, title.rtp, options.rounds, options.seed, targets);
    for (const s of sim.strategies) {
      const stored = Number(title.rtp) / 100;
      const row = [
        title.symbol,
        `cash out at ${formatMultiplier(s.targetCents)}x`,
        pct(stored),
        pct(stored),
        pct(s.rtp),
        ...ciCells(stored, s.ci99),
        pct(s.winRate),
        pct(s.theoryWinRate),
        String(sim.rounds),
        sim.seconds.toFixed(1),
      ];
      rows.push(row);
      console.log(row.join('\t'));
    }
    console.log(`${title.symbol}\tinstant crashes (1.00x): ${pct(sim.instantCrashRate)}%`);
  }
  console.log();
  console.log(textTable(header, rows));
}
