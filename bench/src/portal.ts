/**
 * The staff portal's server time per page over 100,000 rounds: the production build (`next
 * build`, as `npm start` runs it) served by `next start`, reading through one API process in
 * production mode. The data is generated set-based in PostgreSQL: ROUNDS rounds over 30 days across
 * PLAYERS players, SESSIONS sessions, three currencies and five titles, each with a debit and a
 * credit (some rejected, some open, a few stuck, a few that differ in reconciliation), and Mines
 * rounds with four stages each. Each page is requested once to warm up, then REPEATS times with
 * the staff session cookie; the figure is the median time to the whole HTML.
 *
 *   npm run bench -- portal       (ROUNDS=100000 PLAYERS=2000 SESSIONS=5000 REPEATS=7 by default)
 */
import { spawn } from 'node:child_process';
import { ensurePortalBuild, freePort, portalStartCommand, waitForPort } from '@opi/devstack';
import { admin, startBenchStack } from './lib/stack.js';
import { fmt, median } from './lib/stats.js';

const ROUNDS = Number(process.env.ROUNDS ?? 100_000);
const PLAYERS = Number(process.env.PLAYERS ?? 2000);
const SESSIONS = Number(process.env.SESSIONS ?? 5000);
const REPEATS = Number(process.env.REPEATS ?? 7);
const TARGET_MS = 300;
const PORTAL_SECRET = 'bench-portal-secret-0123456789abcdefghij';
const OP = 'op_bench';
const SYMBOLS = ['vs20emberfox', 'vs25tidalpearl', 'vs10glacierrun', 'vs40jadelantern', 'cnmines'];
const PROVIDERS = ['prov_a', 'prov_a', 'prov_a', 'prov_a', 'prov_c'];

await ensurePortalBuild((line) => console.log(`portal: ${line}`));
const stack = await startBenchStack();
let portal: ReturnType<typeof spawn> | undefined;
try {
  const api = await stack.startApi({ STAFF_PORTAL_SECRET: PORTAL_SECRET });
  await admin(api.origin, 'POST', '/api/admin/v1/operators', {
    operator_id: OP,
    name: 'Bench Casino',
    default_currency: 'EUR',
    allowed_currencies: ['EUR', 'USD', 'GBP'],
    wallet_base_url: 'https://wallet.bench.test/wallet',
  });
  for (const symbol of [...SYMBOLS, 'cnhilo']) {
    await admin(api.origin, 'PUT', `/api/admin/v1/operators/${OP}/games/${symbol}`, { enabled: true });
  }
  const password = 'bench-staff-password-1';
  await admin(api.origin, 'POST', '/api/admin/v1/staff', {
    username: 'bench',
    password,
    roles: [{ operator_id: OP, role: 'admin' }],
  });

  const t0 = performance.now();
  const q = (sql: string, params: unknown[] = []) => stack.pool.query(sql, params);
  await q(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope)
     SELECT 'p_' || i, $2, 'ext-' || i, 'global' FROM generate_series(1, $1) i`,
    [PLAYERS, OP],
  );
  // Session k: player 1 + k % PLAYERS, the player's currency, title k % 5.
  await q(
    `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency, status, device,
                           created_at, last_activity_at)
     SELECT 's_' || k, $3, 'p_' || (1 + k % $2), ($4::text[])[1 + k % 5], ($5::text[])[1 + k % 5],
            (ARRAY['EUR','USD','GBP'])[1 + (1 + k % $2) % 3],
            CASE WHEN k % 7 = 0 THEN 'active' ELSE 'closed' END, CASE WHEN k % 3 = 0 THEN 'mobile' ELSE 'desktop' END,
            now() - interval '30 days' + k * interval '30 days' / $1, now() - interval '30 days' + k * interval '30 days' / $1
     FROM generate_series(1, $1) k`,
    [SESSIONS, PLAYERS, OP, SYMBOLS, PROVIDERS],
  );
  // Round i belongs to session 1 + i % SESSIONS; every 997th is rejected, every 5003rd open, every
  // 24989th open and stuck.
  await q(
    `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status, stuck,
                         bet_minor, win_minor, intent, created_at, settled_at)
     SELECT 'r_' || i, $3, s.session_id, s.player_id, s.symbol, s.provider_id, s.currency,
            CASE WHEN i % 997 = 0 THEN 'rejected' WHEN i % 5003 = 0 OR i % 24989 = 0 THEN 'open' ELSE 'completed' END,
            i % 24989 = 0,
            100 + i % 400,
            CASE WHEN i % 997 = 0 OR i % 5003 = 0 OR i % 24989 = 0 THEN 0 ELSE (i::bigint * 7919) % 760 END,
            '{}'::jsonb, now() - (($1 - i) * interval '25 seconds'), now() - (($1 - i) * interval '25 seconds')
     FROM generate_series(1, $1) i
     JOIN sessions s ON s.session_id = 's_' || (1 + i % $2)`,
    [ROUNDS, SESSIONS, OP],
  );
  await q(
    `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
       transaction_type, amount_minor, currency, status, request_body, request_hash, attempts, http_status,
       wallet_balance, created_at, completed_at)
     SELECT r.round_id || ':' || t.type, $1, r.session_id, r.round_id, 'ext-' || substr(r.player_id, 3),
            r.symbol, t.type, CASE t.type WHEN 'debit' THEN r.bet_minor ELSE r.win_minor END, r.currency,
            CASE WHEN r.status = 'rejected' AND t.type = 'debit' THEN 'failed'
                 WHEN r.status = 'open' AND t.type = 'credit' THEN 'pending'
                 ELSE 'success' END,
            '{}', repeat('a', 64), CASE WHEN r.stuck THEN 7 ELSE 1 END, 200, '100.00',
            r.created_at + t.offs, CASE WHEN r.status = 'open' AND t.type = 'credit' THEN NULL ELSE r.created_at + t.offs + interval '40 milliseconds' END
     FROM rounds r
     CROSS JOIN (VALUES ('debit', interval '5 milliseconds'), ('credit', interval '60 milliseconds')) t(type, offs)
     WHERE r.operator_id = $1 AND NOT (r.status = 'rejected' AND t.type = 'credit')`,
    [OP],
  );
  // A few rounds whose history says more than their credit paid: reconciliation lists them.
  await q(
    `UPDATE rounds SET win_minor = win_minor + 7 WHERE operator_id = $1 AND round_id IN ('r_20011', 'r_40022', 'r_60033', 'r_80044')`,
    [OP],
  );
  // Every 50th Mines round has its four stages.
  await q(
    `INSERT INTO round_stages (round_id, seq, action, inputs, outcome, multiplier, created_at)
     SELECT r.round_id, st.seq, st.action, st.inputs::jsonb, st.outcome::jsonb, st.multiplier, r.created_at + st.seq * interval '2 seconds'
     FROM rounds r
     CROSS JOIN (VALUES (0, 'bet', '{"stake_minor":"300","mines":3}', '{}', NULL::numeric),
                        (1, 'reveal', '{"cell":4}', '{"mine":false}', 1.10227272),
                        (2, 'reveal', '{"cell":9}', '{"mine":false}', 1.25974025),
                        (3, 'cashout', '{}', '{"win_minor":"377"}', 1.25974025)) st(seq, action, inputs, outcome, multiplier)
     WHERE r.operator_id = $1 AND r.symbol = 'cnmines' AND substr(r.round_id, 3)::int % 250 = 3`,
    [OP],
  );
  // The bulk load wrote every reconciliation row more than once (with its round, then its wallet
  // side when the journal rows came): vacuum as autovacuum would after a load.
  await q('VACUUM ANALYZE round_reconciliation');
  await q('ANALYZE');
  const counts = (
    await q(
      `SELECT (SELECT count(*) FROM rounds WHERE operator_id = $1) AS rounds,
              (SELECT count(*) FROM wallet_transactions WHERE operator_id = $1) AS tx,
              (SELECT count(*) FROM round_stages) AS stages,
              (SELECT round_id FROM round_stages ORDER BY round_id LIMIT 1) AS staged`,
      [OP],
    )
  ).rows[0] as { rounds: string; tx: string; stages: string; staged: string };
  console.log(
    `portal: ${counts.rounds} rounds, ${counts.tx} journalled transactions, ${counts.stages} stages, ${PLAYERS} players, ` +
      `${SESSIONS} sessions (generated in ${fmt((performance.now() - t0) / 1000, 1)} s); ${REPEATS} requests per page after one warm-up, medians`,
  );

  const port = await freePort();
  const cmd = portalStartCommand('127.0.0.1', port);
  portal = spawn(cmd.command, cmd.args, {
    cwd: cmd.cwd,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      OPI_API_URL: api.origin,
      STAFF_PORTAL_SECRET: PORTAL_SECRET,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForPort('127.0.0.1', port, 60_000);
  const origin = `http://127.0.0.1:${port}`;
  const login = await fetch(`${origin}/auth/login`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'bench', password }),
    redirect: 'manual',
  });
  const session = /opi_staff=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0];
  if (login.status !== 303 || !session) throw new Error(`login: ${login.status}`);
  const cookie: string = session;

  async function timed(path: string) {
    const t = performance.now();
    const res = await fetch(origin + path, { headers: { cookie }, redirect: 'manual' });
    const body = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`);
    if (body.includes('data-testid="problem"')) throw new Error(`${path}: the page reports a failed read`);
    return ms;
  }
  const results: [string, number][] = [];
  async function measure(label: string, path: string) {
    await timed(path);
    const times: number[] = [];
    for (let i = 0; i < REPEATS; i++) times.push(await timed(path));
    const m = median(times);
    results.push([label, m]);
    console.log(
      `  ${label.padEnd(40)} median ${fmt(m, 1).padStart(7)} ms  (min ${fmt(Math.min(...times), 1)}, max ${fmt(Math.max(...times), 1)})  ${m <= TARGET_MS ? 'ok' : 'MISSED'}`,
    );
  }
  const o = `/o/${OP}`;
  const since = new Date(Date.now() - 24 * 3600_000).toISOString().slice(0, 16);
  await measure('overview (charts, 30 days)', o);
  await measure('overview (charts, 90 days)', `${o}?days=90`);
  await measure('catalog', `${o}/catalog`);
  await measure('catalog, blocked only', `${o}/catalog?status=blocked`);
  await measure('sessions', `${o}/sessions`);
  await measure('sessions, by player', `${o}/sessions?player_id=ext-777`);
  await measure('sessions, USD active', `${o}/sessions?currency=USD&status=active`);
  await measure('a session with its rounds', `${o}/sessions/s_1234`);
  await measure('rounds', `${o}/rounds`);
  await measure('rounds, by player', `${o}/rounds?player_id=ext-777`);
  await measure('rounds, rejected', `${o}/rounds?status=rejected`);
  await measure('a round (timeline)', `${o}/rounds/r_50000`);
  await measure('a Mines round (stage replay)', `${o}/rounds/${counts.staged}?stage=2`);
  const days = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 16);
  await measure('reconciliation (default: last 7 days)', `${o}/reconciliation`);
  await measure('reconciliation, last 24 h', `${o}/reconciliation?from=${since}`);
  await measure('reconciliation, last 30 days (all 100k)', `${o}/reconciliation?from=${days(30)}`);
  await measure('reconciliation, all time (all 100k)', `${o}/reconciliation?all=1`);
  await measure('reconciliation CSV, last 7 days', `${o}/reconciliation/csv?from=${days(7)}`);
  await measure('reconciliation CSV, all time', `${o}/reconciliation/csv`);
  await measure('stuck settlements', `${o}/stuck`);
  await measure('wallet diagnostics', `${o}/wallet`);
  await measure('audit log', `${o}/audit`);
  const missed = results.filter(([, m]) => m > TARGET_MS);
  console.log(
    `target: every page <= ${TARGET_MS} ms: ${missed.length ? `MISSED by ${missed.map(([l]) => l).join(', ')}` : 'met'}`,
  );
} finally {
  portal?.kill('SIGTERM');
  await stack.stop();
}
