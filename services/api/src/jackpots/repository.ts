import type { JackpotDefinitionRequest } from '@opi/contract';
import { type Pool, withTransaction } from '@opi/db';
import { conflict, notFound } from '@opi/service-kit/http/named-errors';
import type pg from 'pg';

/*
 * Jackpot definitions and pools (issue 25, docs/jackpots-and-promotions.md). Pools are kept in
 * micros (millionths of a minor unit); a ticker shows their whole minor units.
 */

export const MICROS_PER_MINOR = 1_000_000n;

/** A jackpot's own row (the definition's head; titles, operators and pools are rows of their own). */
export interface JackpotRow {
  jackpot_id: string;
  name: string;
  scope: 'network' | 'operator';
  operator_id: string | null;
  status: 'active' | 'closed';
  created_at: Date;
}
interface PoolRow {
  jackpot_id: string;
  level: string;
  position: number;
  rate_ppm: number;
  currency: string;
  seed_minor: bigint;
  cap_minor: bigint | null;
  hit_every_minor: bigint;
  amount_micros: bigint;
  reserve_micros: bigint;
  seeded_micros: string;
  contributions_micros: string;
  wins_micros: string;
  hits: number;
}

/** A definition as stored: titles resolved to symbols, amounts as bigint. */
export interface ResolvedDefinition extends Omit<JackpotDefinitionRequest, 'titles' | 'operator_id'> {
  operator_id: string | null;
  titles: string[];
}

/** The canonical form of a definition, to tell an identical repeat from a change. */
function canonical(d: ResolvedDefinition): string {
  return JSON.stringify({
    name: d.name,
    scope: d.scope,
    operator_id: d.operator_id,
    titles: [...d.titles].sort(),
    levels: d.levels.map((l) => ({
      level: l.level,
      rate: l.contribution_rate_ppm,
      currencies: Object.keys(l.currencies)
        .sort()
        .map((c) => {
          const v = l.currencies[c]!;
          return [
            c,
            String(v.seed_minor),
            v.cap_minor == null ? null : String(v.cap_minor),
            String(v.hit_every_minor),
          ];
        }),
    })),
  });
}

/**
 * Defines a jackpot: its levels and a pool per level and currency, seeded. A repeat of the same
 * definition changes nothing (`created: false`); a different one is 409: a live pool's seed, odds
 * and rate are what its contributors played for.
 */
export async function defineJackpot(
  pool: Pool,
  jackpotId: string,
  d: ResolvedDefinition,
): Promise<{ created: boolean }> {
  return withTransaction(pool, async (c) => {
    // One definition at a time per id: the advisory lock makes a concurrent twin wait, then compare.
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('jackpot:' || $1))`, [jackpotId]);
    const existing = await readDefinition(c, jackpotId);
    if (existing) {
      if (canonical(existing) === canonical(d)) return { created: false };
      throw conflict(
        'This jackpot is already defined differently: its levels, pools and titles do not change once defined',
      );
    }
    await c.query(`INSERT INTO jackpots (jackpot_id, name, scope, operator_id) VALUES ($1, $2, $3, $4)`, [
      jackpotId,
      d.name,
      d.scope,
      d.operator_id,
    ]);
    await c.query(`INSERT INTO jackpot_titles (jackpot_id, symbol) SELECT $1, unnest($2::text[])`, [
      jackpotId,
      d.titles,
    ]);
    for (const [position, level] of d.levels.entries()) {
      await c.query(
        `INSERT INTO jackpot_levels (jackpot_id, level, position, rate_ppm) VALUES ($1, $2, $3, $4)`,
        [jackpotId, level.level, position, level.contribution_rate_ppm],
      );
      for (const [currency, v] of Object.entries(level.currencies)) {
        const seedMicros = BigInt(v.seed_minor) * MICROS_PER_MINOR;
        await c.query(
          `INSERT INTO jackpot_pools (jackpot_id, level, currency, seed_minor, cap_minor, hit_every_minor,
                                      amount_micros, seeded_micros)
           VALUES ($1, $2, $3, $4, $5, $6, $7::bigint, $7::bigint)`,
          [
            jackpotId,
            level.level,
            currency,
            BigInt(v.seed_minor),
            v.cap_minor == null ? null : BigInt(v.cap_minor),
            BigInt(v.hit_every_minor),
            seedMicros,
          ],
        );
      }
    }
    return { created: true };
  });
}

async function readDefinition(
  c: pg.PoolClient | Pool,
  jackpotId: string,
): Promise<ResolvedDefinition | null> {
  const view = await readJackpot(c, jackpotId);
  if (!view) return null;
  return {
    name: view.name,
    scope: view.scope,
    operator_id: view.operator_id,
    titles: view.titles,
    levels: view.levels.map((l) => ({
      level: l.level,
      contribution_rate_ppm: l.contribution_rate_ppm,
      currencies: Object.fromEntries(
        l.pools.map((p) => [
          p.currency,
          { seed_minor: p.seed_minor, cap_minor: p.cap_minor, hit_every_minor: p.hit_every_minor },
        ]),
      ),
    })),
  };
}

export interface JackpotRecord extends JackpotRow {
  titles: string[];
  operators: string[];
  levels: {
    level: string;
    contribution_rate_ppm: number;
    pools: {
      currency: string;
      amount_minor: string;
      seed_minor: string;
      cap_minor: string | null;
      hit_every_minor: string;
    }[];
  }[];
  totals: {
    level: string;
    currency: string;
    amount_micros: string;
    reserve_micros: string;
    seeded_micros: string;
    contributions_micros: string;
    wins_micros: string;
    hits: number;
  }[];
}

/** Reads jackpots with their titles, operators and pools (every one, or these ids). */
export async function readJackpots(c: pg.PoolClient | Pool, ids?: string[]): Promise<JackpotRecord[]> {
  const { rows: jackpots } = await c.query<JackpotRow>(
    `SELECT jackpot_id, name, scope, operator_id, status, created_at FROM jackpots
      WHERE $1::text[] IS NULL OR jackpot_id = ANY($1) ORDER BY jackpot_id`,
    [ids ?? null],
  );
  if (jackpots.length === 0) return [];
  const list = jackpots.map((j) => j.jackpot_id);
  const [titles, operators, pools] = await Promise.all([
    c.query<{ jackpot_id: string; symbol: string }>(
      `SELECT jackpot_id, symbol FROM jackpot_titles WHERE jackpot_id = ANY($1) ORDER BY symbol`,
      [list],
    ),
    c.query<{ jackpot_id: string; operator_id: string }>(
      `SELECT jackpot_id, operator_id FROM jackpot_operators WHERE jackpot_id = ANY($1) AND opted_in
        ORDER BY operator_id`,
      [list],
    ),
    c.query<PoolRow>(
      `SELECT p.jackpot_id, p.level, l.position, l.rate_ppm, trim(p.currency) AS currency, p.seed_minor,
              p.cap_minor, p.hit_every_minor, p.amount_micros, p.reserve_micros, p.seeded_micros::text,
              p.contributions_micros::text, p.wins_micros::text, p.hits
         FROM jackpot_pools p JOIN jackpot_levels l USING (jackpot_id, level)
        WHERE p.jackpot_id = ANY($1) ORDER BY l.position, p.currency`,
      [list],
    ),
  ]);
  return jackpots.map((j) => {
    const own = pools.rows.filter((p) => p.jackpot_id === j.jackpot_id);
    const levels = [...new Map(own.map((p) => [p.level, p])).values()].map((l) => ({
      level: l.level,
      contribution_rate_ppm: l.rate_ppm,
      pools: own
        .filter((p) => p.level === l.level)
        .map((p) => ({
          currency: p.currency,
          amount_minor: (BigInt(p.amount_micros) / MICROS_PER_MINOR).toString(),
          seed_minor: p.seed_minor.toString(),
          cap_minor: p.cap_minor == null ? null : p.cap_minor.toString(),
          hit_every_minor: p.hit_every_minor.toString(),
        })),
    }));
    return {
      ...j,
      titles: titles.rows.filter((t) => t.jackpot_id === j.jackpot_id).map((t) => t.symbol),
      operators:
        j.scope === 'operator'
          ? [j.operator_id!]
          : operators.rows.filter((o) => o.jackpot_id === j.jackpot_id).map((o) => o.operator_id),
      levels,
      totals: own.map((p) => ({
        level: p.level,
        currency: p.currency,
        amount_micros: p.amount_micros.toString(),
        reserve_micros: p.reserve_micros.toString(),
        seeded_micros: p.seeded_micros,
        contributions_micros: p.contributions_micros,
        wins_micros: p.wins_micros,
        hits: p.hits,
      })),
    };
  });
}

export async function readJackpot(c: pg.PoolClient | Pool, jackpotId: string): Promise<JackpotRecord | null> {
  return (await readJackpots(c, [jackpotId]))[0] ?? null;
}

/** The jackpots an operator takes part in: its own, and the network ones it opted in to. */
export async function jackpotsOfOperator(pool: Pool, operatorId: string): Promise<JackpotRecord[]> {
  const { rows } = await pool.query<{ jackpot_id: string }>(
    `SELECT jackpot_id FROM jackpots WHERE scope = 'operator' AND operator_id = $1
     UNION
     SELECT jackpot_id FROM jackpot_operators WHERE operator_id = $1 AND opted_in`,
    [operatorId],
  );
  if (rows.length === 0) return [];
  return readJackpots(
    pool,
    rows.map((r) => r.jackpot_id),
  );
}

/** Opts an operator in or out of a network jackpot. */
export async function setJackpotOperator(
  pool: Pool,
  jackpotId: string,
  operatorId: string,
  optedIn: boolean,
): Promise<void> {
  const { rows } = await pool.query<{ scope: string }>(`SELECT scope FROM jackpots WHERE jackpot_id = $1`, [
    jackpotId,
  ]);
  if (!rows[0]) throw notFound('jackpot');
  if (rows[0].scope !== 'network')
    throw conflict('Only a network jackpot takes operators in and out; an operator jackpot is its own');
  const op = await pool.query(`SELECT 1 FROM operators WHERE operator_id = $1`, [operatorId]);
  if (op.rowCount === 0) throw notFound('operator');
  await pool.query(
    `INSERT INTO jackpot_operators (jackpot_id, operator_id, opted_in) VALUES ($1, $2, $3)
     ON CONFLICT (jackpot_id, operator_id) DO UPDATE SET opted_in = EXCLUDED.opted_in, updated_at = now()`,
    [jackpotId, operatorId, optedIn],
  );
}
