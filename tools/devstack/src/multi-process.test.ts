import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import {
  requestOnce,
  type StackProcess,
  signedHeaders,
  startStackProcess,
  until,
} from './test-support/stack-process.js';
import { freePort, sleep } from './wait.js';

// The default stack with two API processes (one port, round robin), two game-server processes (their
// own port, round robin) and two settlement workers: nonces, balance-refresh signals and settlement
// stay correct across them, over real HTTP.
let dataDir: string;
let env: NodeJS.ProcessEnv;
let ports: Record<
  | 'api'
  | 'game'
  | 'pg'
  | 'temporal'
  | 'ui'
  | 'wallet'
  | 'portal'
  | 'apiMetrics'
  | 'gameMetrics'
  | 'workerMetrics',
  number
>;
let stack: ChildProcess;
let running: StackProcess;
const output = () => running.output();
let key = '';
let db: pg.Client;

/** Two consecutive free ports (worker i serves metrics on WORKER_METRICS_PORT + i). */
async function freePair(): Promise<number> {
  for (;;) {
    const p = await freePort();
    const ok = await new Promise<boolean>((resolve) => {
      const s = http.createServer();
      s.once('error', () => resolve(false));
      s.listen(p + 1, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (ok && p < 65535) return p;
  }
}

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'opi-multi-'));
  await chmod(dataDir, 0o755);
  ports = {
    api: await freePort(),
    game: await freePort(),
    pg: await freePort(),
    temporal: await freePort(),
    ui: await freePort(),
    wallet: await freePort(),
    portal: await freePort(),
    apiMetrics: await freePort(),
    gameMetrics: await freePort(),
    workerMetrics: await freePair(),
  };
  env = {
    ...process.env,
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    PORT: String(ports.api),
    GAME_SERVER_PORT: String(ports.game),
    PG_PORT: String(ports.pg),
    TEMPORAL_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    WALLET_PORT: String(ports.wallet),
    // Every port free, so the test runs beside `npm start` on the defaults (the portal's is 3000).
    PORTAL_PORT: String(ports.portal),
    API_METRICS_PORT: String(ports.apiMetrics),
    GAME_METRICS_PORT: String(ports.gameMetrics),
    WORKER_METRICS_PORT: String(ports.workerMetrics),
    API_PROCESSES: '2',
    GAME_PROCESSES: '2',
    WORKER_PROCESSES: '2',
    LOG_LEVEL: 'info',
  };
  for (const k of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'PROVIDER_ADMIN_KEY', 'SERVICE_SECRET']) delete env[k];
  running = await startStackProcess(env);
  stack = running.child;
  // Ready once both API and both game-server processes listen (each port opens with its first).
  await until('two API processes listening', () => apiListening().size >= 2, 60_000);
  await until('two game-server processes listening', () => gameListening().size >= 2, 60_000);
  key = JSON.parse(readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')).demoOperatorKey;
  db = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${ports.pg}/opi` });
  db.on('error', () => {}); // the stack stops PostgreSQL in the last test
  await db.connect();
});

after(async () => {
  await db?.end().catch(() => {}); // already ended by the last test when it ran
  if (stack && stack.exitCode === null) {
    const exited = new Promise((r) => stack.once('exit', r));
    stack.kill('SIGINT');
    await exited;
  }
  await rm(dataDir, { recursive: true, force: true });
});

/** One request on its own TCP connection (so the cluster hands each to the next process). */
const request = (
  method: string,
  pathAndQuery: string,
  opts: { body?: string; headers?: Record<string, string>; port?: number } = {},
) => requestOnce(opts.port ?? ports.api, method, pathAndQuery, opts);

const signed = (method: string, pathAndQuery: string, body = '', nonce?: string) =>
  signedHeaders(key, method, pathAndQuery, body, nonce);

async function launch(player: string): Promise<{ token: string; sessionId: string }> {
  const { rows } = await db.query(
    `SELECT symbol FROM games g WHERE provider_id = 'prov_a' AND EXISTS (
       SELECT 1 FROM release_registry r WHERE r.symbol = g.symbol AND r.status = 'accepted'
         AND r.registry_version = g.installed_version) ORDER BY symbol LIMIT 1`,
  );
  const body = JSON.stringify({ symbol: rows[0].symbol, external_player_id: player, currency: 'EUR' });
  const res = await request('POST', '/api/provider/v1/launch-url', {
    body,
    headers: signed('POST', '/api/provider/v1/launch-url', body),
  });
  assert.equal(res.status, 200, res.text);
  return { token: new URL(res.json.launch_url).searchParams.get('mgckey')!, sessionId: res.json.session_id };
}

/**
 * A game page's event stream on its own connection: the events as they arrive (names in `events`,
 * with their data in `blocks`), the subscriber id from `ready`, and whether the server ended it.
 */
function openStream(token: string) {
  const events: string[] = [];
  const blocks: { event: string; data: unknown }[] = [];
  let req: http.ClientRequest | undefined;
  const state = { subscriberId: '', ended: false };
  const ready = new Promise<void>((resolve, reject) => {
    setTimeout(() => reject(new Error('no ready event within 10 s')), 10_000).unref();
    req = http.get(
      {
        host: '127.0.0.1',
        port: ports.game,
        path: '/api/runtime/events',
        agent: false,
        headers: { 'x-session-token': token },
      },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`events: ${res.statusCode}`));
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          buf += chunk;
          for (let cut = buf.indexOf('\n\n'); cut >= 0; cut = buf.indexOf('\n\n')) {
            const block = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            const event = /^event: (.+)$/m.exec(block)?.[1];
            if (!event) continue;
            const data = /^data: (.+)$/m.exec(block)?.[1];
            const parsed = data === undefined ? undefined : JSON.parse(data);
            events.push(event);
            blocks.push({ event, data: parsed });
            if (event === 'ready') {
              state.subscriberId = (parsed as { subscriber_id: string }).subscriber_id;
              resolve();
            }
          }
        });
        res.on('end', () => {
          state.ended = true;
        });
        res.on('close', () => {
          state.ended = true;
        });
      },
    );
    req.on('error', () => {});
  });
  return {
    events,
    blocks,
    ready,
    get subscriberId() {
      return state.subscriberId;
    },
    get ended() {
      return state.ended;
    },
    close: () => req?.destroy(),
  };
}

const pidOf = (instance: string) => Number(instance.split(':')[1]);

const apiListening = () => running.apiListening();
const gameListening = () => running.gameListening();

test('two game-server processes share their port; balance-refresh signals sent to the API reach pages held by either', async () => {
  assert.match(output(), /Processes\s+2 API, 2 game server, 2 workers/);
  const page = await launch('multi-refresh-1');
  // Three streams, the session's limit across the processes (the next test goes past it).
  const streams = Array.from({ length: 3 }, () => openStream(page.token));
  await Promise.all(streams.map((s) => s.ready));
  const { rows } = await db.query(
    'SELECT DISTINCT api_instance FROM subscriber_presence WHERE session_id = $1',
    [page.sessionId],
  );
  const pids = new Set(rows.map((r) => pidOf(r.api_instance)));
  assert.equal(pids.size, 2, `the three streams are held by two game-server processes: ${[...pids]}`);
  for (const pid of pids) assert.ok(gameListening().has(pid), `stream held by game-server process ${pid}`);

  const body = JSON.stringify({ external_player_id: 'multi-refresh-1', reason: 'deposit' });
  const res = await request('POST', '/api/provider/v1/player-balance-refresh', {
    body,
    headers: signed('POST', '/api/provider/v1/player-balance-refresh', body),
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.subscribers_notified, 3);
  await until('every page hears the signal', () =>
    streams.every((s) => s.events.includes('balance-refresh')),
  );
  for (const s of streams) s.close();
});

test('one session holds at most 3 event streams across both game-server processes: a new one supersedes the oldest, whichever process holds it', async () => {
  const page = await launch('multi-stream-limit');
  // Six opens one after another, each on a new connection: the cluster hands them to the two
  // processes in turn. Each one's holder is its presence row's process.
  const streams: ReturnType<typeof openStream>[] = [];
  const holders: number[] = [];
  for (let i = 0; i < 6; i++) {
    const s = openStream(page.token);
    await s.ready;
    const { rows } = await db.query('SELECT api_instance FROM subscriber_presence WHERE subscriber_id = $1', [
      s.subscriberId,
    ]);
    assert.equal(rows.length, 1, `stream ${i + 1} is present`);
    holders.push(pidOf(rows[0].api_instance));
    streams.push(s);
  }
  assert.equal(new Set(holders).size, 2, `the six streams are held by both processes: ${holders}`);
  const superseded = streams.slice(0, 3);
  const kept = streams.slice(3);
  // The 4th, 5th and 6th open each superseded the then oldest, the 1st, 2nd and 3rd: told why,
  // then ended, including those held by the other process than the one that took the new stream.
  await until('the three oldest streams ended', () => superseded.every((s) => s.ended));
  for (const s of superseded)
    assert.deepEqual(s.blocks.at(-1), { event: 'closed', data: { reason: 'superseded' } });
  assert.ok(
    [0, 1, 2].some((i) => holders[i] !== holders[i + 3]),
    `a stream was superseded by an open on the other process: ${holders}`,
  );
  await sleep(300);
  assert.ok(
    kept.every((s) => !s.ended && !s.events.includes('closed')),
    'the three newest stay open',
  );
  const { rows } = await db.query(
    'SELECT subscriber_id FROM subscriber_presence WHERE session_id = $1 ORDER BY connected_at',
    [page.sessionId],
  );
  assert.deepEqual(
    rows.map((r) => r.subscriber_id),
    kept.map((s) => s.subscriberId),
    'three presence rows: the newest streams',
  );
  for (const s of kept) s.close();
});

test('a nonce is single use across the API processes', async () => {
  // Each pair goes out on two new connections, which the cluster hands to the two processes in turn.
  for (let i = 0; i < 6; i++) {
    const headers = signed('GET', '/api/provider/v1/games');
    const first = await request('GET', '/api/provider/v1/games', { headers });
    const again = await request('GET', '/api/provider/v1/games', { headers });
    assert.equal(first.status, 200, first.text);
    assert.equal(again.status, 401);
    assert.match(again.json.detail, /already used/);
  }
});

test('rounds settle exactly once across the processes, started eagerly in both game-server processes; the trace reaches the wallet callbacks', async () => {
  const players = await Promise.all([0, 1, 2, 3].map((i) => launch(`multi-settle-${i}`)));
  const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const rounds: string[] = [];
  await Promise.all(
    players.map(async (p, i) => {
      for (let n = 0; n < 6; n++) {
        const res = await request('POST', '/api/runtime/spin', {
          port: ports.game,
          body: JSON.stringify({ bet_minor: 100 }),
          headers: {
            'x-session-token': p.token,
            traceparent: `00-${traceId}-00f067aa0ba902b${i}-01`,
            'x-request-id': `multi-spin-${i}-${n}`,
          },
        });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.json.status, 'completed', res.text);
        rounds.push(res.json.round_id);
      }
    }),
  );
  // Every round: one successful debit and one credit, no pending row, settled.
  const { rows } = await db.query(
    `SELECT r.round_id, r.status, count(*) FILTER (WHERE t.transaction_type = 'debit' AND t.status = 'success') AS debits,
            count(*) FILTER (WHERE t.transaction_type = 'credit' AND t.status = 'success') AS credits,
            count(*) FILTER (WHERE t.status = 'pending') AS pending
     FROM rounds r JOIN wallet_transactions t ON t.round_id = r.round_id
     WHERE r.round_id = ANY($1) GROUP BY r.round_id, r.status`,
    [rounds],
  );
  assert.equal(rows.length, rounds.length);
  for (const r of rows)
    assert.deepEqual(
      [r.status, Number(r.debits), Number(r.credits), Number(r.pending)],
      ['completed', 1, 1, 0],
    );

  // Each game-server process hosts a settlement worker (GAME_SETTLEMENT_WORKER=on, the default) and
  // starts its rounds eagerly: a round's first workflow task is recorded under the starting
  // process's identity (game-<pid>-start@...), and both game-server processes took part (the cluster
  // hands each connection to the next). Eager start is best effort: when the starting worker has no
  // free workflow-task slot at that instant the server declines it and the task is polled instead,
  // so a round may also start under a game-server process's worker identity (game-<pid>@...), never
  // elsewhere.
  const connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
  const processes = new Set<string>();
  let eager = 0;
  try {
    const client = new Client({ connection });
    for (const id of rounds) {
      const history = await client.workflow.getHandle(id).fetchHistory();
      const first = (history.events ?? []).find((e) => e.workflowTaskStartedEventAttributes);
      const who = first?.workflowTaskStartedEventAttributes?.identity ?? '';
      const match = /^game-(\d+)(-start)?@/.exec(who);
      assert.ok(match, `round ${id} started in a game-server process, not ${who}`);
      assert.ok(gameListening().has(Number(match[1])), `round ${id}: ${who} is a game-server process`);
      processes.add(match[1] as string);
      if (match[2]) eager++;
    }
  } finally {
    await connection.close();
  }
  assert.equal(processes.size, 2, `rounds ran in both game-server processes: ${[...processes]}`);
  assert.ok(eager >= rounds.length / 2, `${eager} of ${rounds.length} rounds started eagerly`);

  // The settlement (here the game servers' hosted workers) logs each wallet callback with the trace
  // id and the request id of the spin.
  await until('the settlement logs', () => output().includes(traceId));
  const lines = output()
    .split('\n')
    .filter((l) => /^\[(game-server|worker-\d)\] /.test(l) && l.includes('"wallet callback"'))
    .map((l) => JSON.parse(l.slice(l.indexOf('{'))));
  const traced = lines.filter((l) => l.trace_id === traceId);
  assert.ok(traced.length >= rounds.length * 2, `${traced.length} traced wallet callbacks`);
  assert.ok(traced.every((l) => /^multi-spin-\d-\d$/.test(l.origin_request_id)));
});

test('metrics: each service the sum over its processes, each worker its own; readiness sees every worker', async () => {
  const api = await request('GET', '/metrics', { port: ports.apiMetrics });
  assert.equal(api.status, 200);
  assert.match(
    api.text,
    /opi_http_request_duration_seconds_count\{[^}]*route="\/api\/provider\/v1\/launch-url"[^}]*status="200"[^}]*\} \d+/,
  );
  assert.doesNotMatch(api.text, /route="\/api\/runtime\/spin"/, 'the API serves no spin');
  // The cluster primary asks each process for its figures when scraped; on a loaded machine one
  // process can answer a scrape late, so the figures are read until they agree (or 30 s pass, and
  // the last reading is the failure's message).
  let last = '';
  await until(
    'the metrics of every process',
    async () => {
      const game = await request('GET', '/metrics', { port: ports.gameMetrics });
      last = `game-server metrics: ${game.status}`;
      if (game.status !== 200) return false;
      const spins =
        /opi_http_request_duration_seconds_count\{[^}]*route="\/api\/runtime\/spin"[^}]*status="200"[^}]*\} (\d+)/.exec(
          game.text,
        )?.[1];
      last = `game-server spins counted: ${spins}`;
      if (spins !== '24') return false;
      assert.match(
        game.text,
        /opi_wallet_callback_duration_seconds_count\{type="balance"|# HELP opi_wallet_callback_duration_seconds/,
      );
      // The debits were sent by the game servers' hosted workers and the worker processes between them.
      const debitsOf = (text: string) =>
        [
          ...text.matchAll(
            /^opi_wallet_callback_duration_seconds_count\{type="debit",operator="op_demo",outcome="success"\} (\d+)$/gm,
          ),
        ].reduce((sum, m) => sum + Number(m[1]), 0);
      let debits = debitsOf(game.text);
      for (const port of [ports.workerMetrics, ports.workerMetrics + 1]) {
        const w = await request('GET', '/metrics', { port });
        last = `worker metrics on ${port}: ${w.status}`;
        if (w.status !== 200) return false;
        assert.match(w.text, /^opi_settlements_in_flight \d+$/m);
        assert.match(w.text, /^opi_settlements_stuck 0$/m);
        debits += debitsOf(w.text);
      }
      last = `${debits} debits counted by the settlement workers, not 24`;
      return debits === 24;
    },
    30_000,
  ).catch((e: Error) => assert.fail(`${e.message}; last reading: ${last}`));
  for (const port of [ports.api, ports.game]) {
    const ready = await request('GET', '/ready', { port });
    assert.equal(ready.status, 200, ready.text);
    assert.ok(ready.json.checks.worker.pollers >= 2, ready.text);
  }
});

test('a game-server process that dies is replaced; its port keeps answering; Ctrl-C stops every process', async () => {
  const before = gameListening();
  const page = await launch('multi-restart');
  const s = openStream(page.token);
  await s.ready;
  const { rows } = await db.query('SELECT api_instance FROM subscriber_presence WHERE session_id = $1', [
    page.sessionId,
  ]);
  const victim = pidOf(rows[0].api_instance);
  assert.ok(before.has(victim));
  s.close();
  process.kill(victim, 'SIGKILL');
  // The primary drops the dead process from its rotation as soon as it sees it exit (and says so).
  await until('the primary saw the process exit', () =>
    output()
      .split('\n')
      .some(
        (l) =>
          l.startsWith('[game-server] ') &&
          l.includes('process exited; restarting it') &&
          l.includes(`"pid":${victim}`),
      ),
  );
  for (let i = 0; i < 10; i++)
    assert.equal((await request('GET', '/health', { port: ports.game })).status, 200);
  await until('a replacement process', () => gameListening().size === before.size + 1, 60_000);
  const replacement = [...gameListening()].find((p) => !before.has(p))!;
  const gamePids = [...gameListening()].filter((p) => p !== victim);
  assert.ok(gamePids.includes(replacement));
  const apiPids = [...apiListening()];
  await db.end();
  const exited = new Promise<number | null>((r) => stack.once('exit', (code) => r(code)));
  stack.kill('SIGINT');
  assert.equal(await exited, 0);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  // The stack waits for its services before it exits; a loaded machine may take a moment to reap them.
  await until('every process gone', () => [...apiPids, ...gamePids].every((p) => !alive(p)), 10_000).catch(
    () => {},
  );
  assert.deepEqual(apiPids.filter(alive), [], 'no API process left behind');
  assert.deepEqual(gamePids.filter(alive), [], 'no game-server process left behind');
});
