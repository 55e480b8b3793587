import { z } from 'zod';
import { CurrencyCode, Instant, successEnvelope } from './primitives.js';

/*
 * Prize drops (issue 25, docs/jackpots-and-promotions.md). The provider admin API defines one:
 * slot titles, a window, and per currency a prize, how many, the least stake that qualifies and
 * the odds (a qualifying paid spin wins with probability 1 / award_every_spins while prizes last).
 * Operators opt in. Each award is paid by a `credit` with `action_type: promo_win`, `promo_type:
 * prize_drop`, once its round completes. Amounts are minor units (strings out).
 */

/** A prize drop's id: lower-case letters, digits, `_` and `-`, 1 to 63 characters. */
export const PrizeDropId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lower-case letters, digits, _ and -, 1 to 63 characters');

export const PrizeDropStatus = z.enum(['active', 'cancelled']);

const Minor = (min: number) =>
  z.union([
    z.int().min(min).max(1_000_000_000_000),
    z
      .string()
      .regex(/^[0-9]{1,13}$/, 'an integer')
      .refine(
        (v) => !/^[0-9]{1,13}$/.test(v) || (BigInt(v) >= BigInt(min) && BigInt(v) <= 1_000_000_000_000n),
        `${min} to 1000000000000`,
      ),
  ]);

/** How far ahead a drop may end (the same reach as a tournament's). */
export const PRIZE_DROP_MAX_DAYS = 366;

/** One currency's pool of prizes. */
export const PrizeDropCurrency = z.object({
  /** Each prize, in minor units. */
  prize_minor: Minor(1),
  /** How many prizes (1 to 1,000,000). */
  prizes: z.int().min(1).max(1_000_000),
  /** The least stake (minor units) of a spin that qualifies (default 0: every paid spin). */
  min_stake_minor: Minor(0).default(0),
  /** A qualifying spin wins with probability 1 / award_every_spins (1 to 1,000,000,000). */
  award_every_spins: z.int().min(1).max(1_000_000_000),
});

export const PrizeDropDefinitionRequest = z
  .object({
    /** The name shown to operators and players. */
    name: z.string().trim().min(1).max(200),
    /** When spins start to qualify (RFC 3339). */
    starts_at: Instant,
    /** When they stop, after starts_at and in the future, at most 366 days ahead. */
    ends_at: Instant,
    /** The slot titles (prov_a, prov_b; symbols or slugs) whose paid spins qualify. */
    titles: z.array(z.string().min(1).max(64)).min(1).max(100),
    /** The currencies it runs in, each its own pool (1 to 20). */
    currencies: z
      .record(CurrencyCode, PrizeDropCurrency)
      .refine((r) => Object.keys(r).length >= 1 && Object.keys(r).length <= 20, '1 to 20 currencies'),
  })
  .refine((d) => Date.parse(d.ends_at) > Date.parse(d.starts_at), {
    message: 'ends_at must be after starts_at',
    path: ['ends_at'],
  });
export type PrizeDropDefinitionRequest = z.infer<typeof PrizeDropDefinitionRequest>;

export const PrizeDropPoolView = z.object({
  currency: CurrencyCode,
  prize_minor: z.string(),
  prizes_total: z.int(),
  /** Prizes not awarded yet (an award voided because its round never stood comes back). */
  prizes_left: z.int(),
  min_stake_minor: z.string(),
  award_every_spins: z.int(),
});

/** A prize drop as its operators see it. */
export const PrizeDropView = z.object({
  drop_id: PrizeDropId,
  name: z.string(),
  status: PrizeDropStatus,
  starts_at: z.string(),
  ends_at: z.string(),
  titles: z.array(z.string()),
  pools: z.array(PrizeDropPoolView),
});

/** The admin's view: the definition and its operators. */
export const AdminPrizeDropView = PrizeDropView.extend({
  operators: z.array(z.string()),
  created_at: z.string(),
  cancelled_at: z.string().nullable(),
});

export const AdminPrizeDropResponse = successEnvelope(AdminPrizeDropView);
export const AdminPrizeDropListResponse = successEnvelope(z.object({ items: z.array(AdminPrizeDropView) }));
export const AdminPrizeDropOperatorResponse = successEnvelope(
  z.object({ drop_id: PrizeDropId, operator_id: z.string(), opted_in: z.boolean() }),
);
export const PrizeDropListResponse = successEnvelope(z.object({ items: z.array(PrizeDropView) }));
