import { type Pool, withTransaction } from '@opi/db';
import { payoutShownSql } from '@opi/play/settlement/wager-stands';
import { conflict, invalidField, notFound } from '@opi/service-kit/http/named-errors';
import type pg from 'pg';

/** A prize drop as stored: the definition, its operators and its pools now. */
export interface PrizeDropRecord {
  drop_id: string;
  name: string;
  status: 'active' | 'cancelled';
  starts_at: Date;
  ends_at: Date;
  created_at: Date;
  cancelled_at: Date | null;
  titles: string[];
  operators: string[];
  pools: {
    currency: string;
    prize_minor: string;
    prizes_total: number;
    prizes_left: number;
    min_stake_minor: string;
    award_every_spins: number;
  }[];
}

export interface ResolvedPrizeDrop {
  name: string;
  starts_at: string;
  ends_at: string;
  titles: string[];
  currencies: Record<
    string,
    {
      prize_minor: number | string;
      prizes: number;
      min_stake_minor: number | string;
      award_every_spins: number;
    }
  >;
}

/** The definition's identity: a repeat of it is answered 200, another under the same id is 409. */
function canonical(d: ResolvedPrizeDrop): string {
  return JSON.stringify({
    name: d.name,
    starts_at: new Date(d.starts_at).toISOString(),
    ends_at: new Date(d.ends_at).toISOString(),
    titles: [...d.titles].sort(),
    currencies: Object.keys(d.currencies)
      .sort()
      .map((c) => {
        const p = d.currencies[c]!;
        return [c, String(p.prize_minor), p.prizes, String(p.min_stake_minor), p.award_every_spins];
      }),
  });
}

/**
 * Defines a prize drop with every pool full. The same definition again changes nothing; another
 * one under the same id is 409: what its players play for never changes once defined.
 */
export async function definePrizeDrop(
  pool: Pool,
  id: string,
  d: ResolvedPrizeDrop,
): Promise<{ created: boolean }> {
  return withTransaction(pool, async (c) => {
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('prize-drop:' || $1))`, [id]);
    const existing = await readPrizeDrop(c, id);
    if (existing) {
      const stored: ResolvedPrizeDrop = {
        name: existing.name,
        starts_at: existing.starts_at.toISOString(),
        ends_at: existing.ends_at.toISOString(),
        titles: existing.titles,
        currencies: Object.fromEntries(
          existing.pools.map((p) => [
            p.currency,
            {
              prize_minor: p.prize_minor,
              prizes: p.prizes_total,
              min_stake_minor: p.min_stake_minor,
              award_every_spins: p.award_every_spins,
            },
          ]),
        ),
      };
      if (canonical(stored) === canonical(d)) return { created: false };
      throw conflict(`Prize drop ${id} is defined otherwise: a definition never changes`);
    }
    if (Date.parse(d.ends_at) <= Date.now())
      throw invalidField(['body', 'ends_at'], 'ends_at must be in the future');
    if (Date.parse(d.ends_at) > Date.now() + 366 * 86_400_000)
      throw invalidField(['body', 'ends_at'], 'ends_at at most 366 days ahead');
    await c.query(`INSERT INTO prize_drops (drop_id, name, starts_at, ends_at) VALUES ($1, $2, $3, $4)`, [
      id,
      d.name,
      d.starts_at,
      d.ends_at,
    ]);
    await c.query(`INSERT INTO prize_drop_titles (drop_id, symbol) SELECT $1, unnest($2::text[])`, [
      id,
      d.titles,
    ]);
    for (const [currency, p] of Object.entries(d.currencies)) {
      await c.query(
        `INSERT INTO prize_drop_pools (drop_id, currency, prize_minor, prizes_total, prizes_left, min_stake_minor, award_every_spins)
         VALUES ($1, $2, $3, $4, $4, $5, $6)`,
        [id, currency, String(p.prize_minor), p.prizes, String(p.min_stake_minor), p.award_every_spins],
      );
    }
    return { created: true };
  });
}

export async function readPrizeDrops(c: pg.PoolClient | Pool, ids?: string[]): Promise<PrizeDropRecord[]> {
  const { rows } = await c.query<Omit<PrizeDropRecord, 'titles' | 'operators' | 'pools'>>(
    `SELECT drop_id, name, status, starts_at, ends_at, created_at, cancelled_at FROM prize_drops
      WHERE ($1::text[] IS NULL OR drop_id = ANY($1)) ORDER BY starts_at DESC, drop_id LIMIT 1000`,
    [ids ?? null],
  );
  if (rows.length === 0) return [];
  const found = rows.map((r) => r.drop_id);
  const [titles, operators, pools] = await Promise.all([
    c.query<{ drop_id: string; symbol: string }>(
      `SELECT drop_id, symbol FROM prize_drop_titles WHERE drop_id = ANY($1) ORDER BY symbol`,
      [found],
    ),
    c.query<{ drop_id: string; operator_id: string }>(
      `SELECT drop_id, operator_id FROM prize_drop_operators WHERE drop_id = ANY($1) AND opted_in ORDER BY operator_id`,
      [found],
    ),
    c.query<PrizeDropRecord['pools'][number] & { drop_id: string }>(
      // A prize awarded to a round whose wager does not stand yet is still shown as left (issue 34,
      // no last look: the award is written with the round, before its debit, and a count that moved
      // would tell a wallet holding that debit that its round won).
      `SELECT p.drop_id, trim(p.currency) AS currency, p.prize_minor::text, p.prizes_total,
              p.prizes_left + (SELECT count(*)::int FROM promo_payouts x
                                WHERE x.status = 'pending' AND x.promo_type = 'prize_drop'
                                  AND x.promo_id = p.drop_id AND x.currency = p.currency
                                  AND NOT ${payoutShownSql('x')}) AS prizes_left,
              p.min_stake_minor::text, p.award_every_spins
         FROM prize_drop_pools p WHERE p.drop_id = ANY($1) ORDER BY p.currency`,
      [found],
    ),
  ]);
  return rows.map((r) => ({
    ...r,
    titles: titles.rows.filter((t) => t.drop_id === r.drop_id).map((t) => t.symbol),
    operators: operators.rows.filter((o) => o.drop_id === r.drop_id).map((o) => o.operator_id),
    pools: pools.rows.filter((p) => p.drop_id === r.drop_id).map(({ drop_id: _d, ...p }) => p),
  }));
}

export async function readPrizeDrop(c: pg.PoolClient | Pool, id: string): Promise<PrizeDropRecord | null> {
  return (await readPrizeDrops(c, [id]))[0] ?? null;
}

/** The drops an operator is opted in to that are not over by more than a day (its lobby feed). */
export async function prizeDropsOfOperator(pool: Pool, operatorId: string): Promise<PrizeDropRecord[]> {
  const { rows } = await pool.query<{ drop_id: string }>(
    `SELECT d.drop_id FROM prize_drops d
       JOIN prize_drop_operators o ON o.drop_id = d.drop_id AND o.operator_id = $1 AND o.opted_in
      WHERE d.ends_at > now() - interval '1 day'`,
    [operatorId],
  );
  return rows.length
    ? readPrizeDrops(
        pool,
        rows.map((r) => r.drop_id),
      )
    : [];
}

export async function setPrizeDropOperator(pool: Pool, id: string, operatorId: string, enabled: boolean) {
  const drop = await pool.query(`SELECT 1 FROM prize_drops WHERE drop_id = $1`, [id]);
  if (drop.rowCount === 0) throw notFound('prize drop');
  const op = await pool.query(`SELECT 1 FROM operators WHERE operator_id = $1`, [operatorId]);
  if (op.rowCount === 0) throw notFound('operator');
  await pool.query(
    `INSERT INTO prize_drop_operators (drop_id, operator_id, opted_in) VALUES ($1, $2, $3)
     ON CONFLICT (drop_id, operator_id) DO UPDATE SET opted_in = EXCLUDED.opted_in, updated_at = now()`,
    [id, operatorId, enabled],
  );
}

/**
 * Cancels a drop: no spin qualifies from now on (the spin's statement checks the status at the
 * pool's lock). Awards already made stand and are paid. Cancelling again changes nothing.
 */
export async function cancelPrizeDrop(pool: Pool, id: string): Promise<void> {
  const { rowCount } = await pool.query(
    `UPDATE prize_drops SET status = 'cancelled', cancelled_at = coalesce(cancelled_at, now()), updated_at = now()
      WHERE drop_id = $1`,
    [id],
  );
  if (rowCount === 0) throw notFound('prize drop');
}
