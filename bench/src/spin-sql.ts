/**
 * A spin's database writes alone, on one connection, with nothing else in the way (no HTTP, no
 * Temporal, no wallet): what reconciliation's triggers add to them, measured without the noise of
 * the settlement bench. A procedure repeats a spin's three transactions the way the game server and
 * the settlement activities write them (the round and its pending debit; the debit's success and
 * the credit's pending row; the credit's success and the round's completion), N times per run.
 *
 * Variants, run alternately RUNS times each (medians printed):
 *   built         the schema as migrated (reconciliation recounted once per transaction, at commit)
 *   row-triggers  migration 27 undone: migration 17's row triggers (a recount per changed row)
 *   off           reconciliation's triggers disabled (the floor: what the writes cost without it)
 *
 *   npm run bench -- spin-sql      (N=2000 RUNS=5 VARIANTS=built,row-triggers,off by default)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '@opi/devstack';
import { reconciliationTriggersSql } from './lib/reconciliation-triggers.js';
import { startBenchStack } from './lib/stack.js';
import { fmt, median } from './lib/stats.js';

const N = Number(process.env.N ?? 2000);
const RUNS = Number(process.env.RUNS ?? 5);
const VARIANTS = (process.env.VARIANTS ?? 'built,row-triggers,off').split(',');

const migration = await readFile(
  path.join(REPO_ROOT, 'packages/db/migrations/1700000000027_round_reconciliation_once_per_transaction.sql'),
  'utf8',
);
const [up, down] = migration.split('-- Down Migration') as [string, string];
/** SQL from the built schema to the variant, and back. */
const SWITCH: Record<string, { to: string; back: string }> = {
  built: { to: '', back: '' },
  'row-triggers': { to: down, back: up },
  off: { to: reconciliationTriggersSql(false), back: reconciliationTriggersSql(true) },
};

const stack = await startBenchStack();
try {
  const symbol = (await stack.pool.query<{ symbol: string }>(`SELECT symbol FROM games LIMIT 1`)).rows[0]!
    .symbol;
  await stack.pool.query(
    `INSERT INTO operators (operator_id, name) VALUES ('op_sql', 'Spin SQL');
     INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ('p_sql', 'op_sql', 'x_sql', 'global')`,
  );
  await stack.pool.query(
    `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
     VALUES ('s_sql', 'op_sql', 'p_sql', $1, 'prov_a', 'EUR')`,
    [symbol],
  );
  // The spin's three transactions; bodies and hashes stand in for the real ones (same widths).
  await stack.pool.query(`CREATE PROCEDURE bench_spins(n int, tag text, game text) AS $$
DECLARE
  i int;
  x int;
  rid text;
  body text := repeat('b', 420);
BEGIN
  FOR i IN 1..n LOOP
    rid := tag || i;
    WITH ins AS (
      INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, intent, bet_minor)
      VALUES (rid, 'op_sql', 's_sql', 'p_sql', game, 'prov_a', 'EUR', jsonb_build_object('body', body), 100)
      RETURNING round_id)
    INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
      transaction_type, amount_minor, currency, request_body, request_hash, attempts)
    SELECT rid || ':d', 'op_sql', 's_sql', round_id, 'x_sql', game, 'debit', 100, 'EUR', body, repeat('a', 64), 1
      FROM ins;
    COMMIT;
    WITH tx AS (
      UPDATE wallet_transactions SET status = 'success', wallet_balance = 1000, completed_at = now(), updated_at = now()
       WHERE transaction_id = rid || ':d' AND status = 'pending' RETURNING 1),
    cr AS (
      INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
        transaction_type, amount_minor, currency, request_body, request_hash, attempts)
      VALUES (rid || ':c', 'op_sql', 's_sql', rid, 'x_sql', game, 'credit', 50, 'EUR', body, repeat('a', 64), 1)
      ON CONFLICT (transaction_id) DO NOTHING RETURNING 1)
    SELECT (SELECT count(*) FROM tx) + (SELECT count(*) FROM cr) INTO x;
    COMMIT;
    WITH tx AS (
      UPDATE wallet_transactions SET status = 'success', wallet_balance = 1050, completed_at = now(), updated_at = now()
       WHERE transaction_id = rid || ':c' AND status = 'pending' RETURNING 1),
    rd AS (
      UPDATE rounds SET status = 'completed', stuck = false, win_minor = 50, updated_at = now(), settled_at = now()
       WHERE round_id = rid RETURNING 1)
    SELECT (SELECT count(*) FROM tx) + (SELECT count(*) FROM rd) INTO x;
    COMMIT;
  END LOOP;
END $$ LANGUAGE plpgsql`);

  const perSpin: Record<string, number[]> = {};
  let seq = 0;
  for (let run = 0; run < RUNS; run++) {
    for (const variant of VARIANTS) {
      const change = SWITCH[variant];
      if (!change) throw new Error(`unknown variant ${variant} (built, row-triggers, off)`);
      const c = await stack.pool.connect();
      try {
        if (change.to) await c.query(change.to);
        await c.query(`CALL bench_spins(200, $1, $2)`, [`w${seq++}_`, symbol]);
        const t0 = performance.now();
        await c.query(`CALL bench_spins($1, $2, $3)`, [N, `r${seq++}_`, symbol]);
        const ms = (performance.now() - t0) / N;
        perSpin[variant] = [...(perSpin[variant] ?? []), ms];
        if (change.back) await c.query(change.back);
      } finally {
        c.release();
      }
    }
  }
  // Every counted round must reconcile (the off variant's rounds have no row).
  const { rows } = await stack.pool.query<{ rows: string; differing: string }>(
    `SELECT count(*)::text AS rows, count(*) FILTER (WHERE differs)::text AS differing FROM round_reconciliation`,
  );
  console.log(`spin-sql: ${N} spins per run, ${RUNS} runs per variant, alternating; ms per spin (median)`);
  const off = perSpin.off ? median(perSpin.off) : undefined;
  for (const variant of VARIANTS) {
    const m = median(perSpin[variant]!);
    const share = off !== undefined && variant !== 'off' ? `  reconciliation +${fmt(m - off, 3)} ms` : '';
    console.log(
      `${variant.padEnd(13)} ${fmt(m, 3)} ms  (runs ${perSpin[variant]!.map((v) => fmt(v, 3)).join(' ')})${share}`,
    );
  }
  console.log(`round_reconciliation: ${rows[0]!.rows} rows, ${rows[0]!.differing} differing (must be 0)`);
  if (rows[0]!.differing !== '0') process.exitCode = 1;
} finally {
  await stack.stop();
}
