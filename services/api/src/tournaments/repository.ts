import { type Pool, withTransaction } from '@opi/db';
import { conflict, notFound } from '@opi/service-kit/http/named-errors';
import type pg from 'pg';

/*
 * Tournament definitions, operators, leaderboards (issue 25, docs/jackpots-and-promotions.md).
 * Scores are written by the database (the rounds_tournament_score trigger, migration 21); the
 * frozen standings and payouts by the tournament's workflow (@opi/workflows promotions).
 */

/** A definition as stored: titles resolved to symbols, instants in UTC, amounts as strings. */
export interface ResolvedTournament {
  name: string;
  scoring: 'max_multiplier' | 'total_win';
  starts_at: string;
  ends_at: string;
  titles: string[];
  currencies: Record<string, { min_stake_minor: string; prizes: string[] }>;
}

function canonical(d: ResolvedTournament): string {
  return JSON.stringify({
    name: d.name,
    scoring: d.scoring,
    starts_at: Date.parse(d.starts_at),
    ends_at: Date.parse(d.ends_at),
    titles: [...d.titles].sort(),
    currencies: Object.keys(d.currencies)
      .sort()
      .map((c) => [c, d.currencies[c]!.min_stake_minor, d.currencies[c]!.prizes]),
  });
}

/**
 * Defines a tournament. The same definition again changes nothing (`created: false`); another one
 * under the same id is 409: what its players play for never changes once defined.
 */
export async function defineTournament(
  pool: Pool,
  id: string,
  d: ResolvedTournament,
): Promise<{ created: boolean }> {
  return withTransaction(pool, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('tournament:' || $1))`, [id]);
    const existing = await readTournament(c, id);
    if (existing) {
      const stored: ResolvedTournament = {
        name: existing.name,
        scoring: existing.scoring,
        starts_at: existing.starts_at,
        ends_at: existing.ends_at,
        titles: existing.titles,
        currencies: Object.fromEntries(
          existing.currencies.map((cur) => [
            cur.currency,
            { min_stake_minor: cur.min_stake_minor, prizes: cur.prizes.map((p) => p.amount_minor) },
          ]),
        ),
      };
      if (canonical(stored) === canonical(d)) return { created: false };
      throw conflict(
        'This tournament is already defined differently: its window, scoring, titles and prizes do not change once defined',
      );
    }
    await c.query(
      `INSERT INTO tournaments (tournament_id, name, scoring, starts_at, ends_at) VALUES ($1, $2, $3, $4, $5)`,
      [id, d.name, d.scoring, d.starts_at, d.ends_at],
    );
    await c.query(`INSERT INTO tournament_titles (tournament_id, symbol) SELECT $1, unnest($2::text[])`, [
      id,
      d.titles,
    ]);
    for (const [currency, cur] of Object.entries(d.currencies)) {
      await c.query(
        `INSERT INTO tournament_currencies (tournament_id, currency, min_stake_minor) VALUES ($1, $2, $3)`,
        [id, currency, cur.min_stake_minor],
      );
      await c.query(
        `INSERT INTO tournament_prizes (tournament_id, currency, rank, amount_minor)
         SELECT $1, $2, r.rank, r.amount::bigint FROM unnest($3::text[]) WITH ORDINALITY AS r(amount, rank)`,
        [id, currency, cur.prizes],
      );
    }
    return { created: true };
  });
}

export interface TournamentRecord {
  tournament_id: string;
  name: string;
  scoring: 'max_multiplier' | 'total_win';
  starts_at: string;
  ends_at: string;
  status: 'scheduled' | 'running' | 'ended' | 'paid' | 'cancelled';
  created_at: string;
  cancelled_at: string | null;
  frozen_at: string | null;
  paid_at: string | null;
  titles: string[];
  operators: string[];
  currencies: {
    currency: string;
    min_stake_minor: string;
    prizes: { rank: number; amount_minor: string }[];
  }[];
  payouts: {
    payout_id: string;
    currency: string;
    rank: number;
    operator_id: string;
    player_id: string;
    amount_minor: string;
    status: 'pending' | 'paid';
  }[];
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Reads tournaments with their titles, operators, currencies, prizes and payouts (all, or these ids). */
export async function readTournaments(c: pg.PoolClient | Pool, ids?: string[]): Promise<TournamentRecord[]> {
  const { rows: ts } = await c.query<{
    tournament_id: string;
    name: string;
    scoring: 'max_multiplier' | 'total_win';
    starts_at: Date;
    ends_at: Date;
    status: TournamentRecord['status'];
    created_at: Date;
    cancelled_at: Date | null;
    frozen_at: Date | null;
    paid_at: Date | null;
  }>(
    `SELECT tournament_id, name, scoring, starts_at, ends_at, status, created_at, cancelled_at, frozen_at, paid_at
       FROM tournaments WHERE $1::text[] IS NULL OR tournament_id = ANY($1) ORDER BY starts_at, tournament_id`,
    [ids ?? null],
  );
  if (ts.length === 0) return [];
  const list = ts.map((t) => t.tournament_id);
  // One after another: `c` may be a transaction's client (one query at a time).
  const titles = await c.query<{ tournament_id: string; symbol: string }>(
    `SELECT tournament_id, symbol FROM tournament_titles WHERE tournament_id = ANY($1) ORDER BY symbol`,
    [list],
  );
  const operators = await c.query<{ tournament_id: string; operator_id: string }>(
    `SELECT tournament_id, operator_id FROM tournament_operators WHERE tournament_id = ANY($1) AND opted_in
      ORDER BY operator_id`,
    [list],
  );
  const currencies = await c.query<{ tournament_id: string; currency: string; min_stake_minor: string }>(
    `SELECT tournament_id, trim(currency) AS currency, min_stake_minor::text FROM tournament_currencies
      WHERE tournament_id = ANY($1) ORDER BY currency`,
    [list],
  );
  const prizes = await c.query<{
    tournament_id: string;
    currency: string;
    rank: number;
    amount_minor: string;
  }>(
    `SELECT tournament_id, trim(currency) AS currency, rank, amount_minor::text FROM tournament_prizes
      WHERE tournament_id = ANY($1) ORDER BY currency, rank`,
    [list],
  );
  const payouts = await c.query<TournamentRecord['payouts'][number] & { promo_id: string }>(
    `SELECT promo_id, payout_id, trim(currency) AS currency, rank, operator_id, external_player_id AS player_id,
            amount_minor::text, status
       FROM promo_payouts WHERE promo_type = 'tournament' AND promo_id = ANY($1) ORDER BY currency, rank`,
    [list],
  );
  return ts.map((t) => ({
    tournament_id: t.tournament_id,
    name: t.name,
    scoring: t.scoring,
    starts_at: t.starts_at.toISOString(),
    ends_at: t.ends_at.toISOString(),
    status: t.status,
    created_at: t.created_at.toISOString(),
    cancelled_at: iso(t.cancelled_at),
    frozen_at: iso(t.frozen_at),
    paid_at: iso(t.paid_at),
    titles: titles.rows.filter((r) => r.tournament_id === t.tournament_id).map((r) => r.symbol),
    operators: operators.rows.filter((r) => r.tournament_id === t.tournament_id).map((r) => r.operator_id),
    currencies: currencies.rows
      .filter((r) => r.tournament_id === t.tournament_id)
      .map((r) => ({
        currency: r.currency,
        min_stake_minor: r.min_stake_minor,
        prizes: prizes.rows
          .filter((p) => p.tournament_id === t.tournament_id && p.currency === r.currency)
          .map((p) => ({ rank: p.rank, amount_minor: p.amount_minor })),
      })),
    payouts: payouts.rows
      .filter((p) => p.promo_id === t.tournament_id)
      .map(({ promo_id: _promo, ...p }) => p),
  }));
}

export async function tournamentExists(pool: Pool, id: string): Promise<boolean> {
  const { rows } = await pool.query(`SELECT 1 FROM tournaments WHERE tournament_id = $1`, [id]);
  return rows.length > 0;
}

export async function readTournament(c: pg.PoolClient | Pool, id: string): Promise<TournamentRecord | null> {
  return (await readTournaments(c, [id]))[0] ?? null;
}

/** The tournaments an operator is opted in to. */
export async function tournamentsOfOperator(pool: Pool, operatorId: string): Promise<TournamentRecord[]> {
  const { rows } = await pool.query<{ tournament_id: string }>(
    `SELECT tournament_id FROM tournament_operators WHERE operator_id = $1 AND opted_in`,
    [operatorId],
  );
  if (rows.length === 0) return [];
  return readTournaments(
    pool,
    rows.map((r) => r.tournament_id),
  );
}

/** Whether the operator takes part (opted in now, or has players on its leaderboard). */
export async function operatorTakesPart(pool: Pool, id: string, operatorId: string): Promise<boolean> {
  const { rows } = await pool.query(
    `SELECT 1 FROM tournament_operators WHERE tournament_id = $1 AND operator_id = $2 AND opted_in
     UNION ALL
     SELECT 1 FROM tournament_scores WHERE tournament_id = $1 AND operator_id = $2
     LIMIT 1`,
    [id, operatorId],
  );
  return rows.length > 0;
}

/** Opts an operator in or out (409 once the tournament is over or cancelled). */
export async function setTournamentOperator(
  pool: Pool,
  id: string,
  operatorId: string,
  optedIn: boolean,
): Promise<void> {
  const { rows } = await pool.query<{ status: string; over: boolean }>(
    `SELECT status, now() >= ends_at AS over FROM tournaments WHERE tournament_id = $1`,
    [id],
  );
  const t = rows[0];
  if (!t) throw notFound('tournament');
  if (t.status === 'cancelled' || t.over)
    throw conflict(
      `The tournament is ${t.status === 'cancelled' ? 'cancelled' : 'over'}: its operators no longer change`,
    );
  const op = await pool.query(`SELECT 1 FROM operators WHERE operator_id = $1`, [operatorId]);
  if (op.rowCount === 0) throw notFound('operator');
  await pool.query(
    `INSERT INTO tournament_operators (tournament_id, operator_id, opted_in) VALUES ($1, $2, $3)
     ON CONFLICT (tournament_id, operator_id) DO UPDATE SET opted_in = EXCLUDED.opted_in, updated_at = now()`,
    [id, operatorId, optedIn],
  );
}

/**
 * Cancels a tournament before its end (by the database's clock): it then pays nothing. Repeating
 * it is harmless; once the tournament is over (ended, paid, or past its end) it is 409: its
 * leaderboard is frozen or about to be, and its prizes are paid.
 */
export async function cancelTournament(pool: Pool, id: string): Promise<void> {
  const { rows } = await pool.query<{ status: string | null; over: boolean | null; updated: boolean }>(
    `WITH u AS (
       UPDATE tournaments SET status = 'cancelled', cancelled_at = now(), updated_at = now()
        WHERE tournament_id = $1 AND status IN ('scheduled', 'running') AND now() < ends_at RETURNING 1
     ) SELECT t.status, now() >= t.ends_at AS over, EXISTS (SELECT 1 FROM u) AS updated
         FROM (SELECT 1) one LEFT JOIN tournaments t ON t.tournament_id = $1`,
    [id],
  );
  const r = rows[0]!;
  if (r.status === null) throw notFound('tournament');
  if (r.updated || r.status === 'cancelled') return;
  throw conflict(
    'The tournament is over: its leaderboard is frozen (or is being frozen) and its prizes are paid',
  );
}
