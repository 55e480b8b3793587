import { createHash, createHmac, randomBytes } from 'node:crypto';
import { newRequestNonce, signOperatorRequest, unixSeconds } from '@opi/signing';
import type { Check } from './checks.js';
import {
  type Launched,
  launchLegitimately,
  type SecurityCase,
  SUSPENDED_OPERATOR,
  securityCases,
} from './hostile-security.js';
import { type HttpResult, http, signedCall, signedHeaders } from './http.js';
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

/** One hostile request of a table: what it is, the answers it may get, and how it is sent. */
type Probe = readonly [name: string, expect: number[], send: () => Promise<HttpResult>];

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

/** What every part of the hostile input works with: the processes, the operators, the record. */
interface Hostile {
  stack: ReliabilityStack;
  a: OperatorSetup;
  b: OperatorSetup;
  api1: string;
  api2: string;
  game1: string;
  game2: string;
  /** A slot title of the first operator. */
  slot: OperatorSetup['slots'][number];
  /** Names this run's players apart from earlier runs'. */
  tag: string;
  cases: Case[];
  /** The sessions and players the parts make on purpose (not traces). */
  legit: { sessions: Set<string>; players: Set<string> };
  add(group: string, name: string, expect: number[], res: HttpResult, also?: string): void;
  /** Sends each probe in turn and records its answer under `group`. */
  probe(group: string, probes: readonly Probe[]): Promise<void>;
  launchBody(player: string, extra?: Record<string, unknown>): Record<string, unknown>;
  /** A launch that must succeed (its session and player are then legitimate). */
  launchOk(op: OperatorSetup, player: string): Promise<Launched>;
}

function hostileContext(stack: ReliabilityStack, world: World): Hostile {
  const [a, b] = world.operators as [OperatorSetup, OperatorSetup];
  const cases: Case[] = [];
  const legit = { sessions: new Set<string>(), players: new Set<string>() };
  const slot = a.slots[0]!;
  const api1 = stack.apiOrigin(stack.apis[0]!);
  const add = (group: string, name: string, expect: number[], res: HttpResult, also?: string) => {
    cases.push({ group, name, expect, got: res.status, also });
  };
  const launchBody = (player: string, extra: Record<string, unknown> = {}) => ({
    symbol: slot.symbol,
    external_player_id: player,
    currency: 'EUR',
    ...extra,
  });
  return {
    stack,
    a,
    b,
    api1,
    api2: stack.apiOrigin(stack.apis[1] ?? stack.apis[0]!),
    // The players' side (runtime routes, game pages) is the game servers'.
    game1: stack.gameOrigin(stack.games[0]!),
    game2: stack.gameOrigin(stack.games[1] ?? stack.games[0]!),
    slot,
    tag: randomBytes(3).toString('hex'),
    cases,
    legit,
    add,
    async probe(group, probes) {
      for (const [name, expect, send] of probes) add(group, name, expect, await send());
    },
    launchBody,
    launchOk: (op, player) => launchLegitimately(api1, op, launchBody(player), legit),
  };
}

// ---------------------------------------------------------------------------------------------
// The parts, each named for what it checks

/** Replayed signed requests (the same nonce) against the two API processes. */
async function replayedRequests(h: Hostile): Promise<void> {
  const { stack, a, api1, api2, tag, cases, legit } = h;
  const player = `${a.operatorId}-${tag}-replay`;
  const raw = JSON.stringify(h.launchBody(player));
  const headers = signedHeaders(a.key, 'POST', '/api/provider/v1/launch-url', raw);
  const first = await http(api1, 'POST', '/api/provider/v1/launch-url', { headers, body: raw });
  h.add('replay', 'first use of a signed launch (api-1)', [200], first);
  if (first.status === 200) {
    legit.sessions.add(first.json.session_id);
    legit.players.add(player);
  }
  const tokenHash = async () =>
    (
      await stack.pool.query(`SELECT token_hash FROM sessions WHERE session_id = $1`, [
        first.json?.session_id,
      ])
    ).rows[0]?.token_hash;
  const hashBefore = await tokenHash();
  await h.probe('replay', [
    [
      'the same launch replayed on api-2',
      [401],
      () => http(api2, 'POST', '/api/provider/v1/launch-url', { headers, body: raw }),
    ],
    [
      'the same launch replayed on api-1',
      [401],
      () => http(api1, 'POST', '/api/provider/v1/launch-url', { headers, body: raw }),
    ],
  ]);
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
    const hd = signedHeaders(a.key, 'GET', '/api/operator/v1/contract');
    const [x, y] = await Promise.all([
      http(api1, 'GET', '/api/operator/v1/contract', { headers: hd }),
      http(api2, 'GET', '/api/operator/v1/contract', { headers: hd }),
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
  const raw2 = JSON.stringify(h.launchBody(player2));
  const h2 = signedHeaders(a.key, 'POST', '/api/provider/v1/launch-url', raw2);
  const both = await Promise.all([
    http(api1, 'POST', '/api/provider/v1/launch-url', { headers: h2, body: raw2 }),
    http(api2, 'POST', '/api/provider/v1/launch-url', { headers: h2, body: raw2 }),
  ]);
  for (const r of both) {
    if (r.status === 200) {
      legit.sessions.add(r.json.session_id);
      legit.players.add(player2);
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

/** Skewed timestamps, malformed signatures and nonces, on a read, a launch and the contract. */
async function skewedAndMalformedSignatures(h: Hostile): Promise<void> {
  const { a, b, api1, api2, tag } = h;
  const targets: [string, string, string][] = [
    ['GET', '/api/provider/v1/games', ''],
    ['POST', '/api/provider/v1/launch-url', JSON.stringify(h.launchBody(`${a.operatorId}-${tag}-skew`))],
    ['GET', '/api/operator/v1/contract', ''],
  ];
  for (const [method, p, body] of targets) {
    const send = (over: Parameters<typeof signedWith>[4], sendBody = body, origin = api1) =>
      http(origin, method, p, {
        headers: signedWith(a.key, method, p, body, over),
        ...(sendBody ? { body: sendBody } : {}),
      });
    const now = Number(unixSeconds());
    const at = `${method} ${p}`;
    await h.probe('skew', [
      [`${at}: timestamp 400 s old`, [401], () => send({ timestamp: String(now - 400) })],
      [`${at}: timestamp 400 s ahead`, [401], () => send({ timestamp: String(now + 400) }, body, api2)],
      [`${at}: timestamp in milliseconds`, [401], () => send({ timestamp: String(Date.now()) })],
      [`${at}: timestamp not a number`, [401], () => send({ timestamp: '17e8' })],
    ]);
    const good = signedWith(a.key, method, p, body)['x-pp-signature']!;
    const signature = (name: string, sig: () => string): Probe => [
      `${at}: ${name}`,
      [401],
      () => send({ signature: sig() }),
    ];
    // A body changed after signing (launch only: the reads have none).
    const tampered: Probe[] = body
      ? [[`${at}: body changed after signing`, [401], () => send({}, body.replace('EUR', 'USD'))]]
      : [];
    await h.probe('signature', [
      signature('63 hex characters', () => good.slice(0, 63)),
      signature('65 hex characters', () => `${good}0`),
      signature('64 characters outside hex', () => 'g'.repeat(64)),
      signature('base64 of a valid-looking MAC', () =>
        createHmac('sha256', a.key).update('x').digest('base64'),
      ),
      signature('the other operator key', () =>
        signOperatorRequest(b.key, {
          timestamp: unixSeconds(),
          nonce: newRequestNonce(),
          method,
          pathAndQuery: p,
          body,
        }),
      ),
      signature('empty', () => ''),
      [`${at}: nonce of 15 characters`, [401], () => send({ nonce: 'n'.repeat(15) })],
      [`${at}: nonce of 129 characters`, [401], () => send({ nonce: 'n'.repeat(129) })],
      [`${at}: nonce with a space`, [401], () => send({ nonce: `nonce with space ${tag}xx` })],
      [
        `${at}: unsigned (signatures required)`,
        [401],
        () =>
          http(api1, method, p, {
            headers: { 'x-provider-api-key': a.key, ...(body ? { 'content-type': 'application/json' } : {}) },
            ...(body ? { body } : {}),
          }),
      ],
      ...tampered,
      [
        `${at}: unknown key`,
        [401],
        () =>
          http(api1, method, p, {
            headers: signedWith(`opk_${randomBytes(24).toString('hex')}`, method, p, body),
            ...(body ? { body } : {}),
          }),
      ],
    ]);
  }
}

/**
 * Cross-operator reads and launches through every identifier: another operator's record answers
 * exactly as an unknown id (issue 34), searches find none of its records, naming it is 403.
 */
async function crossOperatorReads(h: Hostile): Promise<void> {
  const { stack, a, b, api1, api2, tag, cases } = h;
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
  for (const [name, p] of [
    ['session by id', `/api/operator/v1/sessions/${own.session_id}`],
    ['round by id', `/api/operator/v1/rounds/${own.round_id}`],
    ['transaction by id', `/api/operator/v1/transactions/${tx}`],
  ] as const) {
    const res = await read(p);
    h.add('cross-operator', name, [404], res, res.text === unknownBody ? undefined : `body ${res.text}`);
  }
  await h.probe('cross-operator', [
    [
      'native history by session',
      [404],
      () => read(`/api/provider/v1/native/history?session_id=${own.session_id}`),
    ],
    [
      'native round history',
      [404],
      () => read(`/api/provider/v1/native/history/${own.round_id}?session_id=${own.session_id}`),
    ],
  ]);
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
  await h.probe('cross-operator', [
    [
      'reconciliation naming the other operator',
      [403],
      () => read(`/api/operator/v1/reconciliation?operator_id=${a.operatorId}`),
    ],
    [
      'catalog naming the other operator (query)',
      [403],
      () => read(`/api/provider/v1/games?operator_id=${a.operatorId}`),
    ],
    [
      'catalog naming the other operator (x-operator-id)',
      [403],
      () =>
        http(api1, 'GET', '/api/provider/v1/games', {
          headers: {
            ...signedHeaders(b.key, 'GET', '/api/provider/v1/games'),
            'x-operator-id': a.operatorId,
          },
        }),
    ],
    [
      'launch naming the other operator in the body',
      [403],
      () =>
        signedCall(api1, b.key, 'POST', '/api/provider/v1/launch-url', {
          ...h.launchBody(`${b.operatorId}-${tag}-x`),
          operator_id: a.operatorId,
        }),
    ],
    [
      "launch of the other operator's player",
      [409],
      () =>
        signedCall(api1, b.key, 'POST', '/api/provider/v1/launch-url', h.launchBody(own.external_player_id)),
    ],
  ]);
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
  await h.probe('cross-operator', [
    [
      'an operator key on the admin API',
      [403],
      () => signedCall(api1, b.key, 'GET', `/api/admin/v1/operators/${a.operatorId}`),
    ],
  ]);
}

/**
 * Launch-URL tokens: guessed ones, one too long, and the old one after a relaunch; with the
 * service split (issue 24: the launch URL names the game servers, neither side serves the other's
 * routes). Answers the relaunched session, whose token the body checks use.
 */
async function launchTokens(h: Hostile): Promise<Launched> {
  const { a, api1, api2, game1, game2, slot, tag, cases } = h;
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
  await h.probe('tokens', [
    [
      'a token longer than 128 characters',
      [401],
      () =>
        http(game1, 'GET', '/api/runtime/session', {
          headers: { 'x-session-token': 'a'.repeat(200) },
        }),
    ],
  ]);
  const player = `${a.operatorId}-${tag}-revoke`;
  const first = await h.launchOk(a, player);
  await h.probe('tokens', [
    [
      'a fresh token opens the session',
      [200],
      () => http(game2, 'GET', '/api/runtime/session', { headers: { 'x-session-token': first.token } }),
    ],
  ]);
  // Issue 24: the players' side and the operator side are apart.
  cases.push({
    group: 'split',
    name: `the launch URL names the game servers (${GAME_BASE_URL})`,
    expect: [1],
    got: first.url.startsWith(`${GAME_BASE_URL}/`) ? 1 : 0,
    count: true,
  });
  await h.probe('split', [
    [
      'a player route on an API process: 404',
      [404],
      () => http(api2, 'GET', '/api/runtime/session', { headers: { 'x-session-token': first.token } }),
    ],
    [
      'a game page on an API process: 404',
      [404],
      () => http(api1, 'GET', `/gs2c/html5Game.do?symbol=${slot.symbol}&mgckey=${first.token}`),
    ],
    [
      'a signed provider read on a game server: 404',
      [404],
      () => signedCall(game1, a.key, 'GET', '/api/provider/v1/games'),
    ],
  ]);
  const second = await h.launchOk(a, player);
  await h.probe('tokens', [
    [
      'the old token after a relaunch (session)',
      [401],
      () => http(game1, 'GET', '/api/runtime/session', { headers: { 'x-session-token': first.token } }),
    ],
    [
      'the old token after a relaunch (spin)',
      [401],
      () =>
        http(game2, 'POST', '/api/runtime/spin', {
          headers: { 'x-session-token': first.token, 'content-type': 'application/json' },
          body: '{"bet_minor":10}',
        }),
    ],
    [
      'the old token after a relaunch (game page)',
      [401],
      () => http(game1, 'GET', `/gs2c/html5Game.do?symbol=${slot.symbol}&mgckey=${first.token}`),
    ],
    [
      'the new token works',
      [200],
      () => http(game1, 'GET', '/api/runtime/session', { headers: { 'x-session-token': second.token } }),
    ],
    [
      'an edited symbol in the launch URL',
      [400],
      () => http(game1, 'GET', `/gs2c/html5Game.do?symbol=%3Cscript%3E&mgckey=${second.token}`),
    ],
  ]);
  return second;
}

/** An endpoint the body checks send to: signed with `key`, or a runtime route with `token`. */
interface BodyEndpoint {
  name: string;
  method: string;
  path: string;
  key?: string;
  token?: string;
  /** The answer to a well-formed JSON body of the wrong shape (an array, null); none for reads. */
  shape: number[];
  /** The answer to a JSON body the route ignores (reads). */
  read?: number;
}

/** Every endpoint the body checks cover, with its answers. */
function bodyEndpoints(h: Hostile, session: Launched): BodyEndpoint[] {
  const { a, slot } = h;
  return [
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
      path: `/api/provider/v1/native/history?session_id=${session.sessionId}`,
      key: a.key,
      shape: [],
      read: 404,
    },
    { name: 'contract', method: 'GET', path: '/api/operator/v1/contract', key: a.key, shape: [], read: 200 },
    {
      name: 'sessions/{id}',
      method: 'GET',
      path: `/api/operator/v1/sessions/${session.sessionId}`,
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
    { name: 'runtime spin', method: 'POST', path: '/api/runtime/spin', token: session.token, shape: [422] },
    {
      name: 'runtime session',
      method: 'GET',
      path: '/api/runtime/session',
      token: session.token,
      shape: [],
      read: 200,
    },
  ];
}

/** Sends a body to an endpoint, signed over the exact bytes sent (invalid UTF-8 included). */
function sendBodyTo(h: Hostile, e: BodyEndpoint) {
  return (body: string | Buffer, contentType = 'application/json') => {
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
    return http(e.token ? h.game1 : h.api1, e.method, e.path, { headers, body: bytes });
  };
}

/** Oversized and malformed bodies at every endpoint, then malformed fields where the shape is right. */
async function malformedBodies(h: Hostile, session: Launched): Promise<void> {
  const { a, api1, game2, slot, tag } = h;
  const big = JSON.stringify({ pad: 'x'.repeat(LIMIT + 1) });
  const huge = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
  for (const e of bodyEndpoints(h, session)) {
    const send = sendBodyTo(h, e);
    const at = `${e.method} ${e.name}`;
    // Well-formed JSON of the wrong shape, where the route takes a body.
    const wrongShapes: Probe[] = e.shape.length
      ? [
          [`${at}: a JSON array`, e.shape, () => send('[]')],
          [`${at}: JSON null`, e.shape, () => send('null')],
        ]
      : [];
    await h.probe('bodies', [
      [`${at}: body of 64 KiB + 1`, [413], () => send(big)],
      [`${at}: body of 1 MiB`, [413], () => send(huge)],
      [`${at}: truncated JSON`, [400], () => send('{"symbol":')],
      [`${at}: invalid UTF-8`, [400], () => send(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]))],
      [`${at}: text/plain body`, [415], () => send('{"a":1}', 'text/plain')],
      [
        `${at}: 5,000 nested arrays`,
        e.read !== undefined ? [e.read] : e.shape,
        () => send(`${'['.repeat(5000)}${']'.repeat(5000)}`),
      ],
      ...wrongShapes,
    ]);
  }
  // Malformed fields where the shape is right.
  const spinRaw = (body: string) =>
    http(game2, 'POST', '/api/runtime/spin', {
      headers: { 'x-session-token': session.token, 'content-type': 'application/json' },
      body,
    });
  const spin = (body: unknown) => spinRaw(JSON.stringify(body));
  const launch = (body: unknown) => signedCall(api1, a.key, 'POST', '/api/provider/v1/launch-url', body);
  await h.probe('bodies', [
    ['spin: bet of 1e400', [422], () => spinRaw('{"bet_minor":1e400}')],
    ['spin: negative bet', [422], () => spin({ bet_minor: -10 })],
    ['spin: fractional bet', [422], () => spin({ bet_minor: 1.5 })],
    ['spin: bet above the operator maximum', [422], () => spin({ bet_minor: 100_001 })],
    ['spin: bet as a 30-digit string', [422], () => spin({ bet_minor: '1'.repeat(30) })],
    ['spin: unknown mode', [422], () => spin({ bet_minor: 10, mode: '<script>' })],
    ['launch: external_player_id of 65 characters', [422], () => launch(h.launchBody('p'.repeat(65)))],
    ['launch: surrounding whitespace in external_player_id', [422], () => launch(h.launchBody(' padded '))],
    [
      'launch: currency of 4 letters',
      [422],
      () => launch(h.launchBody(`${a.operatorId}-${tag}-c`, { currency: 'EURO' })),
    ],
    ['launch: no external_player_id', [400], () => launch({ symbol: slot.symbol })],
    ['launch: coin of -1', [422], () => launch(h.launchBody(`${a.operatorId}-${tag}-c`, { coin: -1 }))],
  ]);
}

/** SVG and HTML injection through return URLs, artwork titles and symbols, and artwork uploads. */
async function injection(h: Hostile): Promise<void> {
  const { a, api1, game2, slot, tag, cases, legit } = h;
  const player = `${a.operatorId}-${tag}-inject`;
  const launch = (body: unknown) => signedCall(api1, a.key, 'POST', '/api/provider/v1/launch-url', body);
  await h.probe(
    'injection',
    (
      [
        ['javascript: URL', 'javascript:alert(1)'],
        ['data: URL with a script', 'data:text/html,<script>alert(1)</script>'],
        ['credentials in the URL', 'https://user:pass@casino.example/lobby'],
        ['a control character', 'https://casino.example/lob\u0007by'],
        ['a relative URL', '//evil.example/"><script>alert(1)</script>'],
      ] as const
    ).map(
      ([name, url]): Probe => [
        `return_url with ${name}`,
        [422],
        () => launch(h.launchBody(player, { return_url: url })),
      ],
    ),
  );
  // An accepted return URL carrying markup: the page must carry it escaped, never as markup.
  const markup = 'https://casino.example/lobby?x="><svg/onload=alert(1)><script>alert(2)</script>';
  const res = await launch(h.launchBody(player, { return_url: markup }));
  if (res.status === 200) {
    legit.sessions.add(res.json.session_id);
    legit.players.add(player);
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
    h.add('injection', 'return_url carrying markup', [200, 422], res);
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
  const upload = (svg: string) => {
    const p = `/api/admin/v1/games/${slot.symbol}/artwork`;
    return http(api1, 'PUT', p, {
      headers: { ...signedWith(ADMIN_KEY, 'PUT', p, svg), 'content-type': 'image/svg+xml' },
      body: svg,
    });
  };
  await h.probe('injection', [
    [
      'artwork of a symbol carrying markup',
      [404],
      () => http(api1, 'GET', '/api/provider/v1/game-art/%3Csvg%20onload%3Dalert(1)%3E'),
    ],
    ...(
      [
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
      ] as const
    ).map(([name, svg]): Probe => [`artwork upload with ${name}`, [422], () => upload(svg)]),
  ]);
}

// ---------------------------------------------------------------------------------------------
// No trace, and the checks

/** The database's and the wire log's counts a hostile request must leave as they were. */
function traceCounter(stack: ReliabilityStack) {
  // A tournament's prizes (issue 25) may be paid while this runs: promotional payouts are not
  // hostile traces (the promotion invariants check them).
  const wire = () =>
    readWireLog(stack.wireLogFile).filter(
      (w) =>
        w.operator_id !== SUSPENDED_OPERATOR &&
        !(typeof w.round_id === 'string' && isPromoPayout(w.round_id)),
    ).length;
  const rows = async () =>
    (
      await stack.pool.query<{ rounds: string; journal: string; stages: string }>(
        // The suspension case's own operator plays legitimate rounds; they are checked there.
        `SELECT (SELECT count(*) FROM rounds WHERE operator_id <> $1)::text AS rounds,
                (SELECT count(*) FROM wallet_transactions WHERE operator_id <> $1 AND round_id NOT LIKE 'pp\\_%')::text AS journal,
                (SELECT count(*) FROM round_stages s JOIN rounds r USING (round_id) WHERE r.operator_id <> $1)::text AS stages`,
        [SUSPENDED_OPERATOR],
      )
    ).rows[0]!;
  return { wire, rows };
}

/** What the hostile input left behind: rows, sessions and players beyond the legitimate ones. */
async function strayTraces(
  h: Hostile,
  counter: ReturnType<typeof traceCounter>,
  before: Awaited<ReturnType<ReturnType<typeof traceCounter>['rows']>>,
  wireBefore: number,
  started: Date,
): Promise<string[]> {
  const { stack, legit } = h;
  const after = await counter.rows();
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
    ...newSessions.filter((s) => !legit.sessions.has(s.session_id)).map((s) => `session ${s.session_id}`),
    ...newPlayers
      .filter((p) => !legit.players.has(p.external_player_id))
      .map((p) => `player ${p.external_player_id}`),
  ];
  const wireAfter = counter.wire();
  if (wireAfter !== wireBefore) strayTrace.push(`${wireAfter - wireBefore} wallet callbacks`);
  return strayTrace;
}

/** One check per group of cases: every case its documented answer. */
function caseChecks(cases: Case[]): Check[] {
  return [...new Set(cases.map((c) => c.group))].map((g) => {
    const list = cases.filter((c) => c.group === g);
    const bad = list.filter((c) => !c.expect.includes(c.got) || c.also);
    return {
      name: `hostile input: ${g}`,
      ok: bad.length === 0,
      detail: bad.length
        ? bad
            .map(
              (c) => `${c.name}: expected ${c.expect.join('/')}, got ${c.got}${c.also ? ` (${c.also})` : ''}`,
            )
            .join('; ')
        : `${list.length} cases, each the documented answer`,
    };
  });
}

/** One check per group of the security cases (issue 23). */
function securityChecks(security: SecurityCase[]): Check[] {
  return [...new Set(security.map((c) => c.group))].map((g) => {
    const list = security.filter((c) => c.group === g);
    const bad = list.filter((c) => !c.ok);
    return {
      name: `hostile input: security, ${g}`,
      ok: bad.length === 0,
      detail: bad.length
        ? bad.map((c) => `${c.name}: ${c.detail}`).join('; ')
        : list.map((c) => `${c.name} (${c.detail})`).join('; '),
    };
  });
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
  const h = hostileContext(stack, world);
  const started = new Date();
  const counter = traceCounter(stack);
  const wireBefore = counter.wire();
  const before = await counter.rows();

  await replayedRequests(h);
  await skewedAndMalformedSignatures(h);
  await crossOperatorReads(h);
  const relaunched = await launchTokens(h);
  await malformedBodies(h, relaunched);
  await injection(h);
  // Security (issue 23): forwarded addresses, suspension, streams, bodies, wallet URLs.
  const security = await securityCases(stack, world, h.tag, h.legit, openings);

  const strayTrace = await strayTraces(h, counter, before, wireBefore, started);
  const { cases, legit } = h;
  const checks: Check[] = [
    ...caseChecks(cases),
    {
      name: 'hostile input left no trace (no round, journal row, stage, wallet callback, stray session or player)',
      ok: strayTrace.length === 0,
      detail: strayTrace.length
        ? strayTrace.slice(0, 10).join('; ')
        : `${cases.length} hostile requests; ${legit.sessions.size} legitimate sessions only`,
    },
    ...securityChecks(security),
  ];
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
