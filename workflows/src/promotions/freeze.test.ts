import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import {
  OPERATOR_ID,
  type PlayerSession,
  SERVICE_SECRET,
  type SettlementEnv,
  startSettlementEnv,
} from '../test-support/settlement-env.js';
import { createPromotionActivities } from './activities.js';

// The end of a tournament against rounds being recorded at the same moment (real PostgreSQL): a
// round counted before the end is always in the frozen leaderboard, even when its transaction
// commits during the freeze; one recorded while the freeze holds the tournament never counts.
let env: SettlementEnv;
let acts: ReturnType<typeof createPromotionActivities>;

before(async () => {
  env = await startSettlementEnv();
  acts = createPromotionActivities({
    pool: env.pool,
    box: createSecretBox(SERVICE_SECRET),
    walletTimeoutMs: 2_000,
    stuckAfterAttempts: 3,
    requireHttps: false,
  });
});
after(() => env?.close());

/** A tournament on t_slot_a that ends in `endsInMs`, op_settle opted in, one prize per rank. */
async function tournament(endsInMs: number): Promise<{ id: string; endsAt: number }> {
  const id = `fz-${randomUUID().slice(0, 8)}`;
  const { rows } = await env.pool.query<{ ends_at: Date }>(
    `INSERT INTO tournaments (tournament_id, name, scoring, starts_at, ends_at, status)
     VALUES ($1, 'Freeze', 'total_win', now() - interval '1 hour', now() + $2 * interval '1 millisecond', 'running')
     RETURNING ends_at`,
    [id, endsInMs],
  );
  await env.pool.query(`INSERT INTO tournament_titles VALUES ($1, 't_slot_a')`, [id]);
  await env.pool.query(
    `INSERT INTO tournament_operators (tournament_id, operator_id, opted_in) VALUES ($1, $2, true)`,
    [id, OPERATOR_ID],
  );
  await env.pool.query(`INSERT INTO tournament_currencies VALUES ($1, 'EUR', 1)`, [id]);
  await env.pool.query(`INSERT INTO tournament_prizes VALUES ($1, 'EUR', 1, 700), ($1, 'EUR', 2, 300)`, [id]);
  return { id, endsAt: rows[0]!.ends_at.getTime() };
}

async function openRound(p: PlayerSession, win: number): Promise<string> {
  const intent = await env.newRound(p, { stakeMinor: 100, winMinor: win });
  return intent.roundId;
}

const settleSql = `UPDATE rounds SET status = 'completed', settled_at = now(), win_minor = $2 WHERE round_id = $1`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a round counted before the end, committing during the freeze, is in the frozen leaderboard', async () => {
  const t = await tournament(1_500);
  const p = await env.newPlayer({ family: 'prov_a' });
  const roundId = await openRound(p, 500);
  const c = await env.pool.connect();
  try {
    await c.query('BEGIN');
    await c.query(settleSql, [roundId, 500]);
    // The round is counted but not committed; the tournament ends; the freeze must wait for it.
    await sleep(Math.max(0, t.endsAt - Date.now()) + 100);
    let done = false;
    const freeze = acts.freezeTournament({ tournamentId: t.id }).finally(() => {
      done = true;
    });
    await sleep(500);
    assert.equal(done, false, 'the freeze waits for the round being recorded');
    await c.query('COMMIT');
    const frozen = await freeze;
    assert.equal(frozen.status, 'ended');
    assert.equal(frozen.payoutIds.length, 1);
  } finally {
    c.release();
  }
  const { rows } = await env.pool.query(
    `SELECT rank, external_player_id, score::text, prize_minor::text, payout_id FROM tournament_standings
      WHERE tournament_id = $1`,
    [t.id],
  );
  assert.equal(rows.length, 1);
  assert.deepEqual(
    [rows[0].rank, rows[0].external_player_id, rows[0].score, rows[0].prize_minor],
    [1, p.externalId, '500.00000000', '700'],
  );
  const { rows: payouts } = await env.pool.query(
    `SELECT payout_id, amount_minor::text, rank, session_id, game_symbol, status FROM promo_payouts WHERE promo_id = $1`,
    [t.id],
  );
  assert.deepEqual(payouts, [
    {
      payout_id: rows[0].payout_id,
      amount_minor: '700',
      rank: 1,
      session_id: p.sessionId,
      game_symbol: 't_slot_a',
      status: 'pending',
    },
  ]);
  // A repeat freeze changes nothing and answers the same payouts.
  assert.deepEqual(await acts.freezeTournament({ tournamentId: t.id }), {
    status: 'ended',
    payoutIds: [rows[0].payout_id],
  });
});

test('a round recorded while the freeze holds the tournament does not count, though it began before the end', async () => {
  const t = await tournament(1_500);
  const p = await env.newPlayer({ family: 'prov_a' });
  const roundId = await openRound(p, 900);
  const freezer = await env.pool.connect();
  const late = await env.pool.connect();
  try {
    // The round's transaction begins before the end (its time, now(), is before ends_at).
    await late.query('BEGIN');
    await late.query('SELECT now()');
    await sleep(Math.max(0, t.endsAt - Date.now()) + 100);
    // A freeze in progress: the tournament's lock held, the row set ended, not yet committed.
    await freezer.query('BEGIN');
    await freezer.query(`SELECT pg_advisory_xact_lock(21, hashtext($1))`, [t.id]);
    let recorded = false;
    const recording = late.query(settleSql, [roundId, 900]).then(() => {
      recorded = true;
    });
    await sleep(300);
    assert.equal(recorded, false, 'the round waits for the freeze');
    await freezer.query(
      `UPDATE tournaments SET status = 'ended', frozen_at = now() WHERE tournament_id = $1`,
      [t.id],
    );
    await freezer.query('COMMIT');
    await recording;
    await late.query('COMMIT');
  } finally {
    freezer.release();
    late.release();
  }
  const { rows } = await env.pool.query(
    `SELECT count(*)::int AS n FROM tournament_scores WHERE tournament_id = $1`,
    [t.id],
  );
  assert.equal(rows[0].n, 0);
  const { rows: round } = await env.pool.query(`SELECT status FROM rounds WHERE round_id = $1`, [roundId]);
  assert.equal(round[0].status, 'completed', 'the round itself is recorded');
});

test('a freeze before the end (by the database clock) is refused and retried; a cancelled tournament freezes nothing', async () => {
  const t = await tournament(60_000);
  await assert.rejects(acts.freezeTournament({ tournamentId: t.id }), /has not ended yet/);
  await env.pool.query(
    `UPDATE tournaments SET status = 'cancelled', cancelled_at = now() WHERE tournament_id = $1`,
    [t.id],
  );
  assert.deepEqual(await acts.freezeTournament({ tournamentId: t.id }), {
    status: 'cancelled',
    payoutIds: [],
  });
  assert.equal(await acts.markTournamentPaid({ tournamentId: t.id }), 'cancelled');
});
