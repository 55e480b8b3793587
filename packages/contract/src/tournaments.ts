import { z } from 'zod';
import { CurrencyCode, Instant, successEnvelope } from './primitives.js';

/*
 * Tournaments (issue 25, docs/jackpots-and-promotions.md). The provider admin API defines one:
 * slot titles, a window, a scoring rule, per currency a minimum stake and a prize table. Operators
 * opt in; their players' settled rounds score; at the end the leaderboard is frozen and each prize
 * is paid by a `credit` with `action_type: promo_win`. Amounts are minor units (strings out).
 */

/** A tournament's id: lower-case letters, digits, `_` and `-`, 1 to 63 characters. */
export const TournamentId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'lower-case letters, digits, _ and -, 1 to 63 characters');

export const TournamentScoring = z.enum(['max_multiplier', 'total_win']);
export const TournamentStatus = z.enum(['scheduled', 'running', 'ended', 'paid', 'cancelled']);

const PositiveMinor = z.union([
  z.int().min(1).max(1_000_000_000_000),
  z
    .string()
    .regex(/^[1-9][0-9]{0,12}$/, 'a positive integer')
    .refine((v) => !/^[0-9]+$/.test(v) || BigInt(v) <= 1_000_000_000_000n, 'at most 1000000000000'),
]);

/** A prize as a bigint when it is a whole number (number or digit string), else null. */
function asBig(v: unknown): bigint | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : null;
  return typeof v === 'string' && /^[0-9]{1,20}$/.test(v) ? BigInt(v) : null;
}

/** Whether `next` is a larger whole number than `prev` (false when either is not a whole number). */
function increases(prev: unknown, next: unknown): boolean {
  const a = asBig(prev);
  const b = asBig(next);
  return a !== null && b !== null && b > a;
}

/** The longest a tournament may last, and how far ahead it may end (its timers' reach). */
export const TOURNAMENT_MAX_DAYS = 366;

/** One currency's leaderboard: who may score, and what each rank wins. */
export const TournamentCurrency = z
  .object({
    /** The smallest stake (minor units) of a round that counts. */
    min_stake_minor: PositiveMinor,
    /**
     * The prizes by rank: the first is rank 1's. 1 to 100 ranks; a prize never exceeds the one
     * above it (a worse rank never wins more).
     */
    prizes: z.array(PositiveMinor).min(1).max(100),
  })
  // Refinements run on input that failed its own checks too: only whole numbers are compared.
  .refine((c) => !Array.isArray(c.prizes) || c.prizes.every((p, i) => !increases(c.prizes[i - 1], p)), {
    message: 'prizes must not increase with rank',
    path: ['prizes'],
  });

export const TournamentDefinitionRequest = z
  .object({
    /** The name shown to operators and players. */
    name: z.string().trim().min(1).max(200),
    /** `max_multiplier`: the best single round's win / stake; `total_win`: the sum of the wins. */
    scoring: TournamentScoring,
    /** When rounds start to count (RFC 3339). */
    starts_at: Instant,
    /** When they stop counting, after starts_at and in the future, at most 366 days ahead. */
    ends_at: Instant,
    /** The slot titles (prov_a, prov_b; symbols or slugs) whose settled paid rounds score. */
    titles: z.array(z.string().min(1).max(64)).min(1).max(100),
    /** The currencies it runs in, each its own leaderboard (1 to 20). */
    currencies: z
      .record(CurrencyCode, TournamentCurrency)
      .refine((r) => Object.keys(r).length >= 1 && Object.keys(r).length <= 20, '1 to 20 currencies'),
  })
  .refine((d) => Date.parse(d.ends_at) > Date.parse(d.starts_at), {
    message: 'ends_at must be after starts_at',
    path: ['ends_at'],
  });
export type TournamentDefinitionRequest = z.infer<typeof TournamentDefinitionRequest>;

export const TournamentCurrencyView = z.object({
  currency: CurrencyCode,
  min_stake_minor: z.string(),
  prizes: z.array(z.object({ rank: z.int(), amount_minor: z.string() })),
});

/** A tournament as its operators see it. */
export const TournamentView = z.object({
  tournament_id: TournamentId,
  name: z.string(),
  scoring: TournamentScoring,
  starts_at: z.string(),
  ends_at: z.string(),
  /** scheduled, running, ended (leaderboard frozen, prizes being paid), paid, or cancelled. */
  status: TournamentStatus,
  /** The titles whose rounds score (symbols). */
  titles: z.array(z.string()),
  currencies: z.array(TournamentCurrencyView),
});

/** The admin's view: the definition, its operators, and its payouts once frozen. */
export const AdminTournamentView = TournamentView.extend({
  operators: z.array(z.string()),
  created_at: z.string(),
  cancelled_at: z.string().nullable(),
  frozen_at: z.string().nullable(),
  paid_at: z.string().nullable(),
  payouts: z.array(
    z.object({
      payout_id: z.string(),
      currency: CurrencyCode,
      rank: z.int(),
      operator_id: z.string(),
      player_id: z.string(),
      amount_minor: z.string(),
      status: z.enum(['pending', 'paid']),
    }),
  ),
});

export const LeaderboardQuery = z.object({
  /** Only this currency's leaderboard (default: every currency's). */
  currency: CurrencyCode.optional(),
  /** The top N of each leaderboard, 1 to 100 (default 10). */
  limit: z.coerce.number().int().min(1).max(100).default(10),
});

export const LeaderboardEntry = z.object({
  rank: z.int(),
  /** The operator's own player: its external id; another operator's: null. */
  player_id: z.string().nullable(),
  /** A display id for every entry that reveals nothing of another operator's player id. */
  display_id: z.string(),
  /** Whether the player is the calling operator's. */
  own: z.boolean(),
  /** The score: a multiplier (8 decimals) or a total win in minor units. */
  score: z.string(),
  /** The prize of the rank (minor units), null when the rank wins none. */
  prize_minor: z.string().nullable(),
});

export const TournamentLeaderboard = z.object({
  tournament_id: TournamentId,
  status: TournamentStatus,
  /** True once the leaderboard is frozen (the tournament ended); until then it is live. */
  frozen: z.boolean(),
  leaderboards: z.array(z.object({ currency: CurrencyCode, items: z.array(LeaderboardEntry) })),
});

export const AdminTournamentResponse = successEnvelope(AdminTournamentView);
export const AdminTournamentListResponse = successEnvelope(z.object({ items: z.array(AdminTournamentView) }));
export const AdminTournamentOperatorResponse = successEnvelope(
  z.object({ tournament_id: TournamentId, operator_id: z.string(), opted_in: z.boolean() }),
);
export const TournamentListResponse = successEnvelope(z.object({ items: z.array(TournamentView) }));
export const TournamentLeaderboardResponse = successEnvelope(TournamentLeaderboard);
