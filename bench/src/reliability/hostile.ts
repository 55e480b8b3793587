import { createHash, createHmac, randomBytes } from 'node:crypto';
import { newRequestNonce, signOperatorRequest, unixSeconds } from '@opi/signing';
import { SUSPENDED_OPERATOR, securityCases } from './hostile-security.js';
import { type HttpResult, http, signedCall, signedHeaders } from './http.js';
import type { Check } from './invariants.js';
import { isPromoPayout } from './promotions.js';
import type { OperatorSetup, World } from './setup.js';
import { ADMIN_KEY, GAME_BASE_URL, type ReliabilityStack } from './stack.js';
import { readWireLog } from './wire.js';

interface Case {
  group: string;
  name: string;
  expect: number[];
  got: number;
  /** An extra condition on the answer (escaping, an empty page). */
  also?: string | undefined;
  /** `got` is a count of requests (each answered as expected), not an HTTP status. */
  count?: boolean;
}

const LIMIT = 64 * 1024;

/**
 * Live markup in an HTML or SVG document: a script, foreignObject or iframe element, or an event
 * handler attribute, in the document's own tags (text and quoted attribute values, where escaped
 * input belongs, are not markup).
 */
export function liveMarkup(doc: string): string | undefined {
  const tags = doc.replace(/"[^"]*"|'[^']*'/g, '""').match(/<[^>]*>/g) ?? [];
  for (const tag of tags) {
    if (/^<\s*(script|foreignobject|iframe|object|embed)\b/i.test(tag)) return `element ${tag.slice(0, 40)}`;
    if (/\son[a-z]+\s*=/i.test(tag)) return `event handler in ${tag.slice(0, 60)}`;
  }
  return undefined;
}

/** Headers signed over `signBody` and `signPath` (which may differ from what is sent). */
function signedWith(
  key: string,
  method: string,
  pathAndQuery: string,
  body: string,
  over: { timestamp?: string; nonce?: string; signature?: string; contentType?: string } = {},
): Record<string, string> {
  const timestamp = over.timestamp ?? unixSeconds();
  const nonce = over.nonce ?? newRequestNonce();
  return {
    'x-provider-api-key': key,
    'x-pp-timestamp': timestamp,
    'x-pp-nonce': nonce,
    'x-pp-signature':
      over.signature ?? signOperatorRequest(key, { timestamp, nonce, method, pathAndQuery, body }),
    ...(body ? { 'content-type': over.contentType ?? 'application/json' } : {}),
  };
}

/**
 * Hostile input against the running processes (operator-side requests on the API processes, the
 * players' on the game servers): replays across both API processes, skewed
 * timestamps, malformed signatures and nonces, cross-operator reads and launches through every
 * identifier, launch-token guessing and reuse after revocation, oversized and malformed bodies at
 * every endpoint, SVG and HTML injection through titles, artwork and return URLs. Each answer
 * must be the documented status, and none may leave a trace: no round, no journal row, no wallet
 * callback, no session or player beyond the legitimate launches the checks make themselves.
 */
export async function hostileInput(
  stack: ReliabilityStack,
  world: World,
  openings: Map<string, bigint>,
): Promise<{ checks: Check[]; facts: string[] }> {
  const [a, b] = world.operators as [OperatorSetup, OperatorSetup];
  const api1 = stack.apiOrigin(stack.apis[0]!);
  const api2 = stack.apiOrigin(stack.apis[1] ?? stack.apis[0]!);
  // The players' side (runtime routes, game pages) is the game servers'.
  const game1 = stack.gameOrigin(stack.games[0]!);
  const game2 = stack.gameOrigin(stack.games[1] ?? stack.games[0]!);
  const cases: Case[] = [];
  const add = (group: string, name: string, expect: number[], res: HttpResult, also?: string) =>
    cases.push({ group, name, expect, got: res.status, also });
  const started = new Date();
  // A tournament's prizes (issue 25) may be paid while this runs: promotional payouts are not
  // hostile traces (the promotion invariants check them).
  const wireCount = () =>
    readWireLog(stack.wireLogFile).filter(
      (w) =>
        w.operator_id !== SUSPENDED_OPERATOR &&
        !(typeof w.round_id === 'string' && isPromoPayout(w.round_id)),
    ).length;
  const wireBefore = wireCount();
  const counts = async () =>
    (
      await stack.pool.query<{ rounds: string; journal: string; stages: string }>(
        // The suspension case's own operator plays legitimate rounds; they are checked there.
        `SELECT (SELECT count(*) FROM rounds WHERE operator_id <> $1)::text AS rounds,
                (SELECT count(*) FROM wallet_transactions WHERE operator_id <> $1 AND round_id NOT LIKE 'pp\\_%')::text AS journal,
                (SELECT count(*) FROM round_stages s JOIN rounds r USING (round_id) WHERE r.operator_id <> $1)::text AS stages`,
        [SUSPENDED_OPERATOR],
      )
    ).rows[0]!;
  const before = await counts();
  const legitSessions = new Set<string>();
  const legitPlayers = new Set<string>();
  const slot = a.slots[0]!;
  const launchBody = (player: string, extra: Record<string, unknown> = {}) => ({
    symbol: slot.symbol,
    external_player_id: player,
    currency: 'EUR',
    ...extra,
  });
  const tag = randomBytes(3).toString('hex');
  const launchOk = async (op: OperatorSetup, player: string) => {
    const res = await signedCall(api1, op.key, 'POST', '/api/provider/v1/launch-url', launchBody(player));
    if (res.status !== 200) throw new Error(`legitimate launch: ${res.status} ${res.text}`);
    legitSessions.add(res.json.session_id);
    legitPlayers.add(player);
    return {
      sessionId: res.json.session_id as string,
      token: new URL(res.json.launch_url).searchParams.get('mgckey')!,
      url: res.json.launch_url as string,
    };
  };

  // ── Replayed signed requests (same nonce) against two API processes ───────────────────────
  {
    const player = `${a.operatorId}-${tag}-replay`;
    const raw = JSON.stringify(launchBody(player));
    const headers = signedHeaders(a.key, 'POST', '/api/provider/v1/launch-url', raw);
    const first = await http(api1, 'POST', '/api/provider/v1/launch-url', { headers, body: raw });
    add('replay', 'first use of a signed launch (api-1)', [200], first);
    if (first.status === 200) {
      legitSessions.add(first.json.session_id);
      legitPlayers.add(player);
    }
    const tokenHash = async () =>
      (
        await stack.pool.query(`SELECT token_hash FROM sessions WHERE session_id = $1`, [
          first.json?.session_id,
        ])
      ).rows[0]?.token_hash;
    const hashBefore = await tokenHash();
    add(
      'replay',
      'the same launch replayed on api-2',
      [401],
      await http(api2, 'POST', '/api/provider/v1/launch-url', { headers, body: raw }),
    );
    add(
      'replay',
      'the same launch replayed on api-1',
      [401],
      await http(api1, 'POST', '/api/provider/v1/launch-url', { headers, body: raw }),
    );
    cases.push({
      group: 'replay',
      name: 'a refused replay did not refresh the session token',
      expect: [1],
      got: (await tokenHash()) === hashBefore ? 1 : 0,
      count: true,
    });
    // Concurrent replays of one signed read on both processes: exactly one is answered.
    let exactlyOne = 0;
    const rounds = 20;
    for (let i = 0; i < rounds; i++) {
      const h = signedHeaders(a.key, 'GET', '/api/operator/v1/contract');
      const [x, y] = await Promise.all([
        http(api1, 'GET', '/api/operator/v1/contract', { headers: h }),
        http(api2, 'GET', '/api/operator/v1/contract', { headers: h }),
      ]);
      const statuses = [x.status, y.status].sort();
      if (statuses[0] === 200 && statuses[1] === 401) exactlyOne++;
    }
    cases.push({
      group: 'replay',
      name: `${rounds} simultaneous replays on both processes: exactly one answered each time`,
      expect: [rounds],
      got: exactlyOne,
      count: true,
    });
    // A concurrent replay of a launch creates one session at most.
    const player2 = `${a.operatorId}-${tag}-replay2`;
    const raw2 = JSON.stringify(launchBody(player2));
    const h2 = signedHeaders(a.key, 'POST', '/api/provider/v1/launch-url', raw2);
    const both = await Promise.all([
      http(api1, 'POST', '/api/provider/v1/launch-url', { headers: h2, body: raw2 }),
      http(api2, 'POST', '/api/provider/v1/launch-url', { headers: h2, body: raw2 }),
    ]);
    for (const r of both) {
      if (r.status === 200) {
        legitSessions.add(r.json.session_id);
        legitPlayers.add(player2);
      }
    }
    cases.push({
      group: 'replay',
      name: 'a launch replayed simultaneously on both processes: one 200 and one 401',
      expect: [1],
      got: both.filter((r) => r.status === 200).length === 1 && both.some((r) => r.status === 401) ? 1 : 0,
      count: true,
    });
  }

  // ── Skewed timestamps, malformed signatures and nonces ────────────────────────────────────
  {
    const targets: [string, string, string][] = [
      ['GET', '/api/provider/v1/games', ''],
      ['POST', '/api/provider/v1/launch-url', JSON.stringify(launchBody(`${a.operatorId}-${tag}-skew`))],
      ['GET', '/api/operator/v1/contract', ''],
    ];
    for (const [method, p, body] of targets) {
      const send = (over: Parameters<typeof signedWith>[4], sendBody = body, origin = api1) =>
        http(origin, method, p, {
          headers: signedWith(a.key, method, p, body, over),
          ...(sendBody ? { body: sendBody } : {}),
        });
      const now = Number(unixSeconds());
      add('skew', `${method} ${p}: timestamp 400 s old`, [401], await send({ timestamp: String(now - 400) }));
      add(
        'skew',
        `${method} ${p}: timestamp 400 s ahead`,
        [401],
        await send({ timestamp: String(now + 400) }, body, api2),
      );
      add(
        'skew',
        `${method} ${p}: timestamp in milliseconds`,
        [401],
        await send({ timestamp: String(Date.now()) }),
      );
      add('skew', `${method} ${p}: timestamp not a number`, [401], await send({ timestamp: '17e8' }));
      const good = (() => {
        const h = signedWith(a.key, method, p, body);
        return h['x-pp-signature']!;
      })();
      const sig = async (name: string, signature: string) =>
        add('signature', `${method} ${p}: ${name}`, [401], await send({ signature }));
      await sig('63 hex characters', good.slice(0, 63));
      await sig('65 hex characters', `${good}0`);
      await sig('64 characters outside hex', 'g'.repeat(64));
      await sig('base64 of a valid-looking MAC', createHmac('sha256', a.key).update('x').digest('base64'));
      await sig(
        'the other operator key',
        signOperatorRequest(b.key, {
          timestamp: unixSeconds(),
          nonce: newRequestNonce(),
          method,
          pathAndQuery: p,
          body,
        }),
      );
      await sig('empty', '');
      add(
        'signature',
        `${method} ${p}: nonce of 15 characters`,
        [401],
        await send({ nonce: 'n'.repeat(15) }),
      );
      add(
        'signature',
        `${method} ${p}: nonce of 129 characters`,
        [401],
        await send({ nonce: 'n'.repeat(129) }),
      );
      add(
        'signature',
        `${method} ${p}: nonce with a space`,
        [401],
        await send({ nonce: `nonce with space ${tag}xx` }),
      );
      add(
        'signature',
        `${method} ${p}: unsigned (signatures required)`,
        [401],
        await http(api1, method, p, {
          headers: { 'x-provider-api-key': a.key, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body } : {}),
        }),
      );
      if (body) {
        const tampered = body.replace('EUR', 'USD');
        add('signature', `${method} ${p}: body changed after signing`, [401], await send({}, tampered));
      }
      add(
        'signature',
        `${method} ${p}: unknown key`,
        [401],
        await http(api1, method, p, {
          headers: signedWith(`opk_${randomBytes(24).toString('hex')}`, method, p, body),
          ...(body ? { body } : {}),
        }),
      );
    }
  }

  // ── Cross-operator reads and launches through every identifier ────────────────────────────
  {
    const { rows } = await stack.pool.query<{
      round_id: string;
      session_id: string;
      external_player_id: string;
      symbol: string;
    }>(
      `SELECT r.round_id, r.session_id, p.external_player_id, r.symbol FROM rounds r JOIN players p ON p.player_id = r.player_id
       WHERE r.operator_id = $1 ORDER BY r.created_at LIMIT 1`,
      [a.operatorId],
    );
    const own = rows[0];
    if (!own) throw new Error('no round of the first operator to read across');
    const tx = `${own.round_id}:debit`;
    const read = (p: string) => signedCall(api2, b.key, 'GET', p);
    // Issue 34: another operator's record answers exactly as an unknown id (status and body).
    const unknownBody = (await read('/api/operator/v1/rounds/r_hostile_unknown')).text;
    const byId = (name: string, res: HttpResult) =>
      add('cross-operator', name, [404], res, res.text === unknownBody ? undefined : `body ${res.text}`);
    byId('session by id', await read(`/api/operator/v1/sessions/${own.session_id}`));
    byId('round by id', await read(`/api/operator/v1/rounds/${own.round_id}`));
    byId('transaction by id', await read(`/api/operator/v1/transactions/${tx}`));
    add(
      'cross-operator',
      'native history by session',
      [404],
      await read(`/api/provider/v1/native/history?session_id=${own.session_id}`),
    );
    add(
      'cross-operator',
      'native round history',
      [404],
      await read(`/api/provider/v1/native/history/${own.round_id}?session_id=${own.session_id}`),
    );
    for (const [name, q] of [
      ['transactions by round_id', `/api/operator/v1/transactions?round_id=${own.round_id}`],
      ['transactions by session_id', `/api/operator/v1/transactions?session_id=${own.session_id}`],
      ['transactions by player_id', `/api/operator/v1/transactions?player_id=${own.external_player_id}`],
      ['rounds by session_id', `/api/operator/v1/rounds?session_id=${own.session_id}`],
      ['rounds by player_id', `/api/operator/v1/rounds?player_id=${own.external_player_id}`],
    ] as const) {
      const res = await read(q);
      cases.push({
        group: 'cross-operator',
        name: `search ${name}: only the key's own records (none)`,
        expect: [200],
        got: res.status,
        also:
          res.status === 200 && res.json.data.items.length !== 0
            ? `${res.json.data.items.length} foreign items`
            : undefined,
      });
    }
    add(
      'cross-operator',
      'reconciliation naming the other operator',
      [403],
      await read(`/api/operator/v1/reconciliation?operator_id=${a.operatorId}`),
    );
    add(
      'cross-operator',
      'catalog naming the other operator (query)',
      [403],
      await read(`/api/provider/v1/games?operator_id=${a.operatorId}`),
    );
    add(
      'cross-operator',
      'catalog naming the other operator (x-operator-id)',
      [403],
      await http(api1, 'GET', '/api/provider/v1/games', {
        headers: { ...signedHeaders(b.key, 'GET', '/api/provider/v1/games'), 'x-operator-id': a.operatorId },
      }),
    );
    add(
      'cross-operator',
      'launch naming the other operator in the body',
      [403],
      await signedCall(api1, b.key, 'POST', '/api/provider/v1/launch-url', {
        ...launchBody(`${b.operatorId}-${tag}-x`),
        operator_id: a.operatorId,
      }),
    );
    add(
      'cross-operator',
      "launch of the other operator's player",
      [409],
      await signedCall(
        api1,
        b.key,
        'POST',
        '/api/provider/v1/launch-url',
        launchBody(own.external_player_id),
      ),
    );
    const refresh = await signedCall(api1, b.key, 'POST', '/api/provider/v1/player-balance-refresh', {
      external_player_id: own.external_player_id,
    });
    cases.push({
      group: 'cross-operator',
      name: "balance refresh of the other operator's player: finds nothing",
      expect: [200],
      got: refresh.status,
      also:
        refresh.status === 200 && refresh.json.sessions_found !== 0
          ? `found ${refresh.json.sessions_found}`
          : undefined,
    });
    add(
      'cross-operator',
      'an operator key on the admin API',
      [403],
      await signedCall(api1, b.key, 'GET', `/api/admin/v1/operators/${a.operatorId}`),
    );
  }

  // ── Launch-URL tokens: guessing, and reuse after revocation ───────────────────────────────
  {
    const guesses = 100;
    let refused = 0;
    for (let i = 0; i < guesses; i++) {
      const token = randomBytes(32).toString('base64url');
      const origin = i % 2 ? game1 : game2;
      const res =
        i % 3 === 0
          ? await http(origin, 'POST', '/api/runtime/spin', {
              headers: { 'x-session-token': token, 'content-type': 'application/json' },
              body: '{"bet_minor":10}',
            })
          : i % 3 === 1
            ? await http(origin, 'GET', '/api/runtime/session', {
                headers: { authorization: `Bearer ${token}` },
              })
            : await http(origin, 'GET', `/gs2c/html5Game.do?symbol=${slot.symbol}&mgckey=${token}`);
      if (res.status === 401) refused++;
    }
    cases.push({
      group: 'tokens',
      name: `${guesses} guessed tokens (spin, session, game page)`,
      expect: [guesses],
      got: refused,
      count: true,
    });
    add(
      'tokens',
      'a token longer than 128 characters',
      [401],
      await http(game1, 'GET', '/api/runtime/session', {
        headers: { 'x-session-token': 'a'.repeat(200) },
      }),
    );
    const player = `${a.operatorId}-${tag}-revoke`;
    const first = await launchOk(a, player);
    add(
      'tokens',
      'a fresh token opens the session',
      [200],
      await http(game2, 'GET', '/api/runtime/session', { headers: { 'x-session-token': first.token } }),
    );
    // Issue 24: the players' side and the operator side are apart.
    cases.push({
      group: 'split',
      name: `the launch URL names the game servers (${GAME_BASE_URL})`,
      expect: [1],
      got: first.url.startsWith(`${GAME_BASE_URL}/`) ? 1 : 0,
      count: true,
    });
    add(
      'split',
      'a player route on an API process: 404',
      [404],
      await http(api2, 'GET', '/api/runtime/session', { headers: { 'x-session-token': first.token } }),
    );
    add(
      'split',
      'a game page on an API process: 404',
      [404],
      await http(api1, 'GET', `/gs2c/html5Game.do?symbol=${slot.symbol}&mgckey=${first.token}`),
    );
    add(
      'split',
      'a signed provider read on a game server: 404',
      [404],
      await signedCall(game1, a.key, 'GET', '/api/provider/v1/games'),
    );
    const second = await launchOk(a, player);
    add(
      'tokens',
      'the old token after a relaunch (session)',
      [401],
      await http(game1, 'GET', '/api/runtime/session', { headers: { 'x-session-token': first.token } }),
    );
    add(
      'tokens',
      'the old token after a relaunch (spin)',
      [401],
      await http(game2, 'POST', '/api/runtime/spin', {
        headers: { 'x-session-token': first.token, 'content-type': 'application/json' },
        body: '{"bet_minor":10}',
      }),
    );
    add(
      'tokens',
      'the old token after a relaunch (game page)',
      [401],
      await http(game1, 'GET', `/gs2c/html5Game.do?symbol=${slot.symbol}&mgckey=${first.token}`),
    );
    add(
      'tokens',
      'the new token works',
      [200],
      await http(game1, 'GET', '/api/runtime/session', { headers: { 'x-session-token': second.token } }),
    );
    add(
      'tokens',
      'an edited symbol in the launch URL',
      [400],
      await http(game1, 'GET', `/gs2c/html5Game.do?symbol=%3Cscript%3E&mgckey=${second.token}`),
    );

    // ── Oversized and malformed bodies at every endpoint ────────────────────────────────────
    const big = JSON.stringify({ pad: 'x'.repeat(LIMIT + 1) });
    const huge = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    const endpoints: {
      name: string;
      method: string;
      path: string;
      key?: string;
      token?: string;
      /** The answer to a well-formed JSON body of the wrong shape (an array, null); none for reads. */
      shape: number[];
      /** The answer to a JSON body the route ignores (reads). */
      read?: number;
    }[] = [
      { name: 'launch-url', method: 'POST', path: '/api/provider/v1/launch-url', key: a.key, shape: [400] },
      {
        name: 'player-balance-refresh',
        method: 'POST',
        path: '/api/provider/v1/player-balance-refresh',
        key: a.key,
        shape: [400],
      },
      { name: 'games', method: 'GET', path: '/api/provider/v1/games', key: a.key, shape: [], read: 200 },
      {
        name: 'games/{symbol}',
        method: 'GET',
        path: `/api/provider/v1/games/${slot.symbol}`,
        key: a.key,
        shape: [],
        read: 200,
      },
      {
        name: 'native history',
        method: 'GET',
        path: `/api/provider/v1/native/history?session_id=${second.sessionId}`,
        key: a.key,
        shape: [],
        read: 404,
      },
      {
        name: 'contract',
        method: 'GET',
        path: '/api/operator/v1/contract',
        key: a.key,
        shape: [],
        read: 200,
      },
      {
        name: 'sessions/{id}',
        method: 'GET',
        path: `/api/operator/v1/sessions/${second.sessionId}`,
        key: a.key,
        shape: [],
        read: 200,
      },
      {
        name: 'transactions',
        method: 'GET',
        path: '/api/operator/v1/transactions',
        key: a.key,
        shape: [],
        read: 200,
      },
      { name: 'rounds', method: 'GET', path: '/api/operator/v1/rounds', key: a.key, shape: [], read: 200 },
      {
        name: 'reconciliation',
        method: 'GET',
        path: '/api/operator/v1/reconciliation',
        key: a.key,
        shape: [],
        read: 200,
      },
      {
        name: 'admin operators',
        method: 'POST',
        path: '/api/admin/v1/operators',
        key: ADMIN_KEY,
        shape: [422],
      },
      { name: 'runtime spin', method: 'POST', path: '/api/runtime/spin', token: second.token, shape: [422] },
      {
        name: 'runtime session',
        method: 'GET',
        path: '/api/runtime/session',
        token: second.token,
        shape: [],
        read: 200,
      },
    ];
    for (const e of endpoints) {
      const send = (body: string | Buffer, contentType = 'application/json') => {
        const bytes = typeof body === 'string' ? Buffer.from(body) : body;
        let headers: Record<string, string>;
        if (e.key) {
          // Signed over the exact bytes sent (invalid UTF-8 included): only the body is at fault.
          const timestamp = unixSeconds();
          const nonce = newRequestNonce();
          const sha = createHash('sha256').update(bytes).digest('hex');
          headers = {
            'x-provider-api-key': e.key,
            'x-pp-timestamp': timestamp,
            'x-pp-nonce': nonce,
            'x-pp-signature': createHmac('sha256', e.key)
              .update(['pp-operator-v1', timestamp, nonce, e.method, e.path, sha].join('\n'))
              .digest('hex'),
            'content-type': contentType,
          };
        } else {
          headers = { 'x-session-token': e.token!, 'content-type': contentType };
        }
        return http(e.token ? game1 : api1, e.method, e.path, { headers, body: bytes });
      };
      add('bodies', `${e.method} ${e.name}: body of 64 KiB + 1`, [413], await send(big));
      add('bodies', `${e.method} ${e.name}: body of 1 MiB`, [413], await send(huge));
      add('bodies', `${e.method} ${e.name}: truncated JSON`, [400], await send('{"symbol":'));
      add(
        'bodies',
        `${e.method} ${e.name}: invalid UTF-8`,
        [400],
        await send(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
      );
      add('bodies', `${e.method} ${e.name}: text/plain body`, [415], await send('{"a":1}', 'text/plain'));
      add(
        'bodies',
        `${e.method} ${e.name}: 5,000 nested arrays`,
        e.read !== undefined ? [e.read] : e.shape,
        await send(`${'['.repeat(5000)}${']'.repeat(5000)}`),
      );
      if (e.shape.length) {
        add('bodies', `${e.method} ${e.name}: a JSON array`, e.shape, await send('[]'));
        add('bodies', `${e.method} ${e.name}: JSON null`, e.shape, await send('null'));
      }
    }
    // Malformed fields where the shape is right.
    const spin = (body: unknown) =>
      http(game2, 'POST', '/api/runtime/spin', {
        headers: { 'x-session-token': second.token, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    add(
      'bodies',
      'spin: bet of 1e400',
      [422],
      await http(game2, 'POST', '/api/runtime/spin', {
        headers: { 'x-session-token': second.token, 'content-type': 'application/json' },
        body: '{"bet_minor":1e400}',
      }),
    );
    add('bodies', 'spin: negative bet', [422], await spin({ bet_minor: -10 }));
    add('bodies', 'spin: fractional bet', [422], await spin({ bet_minor: 1.5 }));
    add('bodies', 'spin: bet above the operator maximum', [422], await spin({ bet_minor: 100_001 }));
    add('bodies', 'spin: bet as a 30-digit string', [422], await spin({ bet_minor: '1'.repeat(30) }));
    add('bodies', 'spin: unknown mode', [422], await spin({ bet_minor: 10, mode: '<script>' }));
    add(
      'bodies',
      'launch: external_player_id of 65 characters',
      [422],
      await signedCall(api1, a.key, 'POST', '/api/provider/v1/launch-url', launchBody('p'.repeat(65))),
    );
    add(
      'bodies',
      'launch: surrounding whitespace in external_player_id',
      [422],
      await signedCall(api1, a.key, 'POST', '/api/provider/v1/launch-url', launchBody(' padded ')),
    );
    add(
      'bodies',
      'launch: currency of 4 letters',
      [422],
      await signedCall(
        api1,
        a.key,
        'POST',
        '/api/provider/v1/launch-url',
        launchBody(`${a.operatorId}-${tag}-c`, { currency: 'EURO' }),
      ),
    );
    add(
      'bodies',
      'launch: no external_player_id',
      [400],
      await signedCall(api1, a.key, 'POST', '/api/provider/v1/launch-url', { symbol: slot.symbol }),
    );
    add(
      'bodies',
      'launch: coin of -1',
      [422],
      await signedCall(
        api1,
        a.key,
        'POST',
        '/api/provider/v1/launch-url',
        launchBody(`${a.operatorId}-${tag}-c`, { coin: -1 }),
      ),
    );
  }

  // ── SVG and HTML injection through titles, artwork and return URLs ────────────────────────
  {
    const player = `${a.operatorId}-${tag}-inject`;
    for (const [name, url] of [
      ['javascript: URL', 'javascript:alert(1)'],
      ['data: URL with a script', 'data:text/html,<script>alert(1)</script>'],
      ['credentials in the URL', 'https://user:pass@casino.example/lobby'],
      ['a control character', 'https://casino.example/lob\u0007by'],
      ['a relative URL', '//evil.example/"><script>alert(1)</script>'],
    ] as const) {
      add(
        'injection',
        `return_url with ${name}`,
        [422],
        await signedCall(
          api1,
          a.key,
          'POST',
          '/api/provider/v1/launch-url',
          launchBody(player, { return_url: url }),
        ),
      );
    }
    // An accepted return URL carrying markup: the page must carry it escaped, never as markup.
    const markup = 'https://casino.example/lobby?x="><svg/onload=alert(1)><script>alert(2)</script>';
    const res = await signedCall(
      api1,
      a.key,
      'POST',
      '/api/provider/v1/launch-url',
      launchBody(player, { return_url: markup }),
    );
    if (res.status === 200) {
      legitSessions.add(res.json.session_id);
      legitPlayers.add(player);
      const token = new URL(res.json.launch_url).searchParams.get('mgckey')!;
      const page = await http(game2, 'GET', `/gs2c/html5Game.do?symbol=${slot.symbol}&mgckey=${token}`);
      const live = liveMarkup(page.text.replace(/<script src="\/gs2c\/static\/[^"]*"[^>]*><\/script>/g, ''));
      const raw = live !== undefined || page.text.includes('"><svg');
      cases.push({
        group: 'injection',
        name: 'a return URL carrying markup is accepted only escaped: the page holds no live markup',
        expect: [200],
        got: page.status,
        also: raw
          ? 'unescaped markup in the page'
          : !String(page.headers['content-security-policy'] ?? '').includes("script-src 'self'")
            ? 'no strict CSP'
            : undefined,
      });
    } else {
      add('injection', 'return_url carrying markup', [200, 422], res);
    }
    const title = encodeURIComponent('</title><svg onload=alert(1)><script>alert(1)</script><foreignObject>');
    // A title the catalog does not have (a known symbol's artwork uses the catalog's own title).
    const art = await http(
      api1,
      'GET',
      `/api/provider/v1/game-art/rel-unknown-${tag}?title=${title}&provider_id=%22%3E%3Cscript%3E`,
    );
    const type = String(art.headers['content-type'] ?? '');
    cases.push({
      group: 'injection',
      name: 'artwork fallback with markup in its title: an escaped SVG under a no-script CSP',
      expect: [200],
      got: art.status,
      also:
        liveMarkup(art.text) !== undefined || !type.includes('svg') || !art.text.includes('&lt;')
          ? 'unescaped markup in the SVG'
          : !String(art.headers['content-security-policy'] ?? '').includes("default-src 'none'")
            ? 'no CSP on the SVG'
            : undefined,
    });
    add(
      'injection',
      'artwork of a symbol carrying markup',
      [404],
      await http(api1, 'GET', '/api/provider/v1/game-art/%3Csvg%20onload%3Dalert(1)%3E'),
    );
    for (const [name, svg] of [
      ['a script element', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
      ['an event handler', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect/></svg>'],
      [
        'an external reference',
        '<svg xmlns="http://www.w3.org/2000/svg"><image href="https://evil.example/x.png"/></svg>',
      ],
      [
        'foreignObject HTML',
        '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><iframe src="javascript:alert(1)"/></foreignObject></svg>',
      ],
    ] as const) {
      const p = `/api/admin/v1/games/${slot.symbol}/artwork`;
      const r = await http(api1, 'PUT', p, {
        headers: { ...signedWith(ADMIN_KEY, 'PUT', p, svg), 'content-type': 'image/svg+xml' },
        body: svg,
      });
      add('injection', `artwork upload with ${name}`, [422], r);
    }
  }

  // ── Security (issue 23): forwarded addresses, suspension, streams, bodies, wallet URLs ─────
  const security = await securityCases(
    stack,
    world,
    tag,
    { sessions: legitSessions, players: legitPlayers },
    openings,
  );

  // ── No trace ───────────────────────────────────────────────────────────────────────────────
  const after = await counts();
  const { rows: newSessions } = await stack.pool.query<{ session_id: string }>(
    `SELECT session_id FROM sessions WHERE created_at >= $1`,
    [started],
  );
  const { rows: newPlayers } = await stack.pool.query<{ external_player_id: string }>(
    `SELECT external_player_id FROM players WHERE created_at >= $1`,
    [started],
  );
  const strayTrace = [
    ...(after.rounds !== before.rounds ? [`rounds ${before.rounds} → ${after.rounds}`] : []),
    ...(after.journal !== before.journal ? [`journal rows ${before.journal} → ${after.journal}`] : []),
    ...(after.stages !== before.stages ? [`round stages ${before.stages} → ${after.stages}`] : []),
    ...newSessions.filter((s) => !legitSessions.has(s.session_id)).map((s) => `session ${s.session_id}`),
    ...newPlayers
      .filter((p) => !legitPlayers.has(p.external_player_id))
      .map((p) => `player ${p.external_player_id}`),
  ];
  const wireAfter = wireCount();
  if (wireAfter !== wireBefore) strayTrace.push(`${wireAfter - wireBefore} wallet callbacks`);

  const checks: Check[] = [];
  const groups = [...new Set(cases.map((c) => c.group))];
  for (const g of groups) {
    const list = cases.filter((c) => c.group === g);
    const bad = list.filter((c) => !c.expect.includes(c.got) || c.also);
    checks.push({
      name: `hostile input: ${g}`,
      ok: bad.length === 0,
      detail: bad.length
        ? bad
            .map(
              (c) => `${c.name}: expected ${c.expect.join('/')}, got ${c.got}${c.also ? ` (${c.also})` : ''}`,
            )
            .join('; ')
        : `${list.length} cases, each the documented answer`,
    });
  }
  checks.push({
    name: 'hostile input left no trace (no round, journal row, stage, wallet callback, stray session or player)',
    ok: strayTrace.length === 0,
    detail: strayTrace.length
      ? strayTrace.slice(0, 10).join('; ')
      : `${cases.length} hostile requests; ${legitSessions.size} legitimate sessions only`,
  });
  for (const g of [...new Set(security.map((c) => c.group))]) {
    const list = security.filter((c) => c.group === g);
    const bad = list.filter((c) => !c.ok);
    checks.push({
      name: `hostile input: security, ${g}`,
      ok: bad.length === 0,
      detail: bad.length
        ? bad.map((c) => `${c.name}: ${c.detail}`).join('; ')
        : list.map((c) => `${c.name} (${c.detail})`).join('; '),
    });
  }
  const byStatus: Record<number, number> = {};
  for (const c of cases) if (!c.count) byStatus[c.got] = (byStatus[c.got] ?? 0) + 1;
  return {
    checks,
    facts: [
      `${cases.length} hostile cases, answers ${JSON.stringify(byStatus)}`,
      `${security.length} security cases (issue 23), ${security.filter((c) => c.ok).length} answered as documented`,
    ],
  };
}
