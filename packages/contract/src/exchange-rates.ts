import { z } from 'zod';
import { CurrencyCode, successEnvelope } from './primitives.js';

/*
 * Exchange rates (issue 38 point 3; issue 39's stake ladders read them too): a table the
 * provider's admins load (`/api/admin/v1/exchange-rates`, migration 1700000000032_exchange_rates).
 * Not part of the operator contract (it converts nothing implicitly: "There is no implicit
 * currency conversion"); invoices convert at a dated rate and freeze it. docs/reports-and-invoices.md.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a calendar date `YYYY-MM-DD` from 1970-01-01 to 9999-12-31 that exists. */
export function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1970 || mo < 1 || mo > 12 || d < 1) return false;
  const days = new Date(Date.UTC(2000, mo, 0)).getUTCDate(); // days of month `mo` in a leap year
  if (d > days) return false;
  if (mo === 2 && d === 29) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return true;
}

/**
 * A calendar date, `YYYY-MM-DD`, from 1970-01-01 to 9999-12-31 (a day that exists: no
 * 2026-02-30). Anything else is 422 at the field, never a database error.
 */
export const CalendarDate = z
  .string()
  .regex(DATE, 'a date YYYY-MM-DD')
  .refine(isCalendarDate, 'a calendar date from 1970-01-01 to 9999-12-31');
export type CalendarDate = z.infer<typeof CalendarDate>;

const RATE = /^(0|[1-9][0-9]{0,19})(\.[0-9]{1,18})?$/;

/**
 * An exchange rate as an exact decimal string: how many units of the quote currency one unit of
 * the base currency is worth (major units, as published: EUR/USD `1.0823`). Greater than zero, at
 * most 20 integer and 18 fraction digits, no sign, exponent or spaces. Never a JSON number (a
 * float would round it). Answered without trailing fraction zeros (`1.0800` is answered `1.08`).
 */
export const RateDecimal = z
  .string()
  .regex(RATE, 'a decimal rate such as 1.0823 (at most 20 integer and 18 fraction digits)')
  .refine((s) => !RATE.test(s) || /[1-9]/.test(s), 'greater than zero');
export type RateDecimal = z.infer<typeof RateDecimal>;

/** The rate's publisher: `ECB`, `coingecko`, `manual`...: 1 to 64 of letters, digits and `._:/-`. */
export const RateSource = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$/,
    '1 to 64 letters, digits and ._:/- (starting with a letter or digit)',
  );
export type RateSource = z.infer<typeof RateSource>;

/** One rate to load. */
export const ExchangeRateInput = z
  .strictObject({
    /** The currency one unit of which the rate prices. */
    base_currency: CurrencyCode,
    /** The currency the rate is in. */
    quote_currency: CurrencyCode,
    /** The day the rate was published for (at most tomorrow, UTC: a rate is published, not forecast). */
    rate_date: CalendarDate,
    /** Units of `quote_currency` per unit of `base_currency`. */
    rate: RateDecimal,
    /** Who published it. */
    source: RateSource,
  })
  .refine((r) => r.base_currency !== r.quote_currency, {
    message: 'base_currency and quote_currency differ',
    path: ['quote_currency'],
  });
export type ExchangeRateInput = z.infer<typeof ExchangeRateInput>;

/**
 * Most rates one load takes: 300 of the longest form fit the 64 KiB body limit (ECB publishes
 * about 30 a day: ten days a load).
 */
export const EXCHANGE_RATES_LOAD_MAX = 300;
/** Largest page of the listing. */
export const EXCHANGE_RATES_PAGE_MAX = 1000;

/** `POST /api/admin/v1/exchange-rates`: rates to load, all or none. */
export const LoadExchangeRatesRequest = z.strictObject({
  rates: z.array(ExchangeRateInput).min(1).max(EXCHANGE_RATES_LOAD_MAX),
});
export type LoadExchangeRatesRequest = z.infer<typeof LoadExchangeRatesRequest>;

/** A loaded rate. */
export const ExchangeRate = z.object({
  base_currency: CurrencyCode,
  quote_currency: CurrencyCode,
  rate_date: CalendarDate,
  rate: RateDecimal,
  source: RateSource,
  /** When it was loaded. */
  loaded_at: z.string(),
  /** The admin key (its id) that loaded it; null when loaded otherwise (a migration, a script). */
  loaded_by: z.string().nullable(),
});
export type ExchangeRate = z.infer<typeof ExchangeRate>;

/** The answer of a load: every rate of the request as stored. */
export const LoadExchangeRatesResponse = successEnvelope(
  z.object({
    /** Rates new to the table. */
    inserted: z.number().int(),
    /** Rates already loaded with the same value (a repeat of a load is harmless). */
    unchanged: z.number().int(),
    items: z.array(ExchangeRate),
  }),
);
export type LoadExchangeRatesResponse = z.infer<typeof LoadExchangeRatesResponse>;

/** Page size of the rates listing: 100 unless `limit` says otherwise, at most 1000. */
export const EXCHANGE_RATES_PAGE_DEFAULT = 100;

/** `GET /api/admin/v1/exchange-rates` query: newest date first. */
export const ExchangeRatesQuery = z.strictObject({
  base_currency: CurrencyCode.optional(),
  quote_currency: CurrencyCode.optional(),
  source: RateSource.optional(),
  /** Rates dated on or after. */
  from: CalendarDate.optional(),
  /** Rates dated on or before. */
  to: CalendarDate.optional(),
  /** Page size: an integer from 1 to 1000 (default 100). */
  limit: z.coerce.number().int().min(1).max(EXCHANGE_RATES_PAGE_MAX).default(EXCHANGE_RATES_PAGE_DEFAULT),
  /** Opaque; the `next_cursor` of the previous page, unchanged (anything else is 422 at `query.cursor`). */
  cursor: z.string().max(400).optional(),
});
export type ExchangeRatesQuery = z.infer<typeof ExchangeRatesQuery>;

export const ExchangeRatesResponse = successEnvelope(
  z.object({
    items: z.array(ExchangeRate),
    limit: z.number().int(),
    /** Pass as `cursor` for the next page; null on the last page. */
    next_cursor: z.string().nullable(),
  }),
);
export type ExchangeRatesResponse = z.infer<typeof ExchangeRatesResponse>;

/** `GET /api/admin/v1/exchange-rates/lookup` query: the rate in force on a date. */
export const ExchangeRateLookupQuery = z
  .strictObject({
    base_currency: CurrencyCode,
    quote_currency: CurrencyCode,
    /** The day: the rate dated on it, else the latest dated before it. */
    date: CalendarDate,
    /** Only this publisher's rates (default: any; on one date the source first in byte order). */
    source: RateSource.optional(),
  })
  .refine((r) => r.base_currency !== r.quote_currency, {
    message: 'base_currency and quote_currency differ',
    path: ['quote_currency'],
  });
export type ExchangeRateLookupQuery = z.infer<typeof ExchangeRateLookupQuery>;

/**
 * The rate in force: the latest rate of the pair dated on or before the day, loaded either way
 * round. `direction` `direct` is a rate loaded for (base, quote); `inverse` is one loaded for
 * (quote, base), dated later than any direct one (on one date the direct one wins): its fields
 * are as loaded, of the inverse pair, and a conversion divides by its `rate`.
 */
export const ExchangeRateLookupResponse = successEnvelope(
  ExchangeRate.extend({ direction: z.enum(['direct', 'inverse']) }),
);
export type ExchangeRateLookupResponse = z.infer<typeof ExchangeRateLookupResponse>;
