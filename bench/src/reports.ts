/**
 * Issue 38 point 6: the reports, an invoice and the reconciliation diff over generated rounds,
 * through one API process in production mode (signed requests). ROUNDS rounds over the last DAYS
 * days, across PLAYERS players, four titles of two provider families and two currencies, each a
 * debit and a credit (a few refused, a few rolled back), generated set-based in PostgreSQL with
 * the triggers off (session_replication_role = replica), then the rows the triggers keep built
 * set-based as a bulk load is (rebuildRoundReconciliation: each round's reconciliation and report
 * figures, then the reports' rollup, migration 1700000000041). Medians of REPEATS.
 *
 *   npm run bench -- reports      (ROUNDS=300000 DAYS=30 PLAYERS=2000 REPEATS=3 by default)
 *
 * What keeping the figures current adds to a spin is the settlement benchmark's to say (its
 * overhead line, before and after migration 41): see docs/reports-and-invoices.md.
 * SKIP_RECOUNT=1 leaves out the JavaScript recount (it holds every journal row in memory).
 */
import { reportDrift } from '@opi/api';
import { rebuildRoundReconciliation } from '@opi/db';
import { createOperatorClient, findLedgerDifferences, type LedgerRow } from '@opi/operator-sdk';
import { admin, benchApiKey, createBenchOperator, signedHeaders, startBenchStack } from './lib/stack.js';
import { fmt, median } from './lib/stats.js';

// The bench stack passes its environment to the API, which needs a replay-link secret in production.
process.env.REPLAY_LINK_SECRET ??= 'bench-replay-link-secret-0123456789abcdef';
const ROUNDS = Number(process.env.ROUNDS ?? 300_000);
const DAYS = Number(process.env.DAYS ?? 30);
const PLAYERS = Number(process.env.PLAYERS ?? 2000);
const REPEATS = Number(process.env.REPEATS ?? 3);

const stack = await startBenchStack();
try {
  const api = await stack.startApi();
  await createBenchOperator(api.origin, { default_currency: 'EUR', allowed_currencies: ['EUR', 'USD'] });
  const key = await benchApiKey(api.origin);
  const titles = (
    await stack.pool.query<{ symbol: string; provider_id: string }>(
      `(SELECT symbol, provider_id FROM games WHERE provider_id = 'prov_a' ORDER BY symbol LIMIT 2)
       UNION ALL (SELECT symbol, provider_id FROM games WHERE provider_id = 'prov_b' ORDER BY symbol LIMIT 2)`,
    )
  ).rows;

  const t0 = performance.now();
  const c = await stack.pool.connect();
  try {
    await c.query(`SET session_replication_role = replica`);
    await c.query(
      `INSERT INTO players (player_id, operator_id, external_player_id, scope)
       SELECT 'p_' || i, 'op_bench', 'ext-' || i, 'global' FROM generate_series(1, $1) i`,
      [PLAYERS],
    );
    await c.query(
      `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency, jurisdiction)
       SELECT 's_' || i, 'op_bench', 'p_' || i, ($2::text[])[1 + i % 4], ($3::text[])[1 + i % 4],
              (ARRAY['EUR','USD'])[1 + i % 2], CASE WHEN i % 5 = 0 THEN 'GB' END
       FROM generate_series(1, $1) i`,
      [PLAYERS, titles.map((t) => t.symbol), titles.map((t) => t.provider_id)],
    );
    // Rounds over the last DAYS days; every 997th refused, every 1009th rolled back.
    await c.query(
      `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                           bet_minor, win_minor, intent, created_at, settled_at)
       SELECT 'r_' || i, 'op_bench', s.session_id, s.player_id, s.symbol, s.provider_id, s.currency,
              CASE WHEN i % 997 = 0 THEN 'rejected' WHEN i % 1009 = 0 THEN 'rolled_back' ELSE 'completed' END,
              100 + i % 400, CASE WHEN i % 997 = 0 OR i % 1009 = 0 THEN 0 ELSE (i::bigint * 7919) % 900 END,
              '{}'::jsonb, now() - ($1 - i) * ($3::float8 * 86400 / $1) * interval '1 second',
              now() - ($1 - i) * ($3::float8 * 86400 / $1) * interval '1 second'
       FROM generate_series(1, $1) i JOIN sessions s ON s.session_id = 's_' || (1 + i % $2)`,
      [ROUNDS, PLAYERS, DAYS],
    );
    await c.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, status, request_body, request_hash, attempts, created_at, completed_at,
         original_transaction_id)
       SELECT r.round_id || ':' || t.type, 'op_bench', r.session_id, r.round_id, 'ext-' || substr(r.player_id, 3),
              r.symbol, t.type, CASE t.type WHEN 'credit' THEN r.win_minor ELSE r.bet_minor END, r.currency,
              CASE WHEN r.status = 'rejected' THEN 'failed' ELSE 'success' END,
              '{}', repeat('a', 64), 1, r.created_at + t.offs, r.created_at + t.offs,
              CASE WHEN t.type = 'rollback' THEN r.round_id || ':debit' END
       FROM rounds r
       CROSS JOIN (VALUES ('debit', interval '0'), ('credit', interval '1 millisecond'),
                          ('rollback', interval '2 milliseconds')) t(type, offs)
       WHERE r.operator_id = 'op_bench'
         AND (t.type = 'debit' OR (t.type = 'credit' AND r.status = 'completed')
              OR (t.type = 'rollback' AND r.status = 'rolled_back'))`,
    );
  } finally {
    await c.query(`RESET session_replication_role`).catch(() => {});
    c.release();
  }
  const generated = performance.now() - t0;
  const tr0 = performance.now();
  await rebuildRoundReconciliation(stack.pool);
  const rolledUp = performance.now() - tr0;
  await stack.pool.query('ANALYZE');
  const sizes = (
    await stack.pool.query<{ daily: string; players: string; bytes: string }>(
      `SELECT (SELECT count(*) FROM report_daily) AS daily, (SELECT count(*) FROM report_daily_players) AS players,
              pg_total_relation_size('report_daily') + pg_total_relation_size('report_daily_players') AS bytes`,
    )
  ).rows[0]!;
  const n = (
    await stack.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM wallet_transactions WHERE operator_id = 'op_bench'`,
    )
  ).rows[0]!.n;
  console.log(
    `reports: ${ROUNDS} rounds, ${n} journal rows over ${DAYS} days, ${PLAYERS} players, 4 titles, 2 currencies ` +
      `(generated in ${fmt(generated / 1000, 1)} s); medians of ${REPEATS}`,
  );
  console.log(
    `  rollup built set-based in ${fmt(rolledUp / 1000, 1)} s (${fmt((rolledUp * 1000) / ROUNDS, 1)} µs per round; ` +
      `reconciliation and report figures of every round, then the daily sums): ${sizes.daily} daily rows, ` +
      `${sizes.players} player-day rows, ${fmt(Number(sizes.bytes) / 1048576, 1)} MiB`,
  );

  async function timed(method: string, path: string, body?: unknown): Promise<{ ms: number; text: string }> {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const t = performance.now();
    const res = await fetch(api.origin + path, {
      method,
      headers: {
        ...signedHeaders(key, method, path, raw),
        ...(raw ? { 'content-type': 'application/json' } : {}),
      },
      ...(raw ? { body: raw } : {}),
    });
    const text = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 300)}`);
    return { ms, text };
  }
  const perRow = (ms: number, rows: number) => `${fmt((ms * 1000) / rows, 2)} µs per round`;
  async function measure(label: string, path: string, rows: number, target?: number) {
    const times: number[] = [];
    for (let i = 0; i < REPEATS; i++) times.push((await timed('GET', path)).ms);
    const m = median(times);
    console.log(
      `  ${label.padEnd(46)} median ${fmt(m, 1).padStart(8)} ms  (${perRow(m, rows)})` +
        (target ? `  target <= ${target} ms ${m <= target ? 'ok' : 'MISSED'}` : ''),
    );
    return m;
  }
  const day = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
  const from = day(DAYS - 1);
  const to = day(0);
  const month = `from=${from}&to=${to}`;
  await measure(
    `daily report, ${DAYS} days (day × title × currency)`,
    `/api/operator/v1/reports/revenue?${month}`,
    ROUNDS,
    100,
  );
  await measure(`by title, ${DAYS} days`, `/api/operator/v1/reports/revenue?${month}&group_by=title`, ROUNDS);
  await measure(
    `by currency, ${DAYS} days (CSV)`,
    `/api/operator/v1/reports/revenue.csv?${month}&group_by=currency`,
    ROUNDS,
  );
  await measure(
    'one day',
    `/api/operator/v1/reports/revenue?from=${day(1)}&to=${day(1)}`,
    Math.round(ROUNDS / DAYS),
  );

  // A month-to-date invoice preview, billed in EUR (USD converted).
  await admin(api.origin, 'PUT', '/api/admin/v1/operators/op_bench/billing-contract', {
    billing_currency: 'EUR',
    minimum_fee_minor: 0,
    tiers: [{ from_ggr_minor: 0, rate_ppm: 150_000 }],
  });
  await admin(api.origin, 'POST', '/api/admin/v1/exchange-rates', {
    rates: [{ base_currency: 'USD', quote_currency: 'EUR', rate_date: to, rate: '0.9241', source: 'ECB' }],
  });
  const inv: number[] = [];
  let monthRounds = 0;
  for (let i = 0; i < REPEATS; i++) {
    const t = performance.now();
    const r = await admin(api.origin, 'POST', '/api/admin/v1/invoices', {
      operator_id: 'op_bench',
      period: to.slice(0, 7),
      preview: true,
    });
    inv.push(performance.now() - t);
    monthRounds = (r.data.lines as { round_set_size: number }[]).reduce((s, l) => s + l.round_set_size, 0);
  }
  console.log(
    `  ${'invoice preview, the month to date'.padEnd(46)} median ${fmt(median(inv), 1).padStart(8)} ms  (${monthRounds} rounds; ${perRow(median(inv), Math.max(1, monthRounds))})  target <= 1000 ms ${median(inv) <= 1000 ? 'ok' : 'MISSED'}`,
  );

  // The diff: the operator's ledger is the journal's applied rows (booked 40 ms later) less one
  // credit; the SDK walks to it.
  const { rows: journal } = await stack.pool.query<LedgerRow & { created_at: Date }>(
    `SELECT transaction_id, transaction_type, amount_minor, trim(currency) AS currency, game_symbol, created_at
       FROM wallet_transactions WHERE operator_id = 'op_bench' AND status = 'success'`,
  );
  // A credit from the middle of the period.
  const mid = Date.now() - (DAYS / 2) * 86_400_000;
  const lost = journal.find(
    (r) => r.transaction_type === 'credit' && Math.abs(r.created_at.getTime() - mid) < 3_600_000,
  )!;
  const ledger = journal
    .filter((r) => r.transaction_id !== lost.transaction_id)
    .map((r) => ({ ...r, booked_at: new Date(r.created_at.getTime() + 40) }));
  // Each request reads the scope's journal rows (a month of them at level day): past the SDK's
  // default 10 s timeout on a loaded machine, so a minute.
  const client = createOperatorClient({ baseUrl: api.origin, apiKey: key, timeoutMs: 60_000 });
  const td = performance.now();
  const diff = await findLedgerDifferences(client, ledger, { from, to });
  const diffMs = performance.now() - td;
  const found = diff.onlyOurs.map((t) => t.transaction_id);
  console.log(
    `  ${'diff: one missing transaction among all'.padEnd(46)} ${diff.calls} calls (${diff.steps
      .slice(0, 8)
      .map((s) => s.level)
      .join(' → ')}${diff.steps.length > 8 ? ' → …' : ''}), ` +
      `${fmt(diffMs, 0)} ms with the SDK's hashing of ${ledger.length} rows; found ${found.join(', ')}` +
      `  target <= 6 calls ${diff.calls <= 6 && found.length === 1 && found[0] === lost.transaction_id ? 'ok' : 'MISSED'}`,
  );

  if (process.env.SKIP_RECOUNT !== '1') {
    const tr = performance.now();
    const drift = await reportDrift(stack.pool, 'op_bench');
    console.log(
      `  ${'recount of every figure from the journal'.padEnd(46)} ${fmt(performance.now() - tr, 0).padStart(8)} ms  (${drift.length} differences)`,
    );
    if (drift.length)
      throw new Error(`figures differ from the journal: ${JSON.stringify(drift.slice(0, 3))}`);
  }
  console.log(
    '  spin overhead of keeping the figures current: npm run bench -- report-rollup-cost (COMPARE=41: the round sets alone) and the settlement benchmark (docs/reports-and-invoices.md)',
  );
} finally {
  await stack.stop();
}
