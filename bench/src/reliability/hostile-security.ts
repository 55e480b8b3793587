import http from 'node:http';
import net from 'node:net';
import { http as call, type HttpResult, signedCall, signedOk } from './http.js';
import type { OperatorSetup, World } from './setup.js';
import { ADMIN_KEY, type ReliabilityStack } from './stack.js';

/**
 * The security part of the hostile input (issue 23), against the running processes: forged
 * forwarded addresses, a suspended operator's open sessions under load, event-stream floods,
 * oversize and slow bodies, wallet URLs that point inside. Each case is answered as documented;
 * the suspended operator's rounds recorded before the suspension settle exactly once and none is
 * recorded after it. Its own operator (op_rel_sus) keeps the other invariants' operators untouched.
 */

/** A crash title's demo (any will do: the limits are per address and in total). */
const DEMO_SLUG = 'paper-kite';

/** The operator the suspension case creates; the other hostile checks leave its rounds out. */
export const SUSPENDED_OPERATOR = 'op_rel_sus';

export interface SecurityCase {
  group: string;
  name: string;
  ok: boolean;
  detail: string;
}

interface RawAnswer {
  status: number;
  ms: number;
  closed: boolean;
}

/**
 * One request over a raw socket: the head, then `body` written in `chunk`-sized pieces every
 * `everyMs` until the answer arrives (or it is all written). Reports the status, when it came,
 * and whether the server ended the connection within 2 s of answering.
 */
function rawSend(
  origin: string,
  head: string,
  body: { chunk: Buffer; count: number; everyMs: number } | undefined,
  timeoutMs: number,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const started = performance.now();
    let text = '';
    let answeredMs = -1;
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(limit);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, ms: answeredMs < 0 ? performance.now() - started : answeredMs, closed });
    };
    const limit = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (answeredMs < 0 && text.includes('\r\n\r\n')) {
        answeredMs = performance.now() - started;
        setTimeout(() => finish(false), 2_000).unref();
      }
    });
    socket.on('end', () => finish(answeredMs >= 0));
    socket.on('close', () => finish(answeredMs >= 0));
    // Writing on after the server ended the connection resets it: that is the server closing.
    socket.on('error', () => finish(answeredMs >= 0));
    socket.on('connect', async () => {
      socket.write(head);
      if (!body) return;
      // A route that answers on the head alone (no key) has answered before the body starts.
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 0; i < body.count && answeredMs < 0 && !done; i++) {
        const ok = socket.write(
          head.includes('chunked')
            ? Buffer.concat([
                Buffer.from(`${body.chunk.length.toString(16)}\r\n`),
                body.chunk,
                Buffer.from('\r\n'),
              ])
            : body.chunk,
        );
        if (!ok) await new Promise((r) => socket.once('drain', r));
        if (body.everyMs > 0) await new Promise((r) => setTimeout(r, body.everyMs));
      }
    });
  });
}

/** An event stream held open; `events` are the names received so far. */
interface HeldStream {
  events: string[];
  status: number;
  ended: boolean;
  close(): void;
}

function openStream(origin: string, token: string): Promise<HeldStream> {
  return new Promise((resolve) => {
    const held: HeldStream = { events: [], status: 0, ended: false, close: () => req.destroy() };
    const req = http.get(
      `${origin}/api/runtime/events`,
      { headers: { accept: 'text/event-stream', 'x-session-token': token }, agent: false },
      (res) => {
        held.status = res.statusCode ?? 0;
        let buffer = '';
        res.on('data', (d: Buffer) => {
          buffer += d.toString('utf8');
          for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
            const frame = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            const name = /^event: (.*)$/m.exec(frame)?.[1];
            if (name) held.events.push(name);
          }
        });
        res.on('close', () => {
          held.ended = true;
        });
        resolve(held);
      },
    );
    req.on('error', () => {
      held.ended = true;
      resolve(held);
    });
  });
}

/** A legitimate launch: its session and player are no trace. */
export interface Launched {
  sessionId: string;
  token: string;
  url: string;
}

/**
 * A launch at `origin` that must succeed (it throws otherwise); its session and player go into
 * `legit`, the ones the suite made on purpose.
 */
export async function launchLegitimately(
  origin: string,
  op: { key: string },
  body: { symbol: string; external_player_id: string; currency: string },
  legit: { sessions: Set<string>; players: Set<string> },
): Promise<Launched> {
  const res = await signedCall(origin, op.key, 'POST', '/api/provider/v1/launch-url', body);
  if (res.status !== 200) throw new Error(`legitimate launch: ${res.status} ${res.text}`);
  legit.sessions.add(res.json.session_id);
  legit.players.add(body.external_player_id);
  return {
    sessionId: res.json.session_id as string,
    token: new URL(res.json.launch_url).searchParams.get('mgckey')!,
    url: res.json.launch_url as string,
  };
}

async function until(cond: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return cond();
}

export async function securityCases(
  stack: ReliabilityStack,
  world: World,
  tag: string,
  legit: { sessions: Set<string>; players: Set<string> },
  /** The wallet accounts the suite opened, with their opening balances (the invariants read them). */
  openings: Map<string, bigint>,
): Promise<SecurityCase[]> {
  const [a] = world.operators as [OperatorSetup];
  const api1 = stack.apiOrigin(stack.apis[0]!);
  const api2 = stack.apiOrigin(stack.apis[1] ?? stack.apis[0]!);
  // The players' side (runtime routes, crash demos, event streams) is the game servers'.
  const game1 = stack.gameOrigin(stack.games[0]!);
  const game2 = stack.gameOrigin(stack.games[1] ?? stack.games[0]!);
  const slot = a.slots[0]!;
  const cases: SecurityCase[] = [];
  const push = (group: string, name: string, ok: boolean, detail: string) =>
    cases.push({ group, name, ok, detail });
  const expectStatus = (group: string, name: string, expect: number[], res: HttpResult) =>
    push(group, name, expect.includes(res.status), `${res.status} ${res.text.slice(0, 120)}`);
  const launch = (op: { key: string }, player: string, origin = api1) =>
    launchLegitimately(
      origin,
      op,
      { symbol: slot.symbol, external_player_id: player, currency: 'EUR' },
      legit,
    );

  // ── Slow and oversize bodies (the trickle runs beside everything else) ─────────────────────
  const trickle = rawSend(
    game2,
    'POST /api/runtime/crash/demo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n',
    { chunk: Buffer.from('{'), count: 4000, everyMs: 500 },
    30_000,
  );
  {
    const mib = Buffer.alloc(64 * 1024, 0x61);
    const keyless = await rawSend(
      api1,
      'POST /api/provider/v1/launch-url HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      { chunk: mib, count: 320, everyMs: 1 },
      20_000,
    );
    push(
      'bodies',
      'a 20 MiB chunked body on a keyed route without a key: 401 before it is read, connection ended',
      keyless.status === 401 && keyless.ms < 3_000 && keyless.closed,
      `${keyless.status} after ${keyless.ms.toFixed(0)} ms, closed ${keyless.closed}`,
    );
    const chunked = await rawSend(
      game1,
      'POST /api/runtime/crash/demo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      { chunk: mib, count: 320, everyMs: 1 },
      20_000,
    );
    push(
      'bodies',
      'a 20 MiB chunked body on an open route: 413 once it passes 64 KiB, connection ended',
      chunked.status === 413 && chunked.ms < 3_000 && chunked.closed,
      `${chunked.status} after ${chunked.ms.toFixed(0)} ms, closed ${chunked.closed}`,
    );
    const declared = await rawSend(
      game2,
      'POST /api/runtime/crash/demo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20971520\r\n\r\n',
      undefined,
      10_000,
    );
    push(
      'bodies',
      'a declared 20 MiB body: 413 before a byte is read, connection ended',
      declared.status === 413 && declared.ms < 2_000 && declared.closed,
      `${declared.status} after ${declared.ms.toFixed(0)} ms, closed ${declared.closed}`,
    );
  }

  // ── Forged forwarded addresses: the crash demo's per-address limit holds ───────────────────
  {
    const statuses: number[] = [];
    for (let i = 0; i < 35; i++) {
      const forged = `198.51.${i}.${(i * 7) % 250}`;
      const res = await call(game1, 'POST', '/api/runtime/crash/demo', {
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forged },
        body: JSON.stringify({ slug: DEMO_SLUG }),
      });
      statuses.push(res.status);
    }
    const created = statuses.filter((s) => s === 200 || s === 201).length;
    const refused = statuses.filter((s) => s === 429).length;
    const { rows } = await stack.pool.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM crash_demo_sessions WHERE client_address::text LIKE '198.51.%'`,
    );
    push(
      'forwarded',
      '35 crash demos, each with a new forged X-Forwarded-For: limited by the socket address (30), no forged address stored',
      created <= 30 && refused >= 5 && rows[0]!.n === '0',
      `${created} created, ${refused} refused 429, ${rows[0]!.n} stored under a forged address; statuses ${[...new Set(statuses)].join('/')}`,
    );
  }

  // ── Forged forwarded addresses: the staff login's per-address limit holds ──────────────────
  {
    // A new username each time: only the per-address limit (30 failures in 15 minutes) can stop
    // them, and only if the address is the socket's, not the one each request claims.
    const statuses: number[] = [];
    for (let i = 0; i < 35; i++) {
      const forged = `203.0.113.${i + 1}`;
      const res = await call(api2, 'POST', '/api/staff/v1/login', {
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': forged,
          'x-real-ip': forged,
          'x-staff-client-ip': forged,
          'x-staff-portal': 'not-the-portal-secret-0123456789abcdef',
        },
        body: JSON.stringify({ username: `nobody-${tag}-${i}`, password: 'wrong password 123' }),
      });
      statuses.push(res.status);
    }
    const refused = statuses.filter((st) => st === 429).length;
    const { rows } = await stack.pool.query<{ n: string }>(
      `SELECT ((SELECT count(*) FROM staff_login_limits WHERE bucket LIKE '%203.0.113.%')
            + (SELECT count(*) FROM staff_audit_log WHERE client_ip::text LIKE '203.0.113.%'))::text AS n`,
    );
    push(
      'forwarded',
      '35 failed staff logins, each with a new forged X-Forwarded-For and portal address header: limited by the socket address (30), no forged address counted or audited',
      refused >= 5 && statuses.every((st) => st === 401 || st === 429) && rows[0]!.n === '0',
      `${statuses.filter((st) => st === 401).length} answered 401, ${refused} refused 429; ${rows[0]!.n} rows name a forged address`,
    );
  }

  // ── Event-stream flood on one session, then its revocation ────────────────────────────────
  {
    const s = await launch(a, `${a.operatorId}-${tag}-streams`);
    const streams: HeldStream[] = [];
    for (let i = 0; i < 12; i++) streams.push(await openStream(i % 2 ? game2 : game1, s.token));
    // At most 3 of one session stay open over both processes: the rest were superseded (event
    // closed), those held by the other game server too (the presence table counts them all).
    const settled = await until(() => streams.filter((x) => !x.ended).length <= 3, 10_000);
    const open = streams.filter((x) => !x.ended);
    const superseded = streams.filter((x) => x.events.includes('closed')).length;
    push(
      'streams',
      '12 event streams of one player token over two game servers: at most 3 in all stay open, the oldest closed',
      settled && open.length <= 3 && superseded >= 9,
      `${open.length} open, ${superseded} told closed; statuses ${[...new Set(streams.map((x) => x.status))].join('/')}`,
    );
    const revoked = await signedCall(
      api1,
      ADMIN_KEY,
      'POST',
      `/api/admin/v1/sessions/${s.sessionId}/revoke`,
      {
        reason: 'reliability: stream flood',
      },
    );
    // The revocation is announced on the refresh channel: every game server ends the streams at
    // once (3 s leaves room for a loaded machine; the 15 s sweep would be the fallback, not this).
    const revokedAt = Date.now();
    const allEnded = await until(() => streams.every((x) => x.ended), 3_000);
    push(
      'streams',
      'revoking the session (on an API process) ends every stream of it on both game servers at once',
      revoked.status === 200 && allEnded,
      `revoke ${revoked.status}; ${streams.filter((x) => !x.ended).length} still open after ${Date.now() - revokedAt} ms`,
    );
    for (const x of streams) x.close();
    const after = await openStream(game2, s.token);
    push('streams', 'a revoked session opens no new stream', after.status === 401, `${after.status}`);
    after.close();
  }

  // ── A suspended operator's open sessions, under load ───────────────────────────────────────
  {
    const origin = api1;
    const admin = (method: string, p: string, body?: unknown) => signedOk(origin, ADMIN_KEY, method, p, body);
    const operatorId = SUSPENDED_OPERATOR;
    const walletSecret = `wsec_${operatorId}_${'0123456789abcdef'.repeat(2)}`;
    const exists = await signedCall(origin, ADMIN_KEY, 'GET', `/api/admin/v1/operators/${operatorId}`);
    if (exists.status === 404) {
      await admin('POST', '/api/admin/v1/operators', {
        operator_id: operatorId,
        name: 'Reliability suspension',
        default_currency: 'EUR',
        allowed_currencies: ['EUR'],
        bet_limits: { min: '1', max: '100000' },
        wallet_base_url: `${stack.walletBase}/wallet`,
        wallet_secret: walletSecret,
      });
    } else {
      await admin('PATCH', `/api/admin/v1/operators/${operatorId}`, { status: 'active' });
    }
    await admin('PUT', `/api/admin/v1/operators/${operatorId}/games/${slot.symbol}`, { enabled: true });
    await stack.walletAdmin.setSecret(operatorId, walletSecret);
    const issued = (
      await admin('POST', `/api/admin/v1/operators/${operatorId}/api-keys`, { label: 'suspension' })
    ).data;
    const key = issued.api_key as string;
    const op = { operatorId, key };
    const players = await Promise.all(
      [0, 1, 2, 3, 4, 5].map(async (i) => {
        const player = `${operatorId}-${tag}-${i}`;
        await stack.walletAdmin.createPlayer({
          operatorId,
          playerId: player,
          currency: 'EUR',
          balanceMinor: 1_000_000n,
        });
        openings.set(`${operatorId}/${player}/EUR`, 1_000_000n);
        return launch(op, player, i % 2 ? api2 : api1);
      }),
    );
    let suspendedAt = 0;
    const answers: { status: number; sentAt: number; round?: string }[] = [];
    const until0 = Date.now() + 4_000;
    const spinners = players.map(async (p, i) => {
      const origin = i % 2 ? game2 : game1;
      while (Date.now() < until0) {
        const sentAt = Date.now();
        const res = await call(origin, 'POST', '/api/runtime/spin', {
          headers: { 'x-session-token': p.token, 'content-type': 'application/json' },
          body: JSON.stringify({ bet_minor: 10 }),
        });
        answers.push({ status: res.status, sentAt, round: res.json?.round_id });
        if (res.status !== 200) await new Promise((r) => setTimeout(r, 20));
      }
    });
    await new Promise((r) => setTimeout(r, 1_500));
    await admin('PATCH', `/api/admin/v1/operators/${operatorId}`, { status: 'inactive' });
    suspendedAt = Date.now();
    await Promise.all(spinners);
    const before = answers.filter((x) => x.status === 200);
    const afterSuspension = answers.filter((x) => x.sentAt > suspendedAt);
    const lateWins = afterSuspension.filter((x) => x.status !== 403);
    push(
      'suspension',
      'six sessions spinning on two game servers: every spin sent after the suspension answered is 403',
      before.length > 0 && afterSuspension.length > 0 && lateWins.length === 0,
      `${before.length} spins played before, ${afterSuspension.length} sent after (${lateWins.length} not 403: ${[...new Set(lateWins.map((x) => x.status))].join('/')})`,
    );
    // Every round of the operator settles exactly once: one debit and one credit, nothing pending.
    const settledAll = await until(async () => {
      const { rows } = await stack.pool.query<{ open: string }>(
        `SELECT count(*)::text AS open FROM rounds WHERE operator_id = $1 AND status IN ('open', 'settling')`,
        [operatorId],
      );
      return rows[0]!.open === '0';
    }, 60_000);
    const { rows } = await stack.pool.query<{
      rounds: string;
      bad: string;
      late: string;
      example: string | null;
    }>(
      `SELECT count(*)::text AS rounds,
              count(*) FILTER (WHERE debits <> 1 OR credits <> 1 OR pending <> 0)::text AS bad,
              count(*) FILTER (WHERE created_at > $2)::text AS late,
              min(round_id || ' ' || status || ' debits ' || debits || ' credits ' || credits || ' pending ' || pending
                  || ' ' || coalesce(errors, ''))
                FILTER (WHERE debits <> 1 OR credits <> 1 OR pending <> 0) AS example
       FROM (SELECT r.round_id, r.created_at, r.status,
                    count(*) FILTER (WHERE t.transaction_type = 'debit' AND t.status = 'success') AS debits,
                    count(*) FILTER (WHERE t.transaction_type = 'credit' AND t.status = 'success') AS credits,
                    count(*) FILTER (WHERE t.status = 'pending') AS pending,
                    string_agg(t.error_code, ',') AS errors
             FROM rounds r LEFT JOIN wallet_transactions t ON t.round_id = r.round_id
             WHERE r.operator_id = $1 GROUP BY r.round_id, r.created_at, r.status) x`,
      [operatorId, new Date(suspendedAt)],
    );
    const r = rows[0]!;
    push(
      'suspension',
      "the suspended operator's rounds all settled exactly once (one debit, one credit), none recorded after the suspension",
      settledAll && Number(r.rounds) >= before.length && r.bad === '0' && r.late === '0',
      `${r.rounds} rounds, ${r.bad} not settled exactly once${r.example ? ` (${r.example})` : ''}, ${r.late} recorded after the suspension; settled in time ${settledAll}`,
    );
    const refusedLaunch = await signedCall(api2, key, 'POST', '/api/provider/v1/launch-url', {
      symbol: slot.symbol,
      external_player_id: `${operatorId}-${tag}-late`,
      currency: 'EUR',
    });
    expectStatus('suspension', "a suspended operator's key launches nothing", [401, 403], refusedLaunch);
    // Active again, its money joins every later invariant check (reconciliation through its audit API).
    await admin('PATCH', `/api/admin/v1/operators/${operatorId}`, { status: 'active' });
    if (!world.audited.some((o) => o.operatorId === operatorId))
      world.audited.push({
        operatorId,
        key,
        keyId: issued.key_id,
        walletSecret,
        slots: [slot],
        native: undefined,
        currencies: ['EUR'],
      });
  }

  // ── Wallet URLs that point inside: refused at write time, nothing changed ─────────────────
  {
    const before = (await signedOk(api1, ADMIN_KEY, 'GET', `/api/admin/v1/operators/${a.operatorId}`)).data
      .wallet_base_url as string;
    for (const [name, url] of [
      ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
      ['an IPv6 link-local address', 'http://[fe80::1]/wallet'],
      ["Alibaba's metadata address", 'http://100.100.100.200/wallet'],
      ['an IPv4-mapped metadata address', 'http://[::ffff:169.254.169.254]/wallet'],
    ] as const) {
      expectStatus(
        'wallet-urls',
        `a new operator with a wallet URL at ${name}`,
        [422],
        await signedCall(api1, ADMIN_KEY, 'POST', '/api/admin/v1/operators', {
          operator_id: `op_rel_ssrf_${tag}`,
          name: 'SSRF probe',
          default_currency: 'EUR',
          allowed_currencies: ['EUR'],
          bet_limits: { min: '1', max: '100' },
          wallet_base_url: url,
        }),
      );
      expectStatus(
        'wallet-urls',
        `an operator's wallet URL changed to ${name}`,
        [422],
        await signedCall(api2, ADMIN_KEY, 'PATCH', `/api/admin/v1/operators/${a.operatorId}`, {
          wallet_base_url: url,
        }),
      );
    }
    const after = (await signedOk(api2, ADMIN_KEY, 'GET', `/api/admin/v1/operators/${a.operatorId}`)).data
      .wallet_base_url as string;
    const created = await signedCall(api1, ADMIN_KEY, 'GET', `/api/admin/v1/operators/op_rel_ssrf_${tag}`);
    push(
      'wallet-urls',
      'no refused wallet URL was stored: the operator keeps its wallet, no probe operator exists',
      after === before && created.status === 404,
      `wallet ${after === before ? 'unchanged' : `changed to ${after}`}; probe operator ${created.status}`,
    );
  }

  const slow = await trickle;
  push(
    'bodies',
    'a body trickled a byte every 0.5 s: 408 at the 10 s body deadline, connection ended',
    slow.status === 408 && slow.ms >= 9_000 && slow.ms < 15_000 && slow.closed,
    `${slow.status} after ${slow.ms.toFixed(0)} ms, closed ${slow.closed}`,
  );
  return cases;
}
