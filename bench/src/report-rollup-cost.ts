/**
 * Issue 38 point 6: what keeping the reports' rollup (migrations 1700000000041 and 42) costs PostgreSQL per
 * spin, measured where it is spent. One connection writes rounds exactly as a three-transaction
 * spin does (1: the round and its pending debit; 2: the debit's success and the pending credit;
 * 3: the credit's success and the round completed), and the CPU of its own backend is read from
 * /proc before and after each block. Blocks alternate between the deferred recount as migration 42
 * left it (reconciliation totals, the rollup and its billed round sets) and migration 27's (totals only), swapped in the
 * same database with CREATE OR REPLACE FUNCTION, so the difference is the rollup's alone.
 *
 *   npm run bench -- report-rollup-cost      (BLOCKS=6 ROUNDS=300 by default; COMPARE=41: the round sets alone)
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { admin, startBenchStack } from './lib/stack.js';
import { fmt, median } from './lib/stats.js';

const BLOCKS = Number(process.env.BLOCKS ?? 6);
const ROUNDS = Number(process.env.ROUNDS ?? 300);
const migrationText = (name: string) =>
  readFileSync(
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), `../../packages/db/migrations/${name}.sql`),
    'utf8',
  );
const fn = (migration: string, from: string) => {
  const at = migration.indexOf(
    'CREATE OR REPLACE FUNCTION round_reconciliation_recount',
    migration.indexOf(from),
  );
  const end = migration.indexOf('$$ LANGUAGE plpgsql;', at) + '$$ LANGUAGE plpgsql;'.length;
  return migration.slice(at, end);
};
// The recount as it is now (migration 42: the rollup and the billed round sets), and migration 27's.
const WITH_ROLLUP = fn(migrationText('1700000000042_report_round_sets'), '-- Up Migration');
// COMPARE=41: against migration 41's recount instead (the rollup without the round sets), so the
// difference is the round sets' alone.
const WITHOUT =
  process.env.COMPARE === '41'
    ? fn(migrationText('1700000000041_report_rollup'), '-- Up Migration')
    : fn(migrationText('1700000000041_report_rollup'), "-- Migration 27's recount.");

process.env.REPLAY_LINK_SECRET ??= 'bench-replay-link-secret-0123456789abcdef';
const stack = await startBenchStack();
try {
  const api = await stack.startApi();
  await admin(api.origin, 'POST', '/api/admin/v1/operators', {
    operator_id: 'op_rollup_cost',
    name: 'Rollup cost',
    default_currency: 'EUR',
    allowed_currencies: ['EUR'],
    wallet_base_url: 'https://wallet.bench.test/wallet',
  });
  const symbol = (
    await stack.pool.query<{ symbol: string }>(`SELECT symbol FROM games ORDER BY symbol LIMIT 1`)
  ).rows[0]!.symbol;
  await stack.pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope)
     SELECT 'rc_p' || i, 'op_rollup_cost', 'rc-ext-' || i, 'global' FROM generate_series(1, 50) i`,
  );
  await stack.pool.query(
    `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
     SELECT 'rc_s' || i, 'op_rollup_cost', 'rc_p' || i, $1, (SELECT provider_id FROM games WHERE symbol = $1), 'EUR'
       FROM generate_series(1, 50) i`,
    [symbol],
  );
  const c = await stack.pool.connect();
  const pid = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const ticks = () => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(f[11]) + Number(f[12]); // utime + stime, in clock ticks (1/100 s)
  };
  let n = 0;
  async function spin() {
    const id = `rc_r${n++}`;
    const s = `rc_s${1 + (n % 50)}`;
    const p = `rc_p${1 + (n % 50)}`;
    const tx = (t: string, type: string, amount: number) =>
      c.query(
        `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
           transaction_type, amount_minor, currency, request_body, request_hash)
         VALUES ($1, 'op_rollup_cost', $2, $3, $4, $5, $6, $7, 'EUR', '{}', repeat('a', 64))`,
        [t, s, id, p, symbol, type, amount],
      );
    await c.query('BEGIN');
    await c.query(
      `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
         bet_minor, win_minor, intent)
       SELECT $1, 'op_rollup_cost', $2, $3, $4, provider_id, 'EUR', 'open', 100, 0, '{}' FROM games WHERE symbol = $4`,
      [id, s, p, symbol],
    );
    await tx(`${id}:debit`, 'debit', 100);
    await c.query('COMMIT');
    await c.query('BEGIN');
    await c.query(`UPDATE wallet_transactions SET status = 'success' WHERE transaction_id = $1`, [
      `${id}:debit`,
    ]);
    await tx(`${id}:credit`, 'credit', n % 3 ? 0 : 250);
    await c.query('COMMIT');
    await c.query('BEGIN');
    await c.query(`UPDATE wallet_transactions SET status = 'success' WHERE transaction_id = $1`, [
      `${id}:credit`,
    ]);
    await c.query(`UPDATE rounds SET status = 'completed', win_minor = $2 WHERE round_id = $1`, [
      id,
      n % 3 ? 0 : 250,
    ]);
    await c.query('COMMIT');
  }
  const per: Record<'with' | 'without', number[]> = { with: [], without: [] };
  const wall: Record<'with' | 'without', number[]> = { with: [], without: [] };
  for (let b = 0; b < BLOCKS * 2; b++) {
    const mode = b % 2 === 0 ? 'without' : 'with';
    await stack.pool.query(mode === 'with' ? WITH_ROLLUP : WITHOUT);
    for (let i = 0; i < 30; i++) await spin(); // warm the plans of this body
    const t0 = ticks();
    const w0 = performance.now();
    for (let i = 0; i < ROUNDS; i++) await spin();
    per[mode].push(((ticks() - t0) * 10) / ROUNDS);
    wall[mode].push((performance.now() - w0) / ROUNDS);
  }
  await stack.pool.query(WITH_ROLLUP);
  c.release();
  const diffs = per.with.map((v, i) => v - per.without[i]!);
  console.log(
    `report-rollup-cost: ${BLOCKS} pairs of ${ROUNDS} three-transaction spins on one connection; ` +
      `PostgreSQL backend CPU ms per spin (/proc, 10 ms ticks)`,
  );
  console.log(
    `  ${process.env.COMPARE === '41' ? "without the round sets (migration 41's recount)" : "without the rollup (migration 27's recount)"}: ${per.without.map((v) => fmt(v, 3)).join(', ')}`,
  );
  console.log(
    `  with the rollup and round sets (migration 42's recount): ${per.with.map((v) => fmt(v, 3)).join(', ')}`,
  );
  console.log(
    `  median without ${fmt(median(per.without), 3)} ms, with ${fmt(median(per.with), 3)} ms; ` +
      `median pair difference ${fmt(median(diffs), 3)} ms per spin (pairs ${diffs.map((d) => fmt(d, 3)).join(', ')}); ` +
      `wall ms per spin ${fmt(median(wall.without), 3)} -> ${fmt(median(wall.with), 3)}`,
  );
  const drift = await stack.pool.query(
    `SELECT sum(rounds)::int AS rounds FROM report_daily WHERE operator_id = 'op_rollup_cost'`,
  );
  console.log(
    `  rounds counted by the rollup: ${drift.rows[0].rounds} (written with it: ${(30 + ROUNDS) * BLOCKS}${process.env.COMPARE === '41' ? '; the others by migration 41' : "; the others by migration 27's recount, not counted"})`,
  );
} finally {
  await stack.stop();
}
