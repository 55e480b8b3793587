/**
 * Operator audit reads over one million journalled transactions: reconciliation (JSON and CSV)
 * and transaction/round search pages, through one API process in production mode (signed
 * requests). The journal is generated set-based in PostgreSQL: ROUNDS rounds across PLAYERS
 * players and three currencies, each with a debit and a credit (a few pending, a few rejected).
 *
 *   npm run bench -- audit       (ROUNDS=500000 PLAYERS=2000 REPEATS=7 by default)
 */
import { journalDrift } from '@opi/api';
import { reconciliationTriggersSql } from './lib/reconciliation-triggers.js';
import { benchApiKey, createBenchOperator, signedHeaders, startBenchStack } from './lib/stack.js';
import { fmt, median } from './lib/stats.js';

const ROUNDS = Number(process.env.ROUNDS ?? 500_000);
const PLAYERS = Number(process.env.PLAYERS ?? 2000);
const REPEATS = Number(process.env.REPEATS ?? 7);

const stack = await startBenchStack();
try {
  const api = await stack.startApi();
  await createBenchOperator(api.origin, {
    default_currency: 'EUR',
    allowed_currencies: ['EUR', 'USD', 'GBP'],
  });
  const key = await benchApiKey(api.origin);
  const symbol = (await stack.pool.query<{ symbol: string }>(`SELECT symbol FROM games LIMIT 1`)).rows[0]!
    .symbol;

  const t0 = performance.now();
  await stack.pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope)
     SELECT 'p_' || i, 'op_bench', 'ext-' || i, 'global' FROM generate_series(1, $1) i`,
    [PLAYERS],
  );
  await stack.pool.query(
    `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
     SELECT 's_' || i, 'op_bench', 'p_' || i, $2, 'prov_a', (ARRAY['EUR','USD','GBP'])[1 + i % 3]
     FROM generate_series(1, $1) i`,
    [PLAYERS, symbol],
  );
  // Rounds spread over the last 30 days; every 997th is rejected, every 5003rd still open.
  await stack.pool.query(
    `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                         bet_minor, win_minor, intent, created_at, settled_at)
     SELECT 'r_' || i, 'op_bench', 's_' || (1 + i % $2), 'p_' || (1 + i % $2), $3, 'prov_a',
            (ARRAY['EUR','USD','GBP'])[1 + (1 + i % $2) % 3],
            CASE WHEN i % 997 = 0 THEN 'rejected' WHEN i % 5003 = 0 THEN 'open' ELSE 'completed' END,
            100 + i % 400, CASE WHEN i % 997 = 0 OR i % 5003 = 0 THEN 0 ELSE (i::bigint * 7919) % 900 END,
            '{}'::jsonb, now() - (($1 - i) * interval '5 seconds'), now() - (($1 - i) * interval '5 seconds')
     FROM generate_series(1, $1) i`,
    [ROUNDS, PLAYERS, symbol],
  );
  await stack.pool.query(
    `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
       transaction_type, amount_minor, currency, status, request_body, request_hash, attempts, created_at, completed_at)
     SELECT r.round_id || ':' || t.type, 'op_bench', r.session_id, r.round_id, 'ext-' || substr(r.player_id, 3),
            r.symbol, t.type, CASE t.type WHEN 'debit' THEN r.bet_minor ELSE r.win_minor END, r.currency,
            CASE WHEN r.status = 'rejected' AND t.type = 'debit' THEN 'failed'
                 WHEN r.status = 'open' AND t.type = 'credit' THEN 'pending'
                 ELSE 'success' END,
            '{}', repeat('a', 64), 1, r.created_at + t.offs, r.created_at + t.offs
     FROM rounds r
     CROSS JOIN (VALUES ('debit', interval '0'), ('credit', interval '1 millisecond')) t(type, offs)
     WHERE r.operator_id = 'op_bench' AND NOT (r.status = 'rejected' AND t.type = 'credit')`,
  );
  // The bulk load wrote every reconciliation row twice (with its round, then its wallet side when
  // the journal rows came): vacuum as autovacuum would after a load, so reads see no dead rows.
  await stack.pool.query('VACUUM ANALYZE round_reconciliation');
  await stack.pool.query('ANALYZE');
  const { rows } = await stack.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM wallet_transactions WHERE operator_id = 'op_bench'`,
  );
  console.log(
    `audit: ${rows[0]!.n} journalled transactions, ${ROUNDS} rounds, ${PLAYERS} players, 3 currencies ` +
      `(generated in ${fmt((performance.now() - t0) / 1000, 1)} s); ${REPEATS} repeats each, medians`,
  );

  async function timed(path: string): Promise<{ ms: number; body: string }> {
    const t = performance.now();
    const res = await fetch(api.origin + path, { headers: signedHeaders(key, 'GET', path) });
    const body = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`);
    return { ms, body };
  }
  let lastMedian = 0;
  async function measure(label: string, path: string | (() => Promise<string>), target: number) {
    const times: number[] = [];
    let last = '';
    for (let i = 0; i < REPEATS; i++) {
      const p = typeof path === 'string' ? path : await path();
      const r = await timed(p);
      times.push(r.ms);
      last = r.body;
    }
    const m = median(times);
    lastMedian = m;
    console.log(
      `  ${label.padEnd(44)} median ${fmt(m, 1).padStart(7)} ms  (min ${fmt(Math.min(...times), 1)}, max ${fmt(Math.max(...times), 1)})  target <= ${target} ms ${m <= target ? 'ok' : 'MISSED'}`,
    );
    return last;
  }

  // The direct path, and the check on round_reconciliation: a recount of every round's two sides
  // from the rounds and the journal itself (what reconciliation computed before those rows were
  // kept). It must find no round whose row differs.
  const recount: number[] = [];
  for (let i = 0; i < Math.min(REPEATS, 3); i++) {
    const t = performance.now();
    const drift = await journalDrift(stack.pool, 'op_bench');
    recount.push(performance.now() - t);
    if (drift.length > 0)
      throw new Error(
        `stored round totals differ from the journal: ${JSON.stringify(drift[0], (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`,
      );
  }
  console.log(
    `  ${'recount from rounds and journal (direct path)'.padEnd(44)} median ${fmt(median(recount), 1).padStart(7)} ms  (no round's reconciliation row differs)`,
  );

  const recon = await measure('reconciliation, all 1M (JSON)', '/api/operator/v1/reconciliation', 2000);
  console.log(
    `    ${fmt(median(recount) / lastMedian, 1)}x faster than the direct recount (SQL alone, no HTTP)`,
  );
  const parsed = JSON.parse(recon).data as { balanced: boolean; currencies: unknown[]; items: unknown[] };
  console.log(
    `    balanced ${parsed.balanced}; ${parsed.currencies.length} currencies; ${parsed.items.length} rounds listed`,
  );
  await measure('reconciliation.csv, all 1M', '/api/operator/v1/reconciliation.csv', 2000);
  const since = new Date(Date.now() - 24 * 3600_000).toISOString();
  await measure('reconciliation, last 24 h', `/api/operator/v1/reconciliation?from=${since}`, 2000);
  await measure('transactions, first page (50)', '/api/operator/v1/transactions', 50);
  await measure('transactions, by player', '/api/operator/v1/transactions?player_id=ext-777', 50);
  await measure('transactions, by session', '/api/operator/v1/transactions?session_id=s_1234', 50);
  await measure('transactions, pending', '/api/operator/v1/transactions?status=pending', 50);
  await measure('transactions, by round', '/api/operator/v1/transactions?round_id=r_250000', 50);
  await measure(
    'transactions, USD credits, 200 per page',
    '/api/operator/v1/transactions?currency=USD&type=credit&limit=200',
    50,
  );
  await measure(
    'transactions, a time window',
    `/api/operator/v1/transactions?from=${since}&to=${new Date(Date.now() - 12 * 3600_000).toISOString()}`,
    50,
  );
  // The 20th page: follow cursors (each page timed; the last reported).
  await measure(
    'transactions, 20th page by cursor',
    async () => {
      let cursor = '';
      for (let i = 0; i < 19; i++) {
        const p = `/api/operator/v1/transactions${cursor ? `?cursor=${cursor}` : ''}`;
        cursor = (JSON.parse((await timed(p)).body) as { data: { next_cursor: string } }).data.next_cursor;
      }
      return `/api/operator/v1/transactions?cursor=${cursor}`;
    },
    50,
  );
  await measure('rounds, first page (50)', '/api/operator/v1/rounds', 50);
  await measure('rounds, by player', '/api/operator/v1/rounds?player_id=ext-777', 50);
  await measure('rounds, open', '/api/operator/v1/rounds?status=open', 50);
  console.log('targets: reconciliation <= 2000 ms, a search page <= 50 ms');

  // What keeping round_reconciliation costs the write path: one round's statements as settlement
  // writes them (the round, then for its debit and its credit: the pending journal row, and the
  // outcome with the round's status in one statement), one connection, one after another, with
  // the reconciliation triggers and, as the baseline, with them disabled. Medians of 3 runs each.
  const WRITE_ROUNDS = Number(process.env.WRITE_ROUNDS ?? 1000);
  const triggers = async (on: boolean) => {
    await stack.pool.query(reconciliationTriggersSql(on));
  };
  const writeRounds = async (tag: string): Promise<number> => {
    const c = await stack.pool.connect();
    try {
      const t = performance.now();
      for (let i = 0; i < WRITE_ROUNDS; i++) {
        const r = `w_${tag}_${i}`;
        await c.query(
          `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                               bet_minor, intent)
           VALUES ($1, 'op_bench', 's_1', 'p_1', $2, 'prov_a', 'USD', 'open', 100, '{}')`,
          [r, symbol],
        );
        for (const [type, amount, status] of [
          ['debit', 100, 'settling'],
          ['credit', 50, 'completed'],
        ] as const) {
          await c.query(
            `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
               transaction_type, amount_minor, currency, request_body, request_hash, attempts)
             VALUES ($1, 'op_bench', 's_1', $2, 'ext-1', $3, $4, $5, 'USD', '{}', repeat('a', 64), 1)
             ON CONFLICT (transaction_id) DO UPDATE SET attempts = wallet_transactions.attempts + 1`,
            [`${r}:${type}`, r, symbol, type, amount],
          );
          await c.query(
            `WITH tx AS (UPDATE wallet_transactions SET status = 'success', completed_at = now()
                         WHERE transaction_id = $1 AND status = 'pending' RETURNING 1),
                  rd AS (UPDATE rounds SET status = $3, win_minor = CASE WHEN $3 = 'completed' THEN 50 ELSE win_minor END,
                                updated_at = now() WHERE round_id = $2 RETURNING 1)
             SELECT (SELECT count(*) FROM tx), (SELECT count(*) FROM rd)`,
            [`${r}:${type}`, r, status],
          );
        }
      }
      return (performance.now() - t) / WRITE_ROUNDS;
    } finally {
      c.release();
    }
  };
  const withT: number[] = [];
  const without: number[] = [];
  try {
    for (let k = 0; k < 3; k++) {
      await triggers(true);
      withT.push(await writeRounds(`on${k}`));
      await triggers(false);
      without.push(await writeRounds(`off${k}`));
    }
  } finally {
    await triggers(true);
  }
  console.log(
    `  write path, one round (5 statements, ${WRITE_ROUNDS} rounds x 3): with the reconciliation triggers ` +
      `${fmt(median(withT), 2)} ms, without ${fmt(median(without), 2)} ms ` +
      `(+${fmt(median(withT) - median(without), 2)} ms per round, ${fmt(median(withT) / median(without), 2)}x)`,
  );
  if (process.env.BENCH_HOLD) {
    // BENCH_HOLD=1: keep the database up for EXPLAIN and experiments until Ctrl-C.
    console.log(`holding: ${stack.databaseUrl} (Ctrl-C to stop)`);
    await new Promise((resolve) => process.once('SIGINT', resolve));
  }
} finally {
  await stack.stop();
}
