import Router from '@koa/router';
import {
  type ExchangeRate,
  ExchangeRateLookupQuery,
  ExchangeRatesQuery,
  LoadExchangeRatesRequest,
  type ValidationErrorItem,
} from '@opi/contract';
import { EXCHANGE_RATE_COLUMNS, type ExchangeRateRow, exchangeRateOn, withTransaction } from '@opi/db';
import { conflict, invalidField, notFoundDetail, unprocessable } from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import type { ApiDeps } from '../deps.js';

/*
 * Exchange rates (issue 38 point 3; migration 1700000000032_exchange_rates): the provider's admins
 * load them, invoices convert at a dated one and freeze it (docs/reports-and-invoices.md).
 *
 *   POST /api/admin/v1/exchange-rates          load up to 300 rates, all or none
 *   GET  /api/admin/v1/exchange-rates          list (newest date first, keyset pages)
 *   GET  /api/admin/v1/exchange-rates/lookup   the rate in force on a day
 */

/** `1.0800` → `1.08`, `2.000` → `2`: one text per value. */
export function normalizeRate(rate: string): string {
  return rate.includes('.') ? rate.replace(/0+$/, '').replace(/\.$/, '') : rate;
}

export const presentRate = (r: ExchangeRateRow): ExchangeRate => ({
  base_currency: r.base_currency,
  quote_currency: r.quote_currency,
  rate_date: r.rate_date,
  rate: r.rate,
  source: r.source,
  loaded_at: r.loaded_at.toISOString(),
  loaded_by: r.loaded_by,
});

const keyOf = (r: { base_currency: string; quote_currency: string; rate_date: string; source: string }) =>
  `${r.base_currency}|${r.quote_currency}|${r.rate_date}|${r.source}`;

/** Tomorrow in UTC, YYYY-MM-DD: the latest date a rate may carry (a rate is published, not forecast). */
function latestRateDate(now = new Date()): string {
  return new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
}

const keyIdOf = (ctx: Context): string | null =>
  (ctx.state.auth as { keyId?: string } | undefined)?.keyId ?? null;

/* Keyset cursor of the listing: base64url of `date|base|quote|source` of the page's last row. */
const CURSOR = /^(\d{4}-\d{2}-\d{2})\|([A-Z]{3})\|([A-Z]{3})\|([A-Za-z0-9][A-Za-z0-9._:/-]{0,63})$/;
const badCursor = () => invalidField(['query', 'cursor'], 'not a cursor this API returned');
function decodeRateCursor(raw: string): string[] {
  if (!/^[A-Za-z0-9_-]*$/.test(raw)) throw badCursor();
  const m = CURSOR.exec(Buffer.from(raw, 'base64url').toString('utf8'));
  if (!m) throw badCursor();
  return m.slice(1, 5);
}

export function exchangeRateRoutes(deps: ApiDeps, adminGuard: Middleware[]): Router {
  const r = new Router({ prefix: '/api/admin/v1' });

  r.post('/exchange-rates', ...adminGuard, async (ctx) => {
    const input = parseOr422(LoadExchangeRatesRequest, ctx.state.body ?? {}, 'body');
    const latest = latestRateDate();
    const problems: ValidationErrorItem[] = [];
    const wanted = new Map<string, (typeof input.rates)[number]>();
    for (const [i, rate] of input.rates.entries()) {
      const row = { ...rate, rate: normalizeRate(rate.rate) };
      if (row.rate_date > latest)
        problems.push({
          loc: ['body', 'rates', i, 'rate_date'],
          msg: `a rate is published, not forecast: dated at most ${latest}`,
          type: 'value_error',
        });
      const seen = wanted.get(keyOf(row));
      if (seen && seen.rate !== row.rate)
        problems.push({
          loc: ['body', 'rates', i, 'rate'],
          msg: 'the same pair, date and source twice with two rates',
          type: 'value_error',
        });
      wanted.set(keyOf(row), row);
    }
    if (problems.length) throw unprocessable(problems);
    const rows = [...wanted.values()];
    const by = keyIdOf(ctx);
    const result = await withTransaction(deps.pool, async (c) => {
      const inserted = await c.query<ExchangeRateRow>(
        `INSERT INTO exchange_rates (base_currency, quote_currency, rate_date, source, rate, loaded_by)
         SELECT b, q, d::date, s, r::numeric, $6
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS u(b, q, d, s, r)
         ON CONFLICT (base_currency, quote_currency, rate_date, source) DO NOTHING
         RETURNING ${EXCHANGE_RATE_COLUMNS}`,
        [
          rows.map((x) => x.base_currency),
          rows.map((x) => x.quote_currency),
          rows.map((x) => x.rate_date),
          rows.map((x) => x.source),
          rows.map((x) => x.rate),
          by,
        ],
      );
      // The rest were loaded before (or by a load that committed meanwhile): the same value is a
      // no-op, another value a conflict (a loaded rate never changes).
      const fresh = new Set(inserted.rows.map(keyOf));
      const old = rows.filter((x) => !fresh.has(keyOf(x)));
      const existing = old.length
        ? (
            await c.query<ExchangeRateRow>(
              `SELECT ${EXCHANGE_RATE_COLUMNS} FROM exchange_rates e
                WHERE (base_currency, quote_currency, rate_date, source) IN (
                  SELECT b, q, d::date, s FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(b, q, d, s))`,
              [
                old.map((x) => x.base_currency),
                old.map((x) => x.quote_currency),
                old.map((x) => x.rate_date),
                old.map((x) => x.source),
              ],
            )
          ).rows
        : [];
      const conflicts = existing.filter((e) => e.rate !== wanted.get(keyOf(e))!.rate);
      if (conflicts.length) {
        const first = conflicts[0]!;
        throw conflict(
          `${conflicts.length} rate(s) already loaded with another value, e.g. ${first.base_currency}/${first.quote_currency} ` +
            `${first.rate_date} ${first.source}: ${first.rate}. A loaded rate never changes (invoices freeze it); ` +
            'load a correction under another source. Nothing was loaded.',
        );
      }
      return { inserted: inserted.rows, existing };
    });
    const order = new Map(rows.map((x, i) => [keyOf(x), i]));
    const items = [...result.inserted, ...result.existing].sort(
      (a, b) => order.get(keyOf(a))! - order.get(keyOf(b))!,
    );
    ctx.status = result.inserted.length ? 201 : 200;
    ctx.body = {
      success: true,
      data: {
        inserted: result.inserted.length,
        unchanged: result.existing.length,
        items: items.map(presentRate),
      },
    };
  });

  r.get('/exchange-rates', ...adminGuard, async (ctx) => {
    const q = parseOr422(ExchangeRatesQuery, flatQuery(ctx.query), 'query');
    const after = q.cursor === undefined ? null : decodeRateCursor(q.cursor);
    const { rows } = await deps.pool.query<ExchangeRateRow>(
      `SELECT ${EXCHANGE_RATE_COLUMNS} FROM exchange_rates
        WHERE ($1::char(3) IS NULL OR base_currency = $1)
          AND ($2::char(3) IS NULL OR quote_currency = $2)
          AND ($3::text IS NULL OR source = $3)
          AND ($4::date IS NULL OR rate_date >= $4)
          AND ($5::date IS NULL OR rate_date <= $5)
          AND ($6::date IS NULL OR (rate_date, base_currency, quote_currency, source)
                                    < ($6::date, $7::char(3), $8::char(3), $9::text))
        ORDER BY rate_date DESC, base_currency DESC, quote_currency DESC, source DESC
        LIMIT $10`,
      [
        q.base_currency ?? null,
        q.quote_currency ?? null,
        q.source ?? null,
        q.from ?? null,
        q.to ?? null,
        after?.[0] ?? null,
        after?.[1] ?? null,
        after?.[2] ?? null,
        after?.[3] ?? null,
        q.limit + 1,
      ],
    );
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    ctx.body = {
      success: true,
      data: {
        items: page.map(presentRate),
        limit: q.limit,
        next_cursor:
          rows.length > q.limit && last
            ? Buffer.from(
                `${last.rate_date}|${last.base_currency}|${last.quote_currency}|${last.source}`,
                'utf8',
              ).toString('base64url')
            : null,
      },
    };
  });

  r.get('/exchange-rates/lookup', ...adminGuard, async (ctx) => {
    const q = parseOr422(ExchangeRateLookupQuery, flatQuery(ctx.query), 'query');
    const rate = await exchangeRateOn(deps.pool, q.base_currency, q.quote_currency, q.date, q.source);
    if (!rate)
      throw notFoundDetail(
        `No ${q.base_currency}/${q.quote_currency} rate (either way round) dated on or before ${q.date}`,
      );
    ctx.body = { success: true, data: { ...presentRate(rate), direction: rate.direction } };
  });

  return r;
}
