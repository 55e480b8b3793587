import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import { OP_A, OP_B, slot, type World } from './world.js';

/*
 * Jackpots, tournaments and prize drops for the staff tests (issue 25), made the way the provider
 * makes them (the admin API) and played through the real game server:
 * - `stf-jp`: op_staff_a's own jackpot whose mini level hits on every spin (hit_every_minor 1);
 * - `stf-drop`: a prize drop whose every qualifying spin wins (award_every_spins 1), op_staff_a in;
 * - `stf-live` (ends tomorrow) and `stf-short` (ends SHORT_MS after the seed starts): total-win
 *   tournaments op_staff_a takes part in, with a rival of op_staff_b whose score is written in SQL
 *   (op_staff_b's wallet refuses the platform's signature, so its players cannot play; its prize
 *   stays pending);
 * - one player of op_staff_a spinning until a round fed the jackpot, won the drop and scored.
 * `seedPromotions` returns once the short tournament is frozen and the player's prize, hits and
 * award are paid.
 */
export const JACKPOT = 'stf-jp';
export const DROP = 'stf-drop';
// The tournaments' ids name their workflows (`tournament-<id>`) and their payouts' on the Temporal
// server that every test file of a run shares: each file seeds its own.
const RUN = randomUUID().slice(0, 8);
export const LIVE = `stf-live-${RUN}`;
export const SHORT = `stf-short-${RUN}`;
const SHORT_MS = 25_000;
const RIVAL_SCORE = 900_000;

export interface Seeded {
  player: string;
  rival: string;
  /** Every round the player spun, oldest first, and the ones that fed the jackpot. */
  rounds: string[];
  hitRounds: string[];
  /** The round that won the drop and its payout. */
  dropRound: string;
  dropPayout: string;
  /** The player's total win in the tournaments (minor units). */
  score: bigint;
}

const admin = (w: World, method: string, path: string, body?: unknown) =>
  call(w.h.base, method, `/api/admin/v1${path}`, {
    key: ADMIN_KEY,
    sign: true,
    ...(body === undefined ? {} : { body }),
  });

async function ok(res: Promise<{ status: number; text: string }>, ...expected: number[]) {
  const r = await res;
  assert.ok(expected.includes(r.status), r.text);
}

export function tournamentBody(name: string, startsAt: number, endsAt: number) {
  return {
    name,
    scoring: 'total_win',
    starts_at: new Date(startsAt).toISOString(),
    ends_at: new Date(endsAt).toISOString(),
    titles: [slot.symbol],
    currencies: { EUR: { min_stake_minor: 100, prizes: [3_000, 1_000] } },
  };
}

export async function seedPromotions(w: World): Promise<Seeded> {
  const now = Date.now();
  const shortEnds = now + SHORT_MS;
  await ok(
    admin(w, 'PUT', `/tournaments/${SHORT}`, tournamentBody('Short sprint', now - 60_000, shortEnds)),
    201,
  );
  await ok(
    admin(w, 'PUT', `/tournaments/${LIVE}`, tournamentBody('Weekly race', now - 60_000, now + 86_400_000)),
    201,
  );
  for (const t of [SHORT, LIVE])
    await ok(admin(w, 'PUT', `/tournaments/${t}/operators/${OP_A}`, { enabled: true }), 200);
  await ok(admin(w, 'PUT', `/tournaments/${LIVE}/operators/${OP_B}`, { enabled: true }), 200);
  await ok(
    admin(w, 'PUT', `/jackpots/${JACKPOT}`, {
      name: 'Staff jackpot',
      scope: 'operator',
      operator_id: OP_A,
      titles: [slot.symbol],
      levels: [
        {
          level: 'mini',
          contribution_rate_ppm: 10_000,
          currencies: { EUR: { seed_minor: 500, hit_every_minor: 1 } },
        },
        {
          level: 'mega',
          contribution_rate_ppm: 5_000,
          currencies: { EUR: { seed_minor: 100_000, hit_every_minor: '1000000000000000' } },
        },
      ],
    }),
    201,
  );
  await ok(
    admin(w, 'PUT', `/prize-drops/${DROP}`, {
      name: 'Staff drop',
      starts_at: new Date(now - 60_000).toISOString(),
      ends_at: new Date(now + 86_400_000).toISOString(),
      titles: [slot.symbol],
      currencies: { EUR: { prize_minor: 250, prizes: 5, min_stake_minor: 100, award_every_spins: 1 } },
    }),
    201,
  );
  await ok(admin(w, 'PUT', `/prize-drops/${DROP}/operators/${OP_A}`, { enabled: true }), 200);

  // The rival of op_staff_b: a player row and a score on both boards (as the scoring trigger writes it).
  const rival = `stf-rival-${randomUUID().slice(0, 8)}`;
  const rivalPk = `p_${randomUUID()}`;
  const pool = w.h.db.pool;
  await pool.query(
    `INSERT INTO players (player_id, operator_id, external_player_id, scope) VALUES ($1, $2, $3, 'global')`,
    [rivalPk, OP_B, rival],
  );
  for (const t of [SHORT, LIVE])
    await pool.query(
      `INSERT INTO tournament_scores (tournament_id, currency, operator_id, external_player_id, player_id, scoring,
                                      score, score_reached_at, best_round_id, last_round_id, last_session_id,
                                      last_game_symbol, rounds_counted)
       VALUES ($1, 'EUR', $2, $3, $4, 'total_win', $5, now(), 'r_rival', 'r_rival', 's_rival', $6, 1)`,
      [t, OP_B, rival, rivalPk, RIVAL_SCORE, slot.symbol],
    );

  // The player spins until a round fed the jackpot (the definition reaches the game server's cache
  // by a notification), the drop was won and the score is above zero.
  const p = await w.player('EUR', 10_000_000);
  const rounds: string[] = [];
  let score = 0n;
  let dropRound = '';
  const fed = async (roundId: string) =>
    (await pool.query(`SELECT jackpot_id, prize_drop_payout_id FROM rounds WHERE round_id = $1`, [roundId]))
      .rows[0] as { jackpot_id: string | null; prize_drop_payout_id: string | null };
  let hits = 0;
  for (let i = 0; i < 60 && (hits === 0 || score === 0n || !dropRound); i++) {
    const r = (await w.spin(p.token, 100)) as unknown as {
      round_id: string;
      status: string;
      win_minor: string;
    };
    assert.equal(r.status, 'completed');
    rounds.push(r.round_id);
    score += BigInt(r.win_minor);
    const f = await fed(r.round_id);
    if (f.jackpot_id) hits++;
    if (f.prize_drop_payout_id) dropRound = r.round_id;
    if (hits === 0 || !dropRound) await new Promise((res) => setTimeout(res, 100));
  }
  assert.ok(hits > 0 && score > 0n && dropRound, 'a hit, a drop and a score within 60 spins');
  assert.ok(Date.now() < shortEnds - 1_000, 'the spins were made before the short tournament ended');
  // In the order they were played (the last one is the newest hit).
  const hit = new Set(
    (
      await pool.query<{ round_id: string }>(`SELECT round_id FROM jackpot_hits WHERE round_id = ANY($1)`, [
        rounds,
      ])
    ).rows.map((r) => r.round_id),
  );
  const hitRounds = rounds.filter((r) => hit.has(r));
  const dropPayout = (await fed(dropRound)).prize_drop_payout_id!;

  await w.until(
    'the hits and the award paid, the short tournament frozen and the player paid',
    async () => {
      const { rows } = await pool.query(
        `SELECT (SELECT count(*)::int FROM jackpot_hits WHERE round_id = ANY($1) AND status <> 'paid') AS hits,
                (SELECT status FROM promo_payouts WHERE payout_id = $2) AS drop,
                (SELECT status FROM tournaments WHERE tournament_id = $3) AS short,
                (SELECT status FROM promo_payouts WHERE promo_type = 'tournament' AND promo_id = $3
                    AND operator_id = $4) AS prize`,
        [hitRounds, dropPayout, SHORT, OP_A],
      );
      const s = rows[0];
      return s.hits === 0 && s.drop === 'paid' && ['ended', 'paid'].includes(s.short) && s.prize === 'paid';
    },
    Math.max(60_000, shortEnds - Date.now() + 45_000),
  );
  return { player: p.ext, rival, rounds, hitRounds, dropRound, dropPayout, score };
}
