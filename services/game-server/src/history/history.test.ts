import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { checkReplayLink, SHARE_LINK_TTL_SECONDS } from '@opi/signing';
import { call, GAME_BASE_URL, type Harness, TEST_REPLAY_KEYS } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { historySql } from './history.js';

// GET /api/runtime/history (issue 26, docs/game-pages.md "History panel") on the real stack: the
// session's own player's rounds with the session's operator, newest first, over 90 days, for the
// page's title or all titles, in keyset pages, each with its signed replay link; and its plan: a
// range of one index, never a scan of rounds. Rounds are written with SQL (their times are set
// into the past); playing them through the pages is the browser test's (history.browser.test.ts).
const OP = 'op_hist_api';
const OTHER_OP = 'op_hist_other';
const slots = CATALOG.filter((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted');
const TITLE = slots[0]!.symbol;
const OTHER_TITLE = slots[1]!.symbol;

let w: PlayWorld;
let h: Harness;

before(async () => {
  w = await startPlayWorld({
    temporal: false,
    operators: [
      { id: OP, titles: [TITLE, OTHER_TITLE] },
      { id: OTHER_OP, titles: [TITLE, OTHER_TITLE] },
    ],
  });
  h = w.h;
});
after(() => w.close());

interface Launched {
  token: string;
  sessionId: string;
  playerId: string;
}
async function launch(operatorId: string, symbol: string, external: string): Promise<Launched> {
  const l = await w.launch(w.operators[operatorId]!.key, {
    symbol,
    external_player_id: external,
    currency: 'EUR',
  });
  const { rows } = await h.db.pool.query<{ player_id: string }>(
    `SELECT player_id FROM sessions WHERE session_id = $1`,
    [l.sessionId],
  );
  return { token: l.token!, sessionId: l.sessionId, playerId: rows[0]!.player_id };
}

let seq = 0;
/** One round of the session's player (or another operator's, when `operatorId` says), `ageMs` ago. */
async function round(
  s: Launched,
  opts: {
    symbol?: string;
    ageMs?: number;
    operatorId?: string;
    bet?: number;
    win?: number;
    jackpot?: number;
    status?: string;
    freeRound?: boolean;
    /** The round's debit in the journal: applied (default for a paid round that is not open), pending, or none. */
    debit?: 'success' | 'pending' | 'none';
  } = {},
): Promise<string> {
  const id = `hist-r-${process.pid}-${++seq}`;
  const status = opts.status ?? 'completed';
  await h.db.pool.query(
    `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                         bet_minor, win_minor, jackpot_win_minor, free_round_campaign_id, free_round_bet_minor,
                         intent, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'prov_a', 'EUR', $6, $7, $8, $9, $10, $11, '{}'::jsonb,
             now() - make_interval(secs => $12::double precision / 1000), now())`,
    [
      id,
      opts.operatorId ?? OP,
      s.sessionId,
      s.playerId,
      opts.symbol ?? TITLE,
      opts.status ?? 'completed',
      opts.freeRound ? 0 : (opts.bet ?? 100),
      opts.win ?? 0,
      opts.jackpot ?? 0,
      opts.freeRound ? 'camp-hist' : null,
      opts.freeRound ? (opts.bet ?? 100) : null,
      opts.ageMs ?? 0,
    ],
  );
  const debit = opts.debit ?? (opts.freeRound || ['open', 'rejected'].includes(status) ? 'none' : 'success');
  if (debit !== 'none') {
    const body = JSON.stringify({ transaction_id: `${id}:debit` });
    await h.db.pool.query(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
                                        transaction_type, amount_minor, currency, status, request_body, request_hash,
                                        attempts)
       VALUES ($1, $2, $3, $4, 'hist-player', $5, 'debit', $6, 'EUR', $7, $8, $9, 1)`,
      [
        `${id}:debit`,
        opts.operatorId ?? OP,
        s.sessionId,
        id,
        opts.symbol ?? TITLE,
        opts.bet ?? 100,
        debit,
        body,
        createHash('sha256').update(body).digest('hex'),
      ],
    );
  }
  return id;
}

const history = (token: string | undefined, query = '') =>
  call(h.game, 'GET', `/api/runtime/history${query}`, token ? { headers: { 'x-session-token': token } } : {});
const DAY = 86_400_000;

test('the own player only, this title by default, 90 days, newest first, with stake, win and the replay link', async () => {
  const me = await launch(OP, TITLE, 'hist-me-1');
  const other = await launch(OP, TITLE, 'hist-other-1');
  const older = await round(me, { ageMs: 5 * DAY, bet: 200, win: 500 });
  const jackpot = await round(me, { ageMs: 2 * DAY, bet: 100, win: 40, jackpot: 10_000 });
  const free = await round(me, { ageMs: 1 * DAY, bet: 100, win: 250, freeRound: true });
  const pending = await round(me, { ageMs: 1000, status: 'open' });
  await round(me, { ageMs: 89 * DAY + 23 * 3_600_000 }); // inside the window
  const outside = await round(me, { ageMs: 91 * DAY });
  const otherTitle = await round(me, { symbol: OTHER_TITLE, ageMs: 3 * DAY });
  const othersRound = await round(other, { ageMs: 1000 });
  // The same player's id under another operator: never this operator's history.
  const otherOperator = await round(me, { operatorId: OTHER_OP, ageMs: 1000 });

  const res = await history(me.token);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.json.scope, 'title');
  assert.equal(res.json.symbol, TITLE);
  assert.equal(res.json.window_days, 90);
  assert.equal(res.json.next_before, null);
  const ids = res.json.rounds.map((r: { round_id: string }) => r.round_id);
  assert.equal(ids.length, 5, JSON.stringify(ids));
  assert.deepEqual(ids.slice(0, 4), [pending, free, jackpot, older], 'newest first');
  for (const absent of [outside, otherTitle, othersRound, otherOperator])
    assert.ok(!ids.includes(absent), `${absent} is not listed`);

  const byId = new Map(res.json.rounds.map((r: { round_id: string }) => [r.round_id, r]));
  const o = byId.get(older) as Record<string, unknown>;
  const game = await h.db.pool.query(`SELECT title FROM games WHERE symbol = $1`, [TITLE]);
  assert.equal(o.title, game.rows[0].title);
  assert.equal(o.status, 'completed');
  assert.equal(o.currency, 'EUR');
  assert.equal(o.stake_minor, '200');
  assert.equal(o.stake, '2.00');
  assert.equal(o.win_minor, '500');
  assert.equal(o.win, '5.00');
  assert.equal(o.free_round, false);
  assert.match(String(o.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.ok(Math.abs(Date.parse(String(o.created_at)) - (Date.now() - 5 * DAY)) < 60_000);
  const j = byId.get(jackpot) as Record<string, unknown>;
  assert.equal(j.win_minor, '10040', 'the win includes the jackpot win');
  assert.equal(j.jackpot_win_minor, '10000');
  const f = byId.get(free) as Record<string, unknown>;
  assert.equal(f.free_round, true);
  assert.equal(f.stake_minor, '0');
  assert.equal(f.free_round_stake_minor, '100');
  assert.equal((byId.get(pending) as Record<string, unknown>).status, 'open');

  // The replay link (issue 34): a share link made for this read, ten minutes, on the game origin,
  // signed for this round with the replay links' key; never the permanent details link.
  const url = new URL(String(o.replay_url));
  assert.equal(url.origin, GAME_BASE_URL);
  assert.equal(url.pathname, `/replay/${older}`);
  assert.deepEqual([...url.searchParams.keys()], ['k', 'iat', 'exp', 'sig']);
  const params = Object.fromEntries(url.searchParams);
  const verified = checkReplayLink(TEST_REPLAY_KEYS, older, params);
  assert.ok(verified.ok && verified.kind === 'share', JSON.stringify(verified));
  assert.equal(verified.expiresAt?.toISOString(), res.json.replay_expires_at);
  assert.equal(Number(params.exp) - Number(params.iat), SHARE_LINK_TTL_SECONDS);
  assert.ok(Math.abs(Number(params.iat) * 1000 - Date.now()) < 60_000, 'issued by this read');
  assert.deepEqual(checkReplayLink(TEST_REPLAY_KEYS, older, params, Number(params.exp) * 1000), {
    ok: false,
    reason: 'expired',
  });

  // The other player sees only their own round.
  const theirs = await history(other.token);
  assert.deepEqual(
    theirs.json.rounds.map((r: { round_id: string }) => r.round_id),
    [othersRound],
  );
});

test('no last look (issue 34): a jackpot win is not listed until the round’s debit is applied', async () => {
  const me = await launch(OP, TITLE, 'hist-me-lastlook');
  // Open, its debit held by the wallet (pending): the hit is written, the result is not told.
  const held = await round(me, { status: 'open', bet: 100, jackpot: 7_000, debit: 'pending' });
  const row = async () =>
    ((await history(me.token)).json.rounds as Record<string, unknown>[]).find((r) => r.round_id === held)!;
  assert.deepEqual(
    [(await row()).status, (await row()).win_minor, (await row()).jackpot_win_minor],
    ['open', '0', '0'],
  );
  // The debit applied (the round still open: its credit follows): the jackpot win is shown.
  await h.db.pool.query(`UPDATE wallet_transactions SET status = 'success' WHERE transaction_id = $1`, [
    `${held}:debit`,
  ]);
  const after = await row();
  assert.deepEqual([after.win_minor, after.jackpot_win_minor], ['7000', '7000']);
});

test('scope=all lists every title of the player with this operator; scope=title only the page’s', async () => {
  const me = await launch(OP, TITLE, 'hist-me-2');
  const a = await round(me, { symbol: TITLE, ageMs: 3000 });
  const b = await round(me, { symbol: OTHER_TITLE, ageMs: 2000 });
  const c = await round(me, { symbol: TITLE, ageMs: 1000 });
  await round(me, { symbol: OTHER_TITLE, operatorId: OTHER_OP, ageMs: 500 });
  await round(me, { symbol: OTHER_TITLE, ageMs: 100 * DAY });
  const all = await history(me.token, '?scope=all');
  assert.equal(all.status, 200, all.text);
  assert.equal(all.json.scope, 'all');
  assert.deepEqual(
    all.json.rounds.map((r: { round_id: string }) => r.round_id),
    [c, b, a],
  );
  assert.deepEqual(
    all.json.rounds.map((r: { symbol: string }) => r.symbol),
    [TITLE, OTHER_TITLE, TITLE],
  );
  const title = await history(me.token, '?scope=title');
  assert.deepEqual(
    title.json.rounds.map((r: { round_id: string }) => r.round_id),
    [c, a],
  );
  // The other title's page sees its own.
  const there = await launch(OP, OTHER_TITLE, 'hist-me-2');
  const onOther = await history(there.token);
  assert.deepEqual(
    onOther.json.rounds.map((r: { round_id: string }) => r.round_id),
    [b],
  );
});

test('keyset pages: limit and before walk every round once, newest first, also rounds of one instant', async () => {
  const me = await launch(OP, TITLE, 'hist-me-3');
  const made: string[] = [];
  for (let i = 0; i < 7; i++) made.push(await round(me, { ageMs: (7 - i) * 60_000 }));
  // Two rounds at the very same instant: the round id orders them.
  await h.db.pool.query(
    `UPDATE rounds SET created_at = (SELECT created_at FROM rounds WHERE round_id = $1) WHERE round_id = $2`,
    [made[3], made[4]],
  );
  const expected = [...made].reverse();
  [expected[2], expected[3]] = [made[3]!, made[4]!].sort().reverse() as [string, string];
  const seen: string[] = [];
  let before: string | null = null;
  let pages = 0;
  do {
    const res = await history(me.token, `?limit=3${before ? `&before=${before}` : ''}`);
    assert.equal(res.status, 200, res.text);
    assert.ok(res.json.rounds.length <= 3);
    seen.push(...res.json.rounds.map((r: { round_id: string }) => r.round_id));
    before = res.json.next_before;
    pages++;
  } while (before && pages < 10);
  assert.equal(pages, 3);
  assert.deepEqual(seen, expected);
  const big = await history(me.token, '?limit=50');
  assert.equal(big.json.rounds.length, 7);
  assert.equal(big.json.next_before, null);
});

test('a bad query is 400 JSON; no token, a wrong token or an ended session is 401', async () => {
  const me = await launch(OP, TITLE, 'hist-me-4');
  for (const q of [
    '?scope=mine',
    '?scope=',
    '?limit=0',
    '?limit=51',
    '?limit=abc',
    '?limit=1.5',
    '?limit=-1',
    '?before=not-a-cursor!',
    `?before=${Buffer.from('yesterday r1').toString('base64url')}`,
    `?before=${Buffer.from('2026-01-01T00:00:00.000000Z').toString('base64url')}`,
    '?scope=all&scope=title',
    '?limit=5&limit=6',
    '?page=2',
  ]) {
    const res = await history(me.token, q);
    assert.equal(res.status, 400, `${q}: ${res.text}`);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.ok(Array.isArray(res.json.detail), `${q}: ${res.text}`);
  }
  assert.equal((await history(undefined)).status, 401);
  assert.equal((await history('guessed-token-0000000000000000000000000000000')).status, 401);
  await h.db.pool.query(`UPDATE sessions SET status = 'closed' WHERE session_id = $1`, [me.sessionId]);
  const ended = await history(me.token);
  assert.equal(ended.status, 401);
  assert.match(ended.headers.get('content-type') ?? '', /application\/json/);
});

test('the plan: one index range read backwards for either scope, never a scan of rounds (200,000 rounds)', async () => {
  const me = await launch(OP, TITLE, 'hist-me-plan');
  // 2,000 other players with 100 rounds each over 120 days and two titles, and this player with
  // 2,000 rounds, most of them of the other title.
  await h.db.pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope)
     SELECT 'hist-fill-p' || i, $1, 'hist-fill-' || i, 'global' FROM generate_series(1, 2000) i`,
    [OP],
  );
  await h.db.pool.query(
    `INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency)
     SELECT 'hist-fill-s' || i, $1, 'hist-fill-p' || i, $2, 'prov_a', 'EUR' FROM generate_series(1, 2000) i`,
    [OP, TITLE],
  );
  await h.db.pool.query(
    `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                         bet_minor, win_minor, intent, created_at)
     SELECT 'hist-fill-r' || n, $1, 'hist-fill-s' || (n % 2000 + 1), 'hist-fill-p' || (n % 2000 + 1),
            CASE WHEN n % 3 = 0 THEN $2 ELSE $3 END, 'prov_a', 'EUR', 'completed', 100, n % 250, '{}'::jsonb,
            now() - make_interval(secs => (n * 51.84)::double precision)
     FROM generate_series(1, 198000) n`,
    [OP, TITLE, OTHER_TITLE],
  );
  await h.db.pool.query(
    `INSERT INTO rounds (round_id, operator_id, session_id, player_id, symbol, provider_id, currency, status,
                         bet_minor, win_minor, intent, created_at)
     SELECT 'hist-plan-r' || n, $1, $2, $3, CASE WHEN n % 20 = 0 THEN $4 ELSE $5 END, 'prov_a', 'EUR',
            'completed', 100, 0, '{}'::jsonb, now() - make_interval(secs => n * 3600)
     FROM generate_series(1, 2000) n`,
    [OP, me.sessionId, me.playerId, TITLE, OTHER_TITLE],
  );
  await h.db.pool.query('ANALYZE rounds');
  const client = await h.db.pool.connect();
  try {
    await client.query('SET enable_seqscan = on');
    const plans: Record<string, string> = {};
    for (const scope of ['title', 'all'] as const) {
      for (const paged of [false, true]) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${historySql(scope, paged)}`,
          [
            OP,
            me.playerId,
            scope === 'title' ? TITLE : null,
            paged ? '2026-11-01T00:00:00.000000Z' : null,
            paged ? 'zzzz' : null,
            21,
          ],
        );
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        plans[`${scope}${paged ? ' paged' : ''}`] = plan;
        assert.doesNotMatch(plan, /Seq Scan on rounds/, plan);
        assert.doesNotMatch(plan, /Bitmap Heap Scan on rounds/, plan);
        assert.doesNotMatch(plan, /Sort\b/, `no sort: the index gives the order\n${plan}`);
        assert.match(
          plan,
          scope === 'title'
            ? /Index Scan Backward using rounds_player_title_history on rounds/
            : /Index Scan Backward using rounds_operator_player on rounds/,
          plan,
        );
      }
    }
    if (process.env.HISTORY_PLAN_LOG) {
      // The docs' comparison: one title without migration 24's index (dropped in a transaction).
      await client.query('BEGIN');
      await client.query('DROP INDEX rounds_player_title_history');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${historySql('title', false)}`,
        [OP, me.playerId, TITLE, null, null, 21],
      );
      await client.query('ROLLBACK');
      plans['title without rounds_player_title_history'] = rows.map((r) => r['QUERY PLAN']).join('\n');
      for (const [name, plan] of Object.entries(plans)) console.log(`-- ${name}\n${plan}\n`);
    }
  } finally {
    client.release();
  }
  // And the route answers the heavy player's pages from it.
  const res = await history(me.token, '?limit=50');
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.rounds.length, 50);
  assert.ok(res.json.rounds.every((r: { symbol: string }) => r.symbol === TITLE));
});
