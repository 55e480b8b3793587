import { convertAtRatio, decimalRatio, invertRatio } from '@opi/money';
import type pg from 'pg';

/*
 * Exchange rates (migration 1700000000032_exchange_rates): the provider's admins load them
 * (`POST /api/admin/v1/exchange-rates`); invoices (issue 38) and stake ladders (issue 39) read the
 * rate in force on a day and convert minor units exactly with it. No float anywhere: a rate is a
 * decimal string, read as an integer numerator over a power of ten.
 */

/** A loaded rate: a row of exchange_rates as EXCHANGE_RATE_COLUMNS reads it. */
export interface ExchangeRateRow {
  base_currency: string;
  quote_currency: string;
  /** YYYY-MM-DD */
  rate_date: string;
  /** The exact decimal as loaded (no trailing fraction zeros). */
  rate: string;
  source: string;
  loaded_at: Date;
  loaded_by: string | null;
}

/** The select list of an ExchangeRateRow (unqualified columns of exchange_rates). */
export const EXCHANGE_RATE_COLUMNS = `base_currency, quote_currency, to_char(rate_date, 'YYYY-MM-DD') AS rate_date,
  trim_scale(rate)::text AS rate, source, loaded_at, loaded_by`;

export interface RateInForce extends ExchangeRateRow {
  /** `direct`: loaded for (base, quote); `inverse`: loaded for (quote, base), divide by it. */
  direction: 'direct' | 'inverse';
}

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/**
 * The rate of `base`→`quote` in force on `date` (YYYY-MM-DD): the latest loaded either way round
 * dated on or before it (on one date the direct one, then the source first in byte order), or
 * null. Two index seeks (the primary key, backwards), one per direction.
 */
export async function exchangeRateOn(
  q: Queryable,
  base: string,
  quote: string,
  date: string,
  source?: string | null,
): Promise<RateInForce | null> {
  const { rows } = await q.query<RateInForce>(
    `SELECT * FROM (
       (SELECT ${EXCHANGE_RATE_COLUMNS}, 'direct' AS direction
          FROM exchange_rates
         WHERE base_currency = $1 AND quote_currency = $2 AND rate_date <= $3::date
           AND ($4::text IS NULL OR source = $4)
         ORDER BY rate_date DESC, source LIMIT 1)
       UNION ALL
       (SELECT base_currency, quote_currency, to_char(rate_date, 'YYYY-MM-DD'),
               trim_scale(rate)::text, source, loaded_at, loaded_by, 'inverse'
          FROM exchange_rates
         WHERE base_currency = $2 AND quote_currency = $1 AND rate_date <= $3::date
           AND ($4::text IS NULL OR source = $4)
         ORDER BY rate_date DESC, source LIMIT 1)
     ) r ORDER BY rate_date DESC, direction LIMIT 1`,
    [base, quote, date, source ?? null],
  );
  return rows[0] ?? null;
}

/**
 * Divides exactly and rounds half away from zero (the commercial rounding of an invoice line).
 * `den` is positive.
 */
export function divRoundHalfAwayFromZero(n: bigint, den: bigint): bigint {
  if (den <= 0n) throw new RangeError('a positive divisor');
  const neg = n < 0n;
  const a = neg ? -n : n;
  const q = a / den;
  const r = a % den;
  const rounded = r * 2n >= den ? q + 1n : q;
  return neg ? -rounded : rounded;
}

/**
 * Converts `amount` minor units of the base currency (minor-unit exponent `fromExponent`) into
 * minor units of the quote currency (`toExponent`) at `rate` (quote per base, major units), or,
 * with `direction` `inverse`, by dividing by a rate of quote per base loaded the other way round.
 * Exact rational arithmetic, one rounding at the end, half away from zero.
 *
 *   convertMinor(10_000n, '1.0823', 2, 2)      = 10_823n   (EUR 100.00 → USD 108.23)
 *   convertMinor(10_823n, '1.0823', 2, 2, 'inverse') = 10_000n
 *   convertMinor(100n, '160.12', 2, 0)         = 160n      (EUR 1.00 → JPY 160)
 */
export function convertMinor(
  amount: bigint,
  rate: string,
  fromExponent: number,
  toExponent: number,
  direction: 'direct' | 'inverse' = 'direct',
): bigint {
  const ratio = decimalRatio(rate);
  return convertAtRatio(
    amount,
    direction === 'direct' ? ratio : invertRatio(ratio),
    fromExponent,
    toExponent,
  );
}
