import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { rebuildRankSnapshots } from '@opi/play/promotions/rank-snapshots';
import { assign, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';
import {
  ReadLimiter,
  TOURNAMENT_READS_PER_WINDOW,
  TOURNAMENT_READS_WINDOW_MS,
  tournamentReads,
} from './tournaments.js';

/*
 * Issue 34 point 8 on the game server: `GET /api/runtime/tournaments` places a player outside the
 * top ten from the published rank snapshot (their live score against it), and one session's reads
 * are limited (429 with Retry-After past TOURNAMENT_READS_PER_WINDOW in the window), against the
 * real services on a real database.
 */

const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const OPERATOR = 'op_trk';
const T = 'trk-cup';
let h: Harness;
let key: string;

before(async () => {
  h = await startApi();
  key = (await createOperator(h.base, OPERATOR)).key;
  await assign(h.base, OPERATOR, [slot.symbol]);
  // The tournament as the admin API stores it (its workflow is not needed here).
  await h.db.pool.query(
    `INSERT INTO tournaments (tournament_id, name, scoring, starts_at, ends_at, status)
     VALUES ($1, 'Rank Cup', 'total_win', now() - interval '1 minute', now() + interval '1 hour', 'running')`,
    [T],
  );
  await h.db.pool.query(`INSERT INTO tournament_titles VALUES ($1, $2)`, [T, slot.symbol]);
  await h.db.pool.query(`INSERT INTO tournament_operators VALUES ($1, $2, true)`, [T, OPERATOR]);
  await h.db.pool.query(`INSERT INTO tournament_currencies VALUES ($1, 'EUR', 100)`, [T]);
  await h.db.pool.query(`INSERT INTO tournament_prizes VALUES ($1, 'EUR', 1, 5000)`, [T]);
});
after(() => h?.close());

async function launch(player: string) {
  const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
    key,
    body: { symbol: slot.symbol, external_player_id: player, currency: 'EUR' },
  });
  assert.equal(res.status, 200, res.text);
  const { rows } = await h.db.pool.query<{ player_id: string }>(
    `SELECT player_id FROM sessions WHERE session_id = $1`,
    [res.json.session_id],
  );
  return {
    token: new URL(res.json.launch_url).searchParams.get('mgckey')!,
    playerId: rows[0]!.player_id,
  };
}
const read = (token: string) =>
  call(h.game, 'GET', '/api/runtime/tournaments', { headers: { 'x-session-token': token } });

/** A score as the scoring trigger writes it. */
async function score(ext: string, playerId: string, points: number, at: string) {
  await h.db.pool.query(
    `INSERT INTO tournament_scores (tournament_id, currency, operator_id, external_player_id, player_id, scoring,
                                    score, score_reached_at, best_round_id, last_round_id, last_session_id,
                                    last_game_symbol, rounds_counted)
     VALUES ($1, 'EUR', $2, $3, $4, 'total_win', $5, $6, 'r', 'r', 's', $7, 1)
     ON CONFLICT (tournament_id, currency, operator_id, external_player_id)
       DO UPDATE SET score = EXCLUDED.score, score_reached_at = EXCLUDED.score_reached_at`,
    [T, OPERATOR, ext, playerId, points, at, slot.symbol],
  );
}

test('a player outside the top ten: their place from the snapshot, their own score live', async () => {
  // 30 others, scores 3000 down to 100; the player ties with the 20th at 1100, a second later.
  for (let k = 1; k <= 30; k++) {
    const other = await launch(`trk-o${k}`);
    await score(`trk-o${k}`, other.playerId, 3100 - k * 100, '2026-01-01 00:00:00+00');
  }
  const me = await launch('trk-me');
  await score('trk-me', me.playerId, 1100, '2026-01-01 00:00:01+00');
  assert.ok((await rebuildRankSnapshots(h.db.pool, { force: true })).rebuilt);
  const first = await read(me.token);
  assert.equal(first.status, 200, first.text);
  const t = first.json.tournaments[0];
  assert.equal(t.tournament_id, T);
  assert.equal(t.top.length, 10);
  assert.ok(t.top.every((r: { own: boolean }) => !r.own));
  assert.deepEqual(t.me, { rank: 21, score: '1100.00000000' });
  // Risen above five others since the snapshot (1550: behind the 15 at 1600 and more): placed at once.
  await score('trk-me', me.playerId, 1550, '2026-01-01 00:00:02+00');
  assert.deepEqual((await read(me.token)).json.tournaments[0].me, { rank: 16, score: '1550.00000000' });
});

test(`one session reads at most ${TOURNAMENT_READS_PER_WINDOW} times in ${TOURNAMENT_READS_WINDOW_MS / 1000} s, then 429 with Retry-After`, async () => {
  const a = await launch('trk-flood');
  const b = await launch('trk-calm');
  for (let i = 0; i < TOURNAMENT_READS_PER_WINDOW; i++) {
    const res = await read(a.token);
    assert.equal(res.status, 200, `read ${i + 1}: ${res.text}`);
  }
  const refused = await read(a.token);
  assert.equal(refused.status, 429);
  assert.equal(refused.json.error, 'tournament_reads_limited');
  assert.match(refused.json.detail, /Too many tournament reads for this session/);
  const retry = Number(refused.headers.get('retry-after'));
  assert.ok(retry >= 1 && retry <= TOURNAMENT_READS_WINDOW_MS / 1000, `Retry-After ${retry}`);
  assert.ok(refused.json.retry_after_ms > 0 && refused.json.retry_after_ms <= TOURNAMENT_READS_WINDOW_MS);
  // Another session is not held back.
  assert.equal((await read(b.token)).status, 200);
});

test('the page reading at its pace (start, every 3 s, 300 ms after each spin) stays within the limit', () => {
  // A spin at most every 0.7 s (the reels' least time, game.js) for a minute: the page's reads.
  let now = 0;
  const limiter = new ReadLimiter(TOURNAMENT_READS_PER_WINDOW, TOURNAMENT_READS_WINDOW_MS, () => now);
  const reads = [0];
  for (let t = 3000; t <= 60_000; t += 3000) reads.push(t);
  for (let t = 1000; t <= 60_000; t += 700) reads.push(t + 300);
  reads.sort((x, y) => x - y);
  for (const at of reads) {
    now = at;
    assert.equal(limiter.take('page'), 0, `the read at ${at} ms`);
  }
});

test('the window slides: a refused session may read again once its oldest read is out', () => {
  let now = 1_000_000;
  const limiter = new ReadLimiter(3, 10_000, () => now, 2);
  assert.equal(limiter.take('s'), 0);
  now += 4_000;
  assert.equal(limiter.take('s'), 0);
  assert.equal(limiter.take('s'), 0);
  assert.equal(limiter.take('s'), 6_000);
  now += 6_000;
  assert.equal(limiter.take('s'), 0);
  // Past its size the limiter forgets idle sessions first, then the oldest.
  assert.equal(limiter.take('t'), 0);
  assert.equal(limiter.take('u'), 0);
  assert.equal(limiter.take('s'), 0, 's was forgotten: it starts again');
  assert.ok(tournamentReads.limit === TOURNAMENT_READS_PER_WINDOW);
});
