/**
 * A tournament's end (issue 25): 10,000 players' scores, the leaderboard frozen and every prize
 * paid, on a real stack: embedded PostgreSQL, the Temporal CLI's dev server, the stack's own
 * standalone worker process(es) (services/worker: runTournament, payPromo and their activities),
 * an API process (its admin PUT defines the tournament and starts the workflow) and the sandbox
 * wallet over HTTP on loopback.
 *
 *   npm run bench -- tournament
 *
 * The scores are seeded in SQL (players, sessions and tournament_scores rows; the scoring trigger
 * has tests of its own): the benchmark is about the end. The definition allows at most 100 ranks
 * per currency (tournament_prizes CHECK, the contract's prizes max(100)) and 20 currencies, so one
 * tournament pays at most 2,000 prizes: the default is 20 currencies of 500 players each, 100 prizes
 * each. TOURNAMENTS=n runs n such tournaments over the same players, ending at the same instant
 * (n × 2,000 prizes).
 *
 * Prints: the freeze (the freezeTournament activity, from the workflow's history), the payouts per
 * second, the time from the end to the last prize paid and to the tournament's `paid`, CPU per
 * payout by process, the workflow counts (Temporal's visibility) and the runTournament history,
 * then checks that every prize was paid exactly once: one journal row (success, its amount), one
 * wallet transaction (success, its amount) and each wallet balance equal to its prizes.
 *
 * Knobs: PLAYERS (10000), CURRENCIES (1 to 20, default 20), RANKS (1 to 100, default 100),
 * TOURNAMENTS (1), WORKER_PROCESSES (1), LEAD_SECONDS (the end this long after the definition,
 * default 20: the seeding must be done by then), TIMEOUT_SECONDS (600).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findOrBuildTemporalCli, freePort, startTemporalDevServer, waitForPort } from '@opi/devstack';
import { createWalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { migrateWallet } from '@opi/wallet-sandbox/migrate';
import { buildWorkflowBundle } from '@opi/workflows';
import { Client, Connection } from '@temporalio/client';
import { cpuPerUnit, cpuSnapshot } from './lib/cpu.js';
import { spawnService as spawnBenchService, tearDown } from './lib/processes.js';
import { admin, startBenchStack } from './lib/stack.js';
import { fmt } from './lib/stats.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PLAYERS = env('PLAYERS', 10_000);
const CURRENCY_COUNT = env('CURRENCIES', 20);
const RANKS = env('RANKS', 100);
const TOURNAMENTS = env('TOURNAMENTS', 1);
const WORKERS = env('WORKER_PROCESSES', 1);
const LEAD_MS = env('LEAD_SECONDS', 20) * 1000;
const TIMEOUT_MS = env('TIMEOUT_SECONDS', 600) * 1000;

/** Twenty ISO 4217 currencies of two decimals (a tournament runs in at most 20). */
const ALL_CURRENCIES = [
  'EUR',
  'USD',
  'GBP',
  'CHF',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'CZK',
  'HUF',
  'CAD',
  'AUD',
  'NZD',
  'BRL',
  'MXN',
  'ZAR',
  'TRY',
  'INR',
  'SGD',
  'HKD',
];
if (CURRENCY_COUNT < 1 || CURRENCY_COUNT > 20)
  throw new Error('CURRENCIES: 1 to 20 (the definition allows 20)');
if (RANKS < 1 || RANKS > 100) throw new Error('RANKS: 1 to 100 (tournament_prizes CHECK)');
const CURRENCIES = ALL_CURRENCIES.slice(0, CURRENCY_COUNT);
/** Rank r's prize in minor units (never increasing with rank, as the definition requires). */
const prizeOf = (rank: number) => 100_000 - 500 * (rank - 1);

const OPERATOR = 'op_tbench';
const WALLET_SECRET = 'wsec_tournament_bench_0123456789abcdef';
const WALLET_ADMIN_TOKEN = 'tournament-bench-wallet-admin-token';
/** The wallet opens an unknown player's account with this (a credit of a prize then adds to it). */
const OPENING_MINOR = 0;

const log = (line: string) => console.log(line);
const t0 = Date.now();
const stack = await startBenchStack();
const tmp = await mkdtemp(path.join(os.tmpdir(), 'opi-bench-tournament-'));
const children: ChildProcess[] = [];
let stopTemporal: (() => Promise<void>) | undefined;
let connection: Connection | undefined;
const spawnService = (entry: string, extra: Record<string, string>) =>
  spawnBenchService({ entry, stackEnv: stack.env, env: extra, children });

try {
  await migrateWallet(stack.databaseUrl);
  const cli = await findOrBuildTemporalCli({
    ...(process.env.TEMPORAL_CLI_PATH ? { explicitPath: process.env.TEMPORAL_CLI_PATH } : {}),
  });
  const temporal = await startTemporalDevServer({
    cliPath: cli,
    port: await freePort(),
    headless: true,
    dbFile: path.join(tmp, 'temporal.db'),
  });
  stopTemporal = () => temporal.stop();
  await buildWorkflowBundle();
  const taskQueue = `tournament-bench-${randomUUID().slice(0, 8)}`;

  const walletPort = await freePort();
  spawnService('services/wallet-sandbox/src/main.ts', {
    WALLET_PORT: String(walletPort),
    WALLET_ADMIN_TOKEN,
    WALLET_AUTO_CREATE_PLAYERS_MINOR: String(OPENING_MINOR),
  });
  await waitForPort('127.0.0.1', walletPort, 30_000);
  const walletBase = `http://127.0.0.1:${walletPort}`;
  await createWalletAdminClient({ baseUrl: walletBase, token: WALLET_ADMIN_TOKEN }).setSecret(
    OPERATOR,
    WALLET_SECRET,
  );
  // Development mode: the sandbox wallet is plain HTTP on loopback (production requires HTTPS).
  const serviceEnv = {
    NODE_ENV: 'development',
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
  };
  for (let i = 0; i < WORKERS; i++) spawnService('services/worker/src/main.ts', serviceEnv);
  const api = await stack.startApi({ ...serviceEnv, SIGNED_REQUESTS: 'required' });
  connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection });

  await admin(api.origin, 'POST', '/api/admin/v1/operators', {
    operator_id: OPERATOR,
    name: 'Tournament bench',
    default_currency: 'EUR',
    wallet_base_url: `${walletBase}/wallet`,
    wallet_secret: WALLET_SECRET,
  });
  const symbol = (
    await stack.pool.query<{ symbol: string }>(
      `SELECT g.symbol FROM games g WHERE g.provider_id = 'prov_a' AND EXISTS (
         SELECT 1 FROM release_registry r WHERE r.symbol = g.symbol AND r.status = 'accepted'
           AND r.registry_version = g.installed_version) ORDER BY g.symbol LIMIT 1`,
    )
  ).rows[0]!.symbol;

  // The tournaments: started a minute ago, ending LEAD_SECONDS from now, the prize table full.
  const ids = Array.from({ length: TOURNAMENTS }, (_, i) => `tbench-${i + 1}`);
  const startsAt = new Date(Date.now() - 60_000).toISOString();
  const endsAtMs = Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000;
  const endsAt = new Date(endsAtMs).toISOString();
  const prizes = Array.from({ length: RANKS }, (_, i) => prizeOf(i + 1));
  for (const id of ids) {
    await admin(api.origin, 'PUT', `/api/admin/v1/tournaments/${id}`, {
      name: `Bench ${id}`,
      scoring: 'total_win',
      starts_at: startsAt,
      ends_at: endsAt,
      titles: [symbol],
      currencies: Object.fromEntries(CURRENCIES.map((c) => [c, { min_stake_minor: 100, prizes }])),
    });
    await admin(api.origin, 'PUT', `/api/admin/v1/tournaments/${id}/operators/${OPERATOR}`, {
      enabled: true,
    });
  }

  // The players, a session each (a payout's credit names the player's last session), and their
  // scores: player i plays in currency i mod 20; scores with ties (the tie-break orders them).
  const seed0 = performance.now();
  await stack.pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope)
     SELECT 'tp_' || i, $1, 'tplayer-' || i, 'global' FROM generate_series(1, $2::int) i`,
    [OPERATOR, PLAYERS],
  );
  await stack.pool.query(
    `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency, status)
     SELECT 'ts_' || i, $1, 'tp_' || i, $3, 'prov_a', ($4::text[])[(i - 1) % $5 + 1], 'closed'
       FROM generate_series(1, $2::int) i`,
    [OPERATOR, PLAYERS, symbol, CURRENCIES, CURRENCIES.length],
  );
  for (const id of ids)
    await stack.pool.query(
      `INSERT INTO tournament_scores (tournament_id, currency, operator_id, external_player_id, player_id, scoring,
                                      score, score_reached_at, best_round_id, last_round_id, last_session_id,
                                      last_game_symbol, rounds_counted)
       SELECT $1, ($4::text[])[(i - 1) % $5 + 1], $2, 'tplayer-' || i, 'tp_' || i, 'total_win',
              1 + (i * 7919) % 4999, now() - make_interval(secs => (i * 31) % 3600), 'r_seed_' || i, 'r_seed_' || i,
              'ts_' || i, $6, 1 + i % 7
         FROM generate_series(1, $3::int) i`,
      [id, OPERATOR, PLAYERS, CURRENCIES, CURRENCIES.length, symbol],
    );
  const seedMs = performance.now() - seed0;
  const leftMs = endsAtMs - Date.now();
  if (leftMs < 1000) throw new Error(`the seeding ended ${-leftMs} ms before the end: raise LEAD_SECONDS`);
  const perTournament = CURRENCIES.reduce(
    (n, _c, k) =>
      n +
      Math.min(RANKS, Math.floor(PLAYERS / CURRENCIES.length) + (k < PLAYERS % CURRENCIES.length ? 1 : 0)),
    0,
  );
  const expected = perTournament * TOURNAMENTS;
  log(
    `tournament end on the Temporal CLI dev server: ${TOURNAMENTS} tournament${TOURNAMENTS > 1 ? 's' : ''} of ${PLAYERS} players ` +
      `(${CURRENCIES.length} currencies, ${RANKS} prize ranks each: ${perTournament} prizes per tournament, ${expected} in all), ` +
      `${WORKERS} standalone worker${WORKERS > 1 ? 's' : ''}, the sandbox wallet over HTTP; scores seeded in ${fmt(seedMs, 0)} ms, ` +
      `the end in ${fmt(leftMs / 1000, 1)} s (stack up in ${fmt((Date.now() - t0) / 1000, 0)} s)`,
  );

  // Wait for the end, then for every tournament's `paid`, printing the progress.
  await new Promise((r) => setTimeout(r, Math.max(0, endsAtMs - Date.now() - 200)));
  const cpu0 = cpuSnapshot();
  const deadline = endsAtMs + TIMEOUT_MS;
  let lastPrint = 0;
  for (;;) {
    const { rows } = await stack.pool.query<{ paid: number; pending: number; done: number }>(
      `SELECT count(*) FILTER (WHERE status = 'paid')::int AS paid, count(*) FILTER (WHERE status = 'pending')::int AS pending,
              (SELECT count(*)::int FROM tournaments WHERE tournament_id = ANY($1) AND status = 'paid') AS done
         FROM promo_payouts WHERE promo_type = 'tournament' AND promo_id = ANY($1)`,
      [ids],
    );
    const r = rows[0]!;
    if (r.done === ids.length) break;
    if (Date.now() > deadline) throw new Error(`not paid within TIMEOUT_SECONDS: ${JSON.stringify(r)}`);
    if (Date.now() - lastPrint >= 5000) {
      lastPrint = Date.now();
      log(`  +${fmt((Date.now() - endsAtMs) / 1000, 1)} s: ${r.paid} paid, ${r.pending} pending`);
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  const cpu = cpuPerUnit(cpu0, cpuSnapshot(), expected);

  // The figures, from the database's timestamps and the workflows' histories.
  const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    t ? Number(String(t.seconds ?? 0)) * 1000 + (t.nanos ?? 0) / 1e6 : Number.NaN;
  log('');
  log('per tournament (times from its end, ends_at):');
  for (const id of ids) {
    const { rows } = await stack.pool.query<{
      frozen: number;
      paid: number;
      first_paid: number;
      last_paid: number;
      payouts: number;
      standings: number;
    }>(
      `SELECT (extract(epoch FROM t.frozen_at - t.ends_at) * 1000)::float8 AS frozen, (extract(epoch FROM t.paid_at - t.ends_at) * 1000)::float8 AS paid,
              (extract(epoch FROM min(p.paid_at) - t.ends_at) * 1000)::float8 AS first_paid,
              (extract(epoch FROM max(p.paid_at) - t.ends_at) * 1000)::float8 AS last_paid, count(p.*)::int AS payouts,
              (SELECT count(*)::int FROM tournament_standings s WHERE s.tournament_id = t.tournament_id) AS standings
         FROM tournaments t LEFT JOIN promo_payouts p ON p.promo_type = 'tournament' AND p.promo_id = t.tournament_id
        WHERE t.tournament_id = $1 GROUP BY t.tournament_id, t.frozen_at, t.ends_at, t.paid_at`,
      [id],
    );
    const r = rows[0]!;
    // The freeze activity and the children, from runTournament's history.
    const history = await client.workflow.getHandle(`tournament-${id}`).fetchHistory();
    const events = history.events ?? [];
    const scheduled = new Map<string, string>();
    let freeze = { scheduled: Number.NaN, started: Number.NaN, completed: Number.NaN };
    let childStarts = 0;
    let childDone = 0;
    let workflowTasks = 0;
    let lastChildStartInitiated = Number.NaN;
    for (const e of events) {
      const at = ms(e.eventTime as never);
      if (e.activityTaskScheduledEventAttributes) {
        scheduled.set(String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? '');
        if (e.activityTaskScheduledEventAttributes.activityType?.name === 'freezeTournament')
          freeze = { scheduled: at, started: Number.NaN, completed: Number.NaN };
      }
      const startedOf = e.activityTaskStartedEventAttributes?.scheduledEventId;
      if (startedOf != null && scheduled.get(String(startedOf)) === 'freezeTournament') freeze.started = at;
      const completedOf = e.activityTaskCompletedEventAttributes?.scheduledEventId;
      if (completedOf != null && scheduled.get(String(completedOf)) === 'freezeTournament')
        freeze.completed = at;
      if (e.startChildWorkflowExecutionInitiatedEventAttributes) lastChildStartInitiated = at;
      if (e.childWorkflowExecutionStartedEventAttributes) childStarts++;
      if (e.childWorkflowExecutionCompletedEventAttributes) childDone++;
      if (e.workflowTaskCompletedEventAttributes) workflowTasks++;
    }
    const spanS = (r.last_paid - r.frozen) / 1000;
    log(
      `  ${id}: ${r.standings} standings, ${r.payouts} payouts; freeze activity scheduled +${fmt(freeze.scheduled - endsAtMs, 0)} ms, ` +
        `ran ${fmt(freeze.completed - freeze.started, 0)} ms (scheduled to completed ${fmt(freeze.completed - freeze.scheduled, 0)} ms), ` +
        `frozen_at +${fmt(r.frozen, 0)} ms; children: last start command +${fmt(lastChildStartInitiated - endsAtMs, 0)} ms, ` +
        `${childStarts} started, ${childDone} completed; first prize paid +${fmt(r.first_paid, 0)} ms, last +${fmt(r.last_paid, 0)} ms ` +
        `(${fmt(r.payouts / spanS, 0)} payouts/s from the freeze); tournament paid +${fmt(r.paid, 0)} ms; ` +
        `runTournament history ${events.length} events, ${workflowTasks} workflow tasks`,
    );
  }
  const { rows: all } = await stack.pool.query<{
    first_paid: number;
    last_paid: number;
    paid: number;
    frozen: number;
  }>(
    `SELECT extract(epoch FROM min(p.paid_at)) * 1000 - $2::float8 AS first_paid,
            extract(epoch FROM max(p.paid_at)) * 1000 - $2::float8 AS last_paid,
            (SELECT extract(epoch FROM max(paid_at)) * 1000 - $2::float8 FROM tournaments WHERE tournament_id = ANY($1)) AS paid,
            (SELECT extract(epoch FROM min(frozen_at)) * 1000 - $2::float8 FROM tournaments WHERE tournament_id = ANY($1)) AS frozen
       FROM promo_payouts p WHERE p.promo_type = 'tournament' AND p.promo_id = ANY($1)`,
    [ids, endsAtMs],
  );
  const a = all[0]!;
  // Temporal's visibility: the workflows of the run, by type and status.
  const count = async (q: string) => (await client.workflow.count(q)).count;
  const payPromoCompleted = await count(`WorkflowType = 'payPromo' AND ExecutionStatus = 'Completed'`);
  const payPromoAll = await count(`WorkflowType = 'payPromo'`);
  const runTournamentCompleted = await count(
    `WorkflowType = 'runTournament' AND ExecutionStatus = 'Completed'`,
  );
  const everything = await count('');

  // Exactly once: the journal and the wallet, payout by payout.
  const { rows: checks } = await stack.pool.query<{
    payouts: number;
    paid: number;
    journal_rows: number;
    journal_ok: number;
    journal_attempts: number;
    journal_other: number;
    wallet_rows: number;
    wallet_ok: number;
    wallet_other: number;
    balances_ok: number;
    accounts: number;
    prize_table_ok: number;
  }>(
    `WITH p AS (
       SELECT payout_id, payout_id || ':credit' AS tx, operator_id, external_player_id, trim(currency) AS currency,
              amount_minor, rank, status FROM promo_payouts WHERE promo_type = 'tournament' AND promo_id = ANY($1)
     ), j AS (
       SELECT p.payout_id, count(w.*) AS n,
              count(*) FILTER (WHERE w.status = 'success' AND w.amount_minor = p.amount_minor
                                 AND w.transaction_type = 'credit' AND w.round_id = p.payout_id) AS ok,
              coalesce(sum(w.attempts), 0) AS attempts
         FROM p LEFT JOIN wallet_transactions w ON w.transaction_id = p.tx GROUP BY p.payout_id
     ), wt AS (
       SELECT p.payout_id, count(x.*) AS n,
              count(*) FILTER (WHERE x.status = 'success' AND x.amount_minor = p.amount_minor
                                 AND x.player_delta_minor = p.amount_minor AND x.transaction_type = 'credit') AS ok
         FROM p LEFT JOIN wallet.transactions x ON x.operator_id = p.operator_id AND x.transaction_id = p.tx
        GROUP BY p.payout_id
     ), owed AS (
       SELECT operator_id, external_player_id, currency, sum(amount_minor) AS owed FROM p GROUP BY 1, 2, 3
     )
     SELECT (SELECT count(*)::int FROM p) AS payouts,
            (SELECT count(*)::int FROM p WHERE status = 'paid') AS paid,
            (SELECT count(*)::int FROM j WHERE n = 1) AS journal_rows,
            (SELECT count(*)::int FROM j WHERE ok = 1) AS journal_ok,
            (SELECT coalesce(sum(attempts), 0)::int FROM j) AS journal_attempts,
            (SELECT count(*)::int FROM wallet_transactions w WHERE NOT EXISTS (SELECT 1 FROM p WHERE p.tx = w.transaction_id)) AS journal_other,
            (SELECT count(*)::int FROM wt WHERE n = 1) AS wallet_rows,
            (SELECT count(*)::int FROM wt WHERE ok = 1) AS wallet_ok,
            (SELECT count(*)::int FROM wallet.transactions x WHERE NOT EXISTS (SELECT 1 FROM p WHERE p.tx = x.transaction_id)) AS wallet_other,
            (SELECT count(*)::int FROM owed o JOIN wallet.accounts acc ON acc.kind = 'player' AND acc.operator_id = o.operator_id
                AND acc.player_id = o.external_player_id AND acc.currency = o.currency
              WHERE acc.balance_minor = $2::bigint + o.owed) AS balances_ok,
            (SELECT count(*)::int FROM owed) AS accounts,
            (SELECT count(*)::int FROM p WHERE p.amount_minor = 100000 - 500 * (p.rank - 1) AND p.rank BETWEEN 1 AND $3) AS prize_table_ok`,
    [ids, OPENING_MINOR, RANKS],
  );
  const c = checks[0]!;
  const exactlyOnce =
    c.payouts === expected &&
    c.paid === expected &&
    c.journal_rows === expected &&
    c.journal_ok === expected &&
    c.journal_other === 0 &&
    c.wallet_rows === expected &&
    c.wallet_ok === expected &&
    c.wallet_other === 0 &&
    c.balances_ok === c.accounts &&
    c.prize_table_ok === expected &&
    payPromoCompleted === expected &&
    payPromoAll === expected;

  const payoutSpan = (a.last_paid - a.frozen) / 1000;
  log('');
  log(
    `all: ${c.payouts} prizes; the first freeze +${fmt(a.frozen, 0)} ms after the end; first prize paid +${fmt(a.first_paid, 0)} ms, ` +
      `last +${fmt(a.last_paid, 0)} ms; ${fmt(c.payouts / payoutSpan, 1)} payouts/s (freeze to last prize), ` +
      `${fmt(c.payouts / ((a.last_paid - a.first_paid) / 1000), 1)} payouts/s (first to last prize); every tournament paid +${fmt(a.paid, 0)} ms`,
  );
  log(
    `CPU ms per payout by process (the end to the last tournament paid): ${cpu.map(([l, v]) => `${l} ${fmt(v, 2)}`).join(', ')}; ` +
      `total ${fmt(
        cpu.reduce((s, [, v]) => s + v, 0),
        2,
      )}`,
  );
  log(
    `workflows (Temporal visibility): payPromo ${payPromoCompleted} completed of ${payPromoAll}; runTournament ${runTournamentCompleted} ` +
      `completed of ${TOURNAMENTS}; ${everything} workflows in all`,
  );
  log(
    `exactly once: payouts ${c.payouts}/${expected} (paid ${c.paid}); prize table ${c.prize_table_ok}/${expected}; journal: ${c.journal_rows} ` +
      `with one row, ${c.journal_ok} of them a success of the amount, ${c.journal_attempts} attempts, ${c.journal_other} other rows; ` +
      `wallet: ${c.wallet_rows} with one transaction, ${c.wallet_ok} a success of the amount, ${c.wallet_other} other transactions; ` +
      `balances equal to the prizes ${c.balances_ok}/${c.accounts}`,
  );
  log(`every prize paid exactly once (journal and wallet): ${exactlyOnce}`);
  if (!exactlyOnce) process.exitCode = 1;
} finally {
  await tearDown({ connections: [connection], children, stopTemporal, stack, tmp });
}
