import { z } from 'zod';
import { OperatorId } from './admin.js';
import { CurrencyCode, successEnvelope } from './primitives.js';

/*
 * Progressive jackpots (issue 25, docs/jackpots-and-promotions.md). The provider admin API defines
 * a jackpot; operators take part (a network pool they opt in to, or one of their own); the provider
 * API gives each operator its lobby ticker. Amounts are strings of minor units; pools are kept in
 * millionths of a minor unit, and a ticker shows the whole minor units.
 */

/** A jackpot's id: lower-case letters, digits, `_` and `-`, 1 to 63 characters. */
export const JackpotId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lower-case letters, digits, _ and -, 1 to 63 characters');
/** A level's name (`mini`, `major`, `mega`): a lower-case letter, then letters, digits or `_`. */
export const JackpotLevelName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,31}$/, 'a lower-case letter, then up to 31 letters, digits or _');

/** An amount in minor units: a non-negative integer, or its decimal string. */
const MinorAmount = z.union([
  z.int().min(0).max(1_000_000_000_000),
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,12})$/, 'a non-negative integer')
    .refine((v) => !/^[0-9]+$/.test(v) || BigInt(v) <= 1_000_000_000_000n, 'at most 1000000000000'),
]);
const PositiveMinor = z.union([
  z.int().min(1).max(1_000_000_000_000_000),
  z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, 'a positive integer')
    .refine((v) => !/^[0-9]+$/.test(v) || BigInt(v) <= 1_000_000_000_000_000n, 'at most 1000000000000000'),
]);

/**
 * An amount as a bigint when it is one this schema accepts (a safe integer, or a string of digits),
 * else null. A refinement of an object runs even when one of its fields failed (zod reports every
 * issue at once), so it must not assume the field's type: `BigInt('AAA')` would throw (a 500).
 */
export function minorOrNull(v: unknown): bigint | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : null;
  return typeof v === 'string' && /^[0-9]{1,20}$/.test(v) ? BigInt(v) : null;
}

/** One level's money in one currency. */
export const JackpotLevelCurrency = z
  .object({
    /** What a hit resets the pool to (minor units); the provider funds it. */
    seed_minor: MinorAmount,
    /** Optional ceiling of the pool (minor units, above the seed): contributions past it are reserved for the next reset. */
    cap_minor: MinorAmount.nullish(),
    /** The stake expected between two hits (minor units): a spin of stake s hits with probability min(1, s / hit_every_minor). */
    hit_every_minor: PositiveMinor,
  })
  .refine(
    (c) => {
      const cap = minorOrNull(c.cap_minor);
      const seed = minorOrNull(c.seed_minor);
      return cap === null || seed === null || cap > seed;
    },
    {
      message: 'cap_minor must be above seed_minor',
      path: ['cap_minor'],
    },
  );

export const JackpotLevelDefinition = z.object({
  /** The level's name, e.g. `mini`. */
  level: JackpotLevelName,
  /** The share of each eligible stake it collects, in parts per million (5000 = 0.5 %); 1 to 100000. */
  contribution_rate_ppm: z.int().min(1).max(100_000),
  /** Its seed, cap and odds per currency: one pool per currency. */
  currencies: z
    .record(CurrencyCode, JackpotLevelCurrency)
    .refine(
      (r) => r !== null && typeof r === 'object' && Object.keys(r).length >= 1 && Object.keys(r).length <= 50,
      '1 to 50 currencies',
    ),
});

export const JackpotDefinitionRequest = z
  .object({
    /** The name shown to operators and players. */
    name: z.string().trim().min(1).max(200),
    /** `network`: a pool shared by the operators that opt in; `operator`: one operator's own. */
    scope: z.enum(['network', 'operator']),
    /** The operator of an `operator` jackpot (and only then). */
    operator_id: OperatorId.nullish(),
    /** The slot titles (prov_a, prov_b; symbols or slugs) whose paid spins feed it. */
    titles: z.array(z.string().min(1).max(64)).min(1).max(100),
    /** Its levels, mini first (1 to 10, names unique). */
    levels: z.array(JackpotLevelDefinition).min(1).max(10),
  })
  .refine((d) => (d.scope === 'operator') === (d.operator_id != null), {
    message: 'operator_id is required for an operator jackpot, and only for one',
    path: ['operator_id'],
  })
  .refine(
    (d) => !Array.isArray(d.levels) || new Set(d.levels.map((l) => l?.level)).size === d.levels.length,
    {
      message: 'level names must be unique',
      path: ['levels'],
    },
  )
  .refine(
    (d) => {
      if (!Array.isArray(d.levels)) return true;
      const sets = d.levels.map((l) =>
        l?.currencies && typeof l.currencies === 'object' ? Object.keys(l.currencies).sort().join(',') : '',
      );
      return sets.every((s) => s === sets[0]);
    },
    { message: 'every level must name the same currencies', path: ['levels'] },
  );
export type JackpotDefinitionRequest = z.infer<typeof JackpotDefinitionRequest>;

/** A level's pool in one currency, as operators and admins read it. */
export const JackpotPoolView = z.object({
  currency: CurrencyCode,
  /** The pool's whole minor units (what a hit now would pay). */
  amount_minor: z.string(),
  seed_minor: z.string(),
  cap_minor: z.string().nullable(),
  hit_every_minor: z.string(),
});

export const JackpotLevelView = z.object({
  level: JackpotLevelName,
  contribution_rate_ppm: z.int(),
  pools: z.array(JackpotPoolView),
});

/** A jackpot as its operators see it on their lobby ticker. */
export const JackpotView = z.object({
  jackpot_id: JackpotId,
  name: z.string(),
  scope: z.enum(['network', 'operator']),
  status: z.enum(['active', 'closed']),
  /** The titles whose paid spins feed it (symbols). */
  titles: z.array(z.string()),
  levels: z.array(JackpotLevelView),
});

/** The admin's view: the definition, its operators, and each pool's running totals. */
export const AdminJackpotView = JackpotView.extend({
  operator_id: z.string().nullable(),
  /** The operators taking part: an operator jackpot's own, or a network jackpot's opted-in ones. */
  operators: z.array(z.string()),
  /** Every pool's totals, in micros (millionths of a minor unit): seeded + contributions = amount + reserve + wins. */
  totals: z.array(
    z.object({
      level: JackpotLevelName,
      currency: CurrencyCode,
      amount_micros: z.string(),
      reserve_micros: z.string(),
      seeded_micros: z.string(),
      contributions_micros: z.string(),
      wins_micros: z.string(),
      hits: z.int(),
    }),
  ),
  created_at: z.string(),
});

export const AdminJackpotResponse = successEnvelope(AdminJackpotView);
export const AdminJackpotOperatorResponse = successEnvelope(
  z.object({ jackpot_id: JackpotId, operator_id: z.string(), opted_in: z.boolean() }),
);
export const JackpotListResponse = successEnvelope(z.object({ items: z.array(JackpotView) }));
export const AdminJackpotListResponse = successEnvelope(z.object({ items: z.array(AdminJackpotView) }));
