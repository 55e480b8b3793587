import { STORED_RTP } from '../catalog.js';
import { ciCells, pct, textTable } from '../rtp-report.js';
import { toFractionString } from './rational.js';
import { NATIVE_STRATEGIES, simulateNative } from './simulate.js';

/**
 * The native rows of the RTP simulator CLI (`rtp-cli.ts --family native`): per documented
 * strategy the stored RTP, the exact theoretical return, the measured return, its 99% confidence
 * interval and whether the stored figure lies inside.
 */
export function runNative(opts: { rounds: number; seed: number; symbol?: string; strategy?: string }): void {
  const strategies = NATIVE_STRATEGIES.filter(
    (s) =>
      (opts.symbol === undefined || s.symbol === opts.symbol) &&
      (opts.strategy === undefined || s.id === opts.strategy),
  );
  if (strategies.length === 0) throw new Error('no matching native strategy');
  console.log(`family=native rounds=${opts.rounds} seed=${opts.seed} (xoshiro128**, per strategy)`);
  const header = [
    'symbol',
    'strategy',
    'stored',
    'theory (exact)',
    'measured',
    'ci99',
    'inside',
    'rounds',
    'seconds',
  ];
  const rows: string[][] = [];
  for (const s of strategies) {
    const stored = Number(STORED_RTP[s.symbol]) / 100;
    const r = simulateNative(s, opts.rounds, opts.seed);
    const row = [
      s.symbol,
      s.id,
      pct(stored),
      toFractionString(s.theory()),
      pct(r.rtp),
      ...ciCells(stored, r.ci99),
      String(r.rounds),
      r.seconds.toFixed(2),
    ];
    rows.push(row);
    console.log(row.join('\t'));
  }
  console.log();
  console.log(textTable(header, rows));
  console.log();
  for (const s of strategies) console.log(`${s.id}: ${s.description}`);
}
