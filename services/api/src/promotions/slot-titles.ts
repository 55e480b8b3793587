import type { Pool } from '@opi/db';
import { isSlotTitle } from '@opi/games';
import { invalidField } from '@opi/service-kit/http/named-errors';

/**
 * The slot titles a promotion's definition names, as symbols: each resolved by symbol or slug,
 * prov_a and prov_b titles only (jackpots, tournaments and prize drops are fed by paid spins).
 * An unknown or non-slot title is 422 on `body.titles`.
 */
export async function resolveSlotTitles(pool: Pool, names: string[], what: string): Promise<string[]> {
  const { rows } = await pool.query<{ name: string; symbol: string; provider_id: string }>(
    `SELECT n.name, g.symbol, g.provider_id FROM unnest($1::text[]) AS n(name)
       JOIN games g ON g.symbol = n.name OR g.slug = n.name`,
    [names],
  );
  const found = new Map(rows.map((r) => [r.name, r]));
  const unknown = names.filter((n) => !found.has(n));
  if (unknown.length)
    throw invalidField(['body', 'titles'], `unknown titles: ${unknown.slice(0, 10).join(', ')}`);
  const notSlots = rows.filter((r) => !isSlotTitle(r.provider_id));
  if (notSlots.length)
    throw invalidField(
      ['body', 'titles'],
      `${what} are fed by slot titles (prov_a, prov_b) only: ${notSlots.map((r) => r.symbol).join(', ')}`,
    );
  return [...new Set(rows.map((r) => r.symbol))];
}
