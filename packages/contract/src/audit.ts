import { z } from 'zod';
import { ProviderId, TransactionStatus, TransactionType } from './constants.js';
import { JackpotId, JackpotLevelName } from './jackpots.js';
import { StakeLadderInfo } from './launch.js';
import { AuditTransaction, OperatorTransaction } from './operator.js';
import { BetsBlocked } from './player-protection.js';
import { CurrencyCode, Instant, MinorAmount, successEnvelope } from './primitives.js';

/*
 * The operator audit bodies and query parameters the spec leaves unstated ("not shown"): chosen
 * here, documented in docs/audit-and-reconciliation.md and the OpenAPI document, and used by the
 * routes and the tests.
 */

/** Page size of the searches: 50 unless `limit` says otherwise, at most 200. */
export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;
/** Rounds that make up a reconciliation difference, listed at most this many (the totals cover all). */
export const RECONCILIATION_ITEMS_MAX = 500;

const Id = z.string().min(1).max(200);

/** Query parameters shared by both searches. */
const SearchBase = {
  session_id: Id.optional(),
  /** The operator's external_player_id. */
  player_id: Id.optional(),
  currency: CurrencyCode.optional(),
  /**
   * Created at or after: an RFC 3339 date-time with `Z` or a numeric offset (any up to ±23:59),
   * naming an instant from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z; read in UTC to
   * the microsecond (further fraction digits are cut). Anything else is 422 at `query.from`.
   */
  from: Instant.optional(),
  /** Created before: an instant as for `from` (422 at `query.to` otherwise). */
  to: Instant.optional(),
  /** Page size: an integer from 1 to 200 (default 50). */
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT),
  /** Opaque; the `next_cursor` of the previous page, unchanged (anything else is 422 at `query.cursor`). */
  cursor: z.string().max(400).optional(),
};

/** `GET /api/operator/v1/transactions` query. */
export const TransactionSearchQuery = z.strictObject({
  ...SearchBase,
  round_id: Id.optional(),
  status: TransactionStatus.optional(),
  type: TransactionType.optional(),
});
export type TransactionSearchQuery = z.infer<typeof TransactionSearchQuery>;

export const ROUND_STATUSES = [
  'open',
  'settling',
  'completed',
  'rejected',
  'cancelled',
  'rolled_back',
] as const;
export const RoundStatus = z.enum(ROUND_STATUSES);

/** `GET /api/operator/v1/rounds` query. */
export const RoundSearchQuery = z.strictObject({
  ...SearchBase,
  status: RoundStatus.optional(),
  game_symbol: Id.optional(),
  stuck: z.enum(['true', 'false']).optional(),
});
export type RoundSearchQuery = z.infer<typeof RoundSearchQuery>;

/** `GET /api/operator/v1/reconciliation` (and `.csv`) query: rounds created in [from, to). */
export const ReconciliationQuery = z.strictObject({
  /**
   * Rounds created at or after (default: from the beginning): an RFC 3339 date-time with `Z` or a
   * numeric offset (any up to ±23:59), naming an instant from 1970-01-01T00:00:00Z to
   * 9999-12-31T23:59:59.999999Z; read in UTC to the microsecond and answered as such in `from`.
   * Anything else is 422 at `query.from`.
   */
  from: Instant.optional(),
  /** Rounds created before (default: now): an instant as for `from` (422 at `query.to` otherwise). */
  to: Instant.optional(),
  currency: CurrencyCode.optional(),
});
export type ReconciliationQuery = z.infer<typeof ReconciliationQuery>;

/** `GET /api/operator/v1/jackpot-contributions` query: the operator's contributing rounds. */
export const JackpotContributionQuery = z.strictObject({
  ...SearchBase,
  jackpot_id: JackpotId.optional(),
  /** The round's status. */
  status: RoundStatus.optional(),
});
export type JackpotContributionQuery = z.infer<typeof JackpotContributionQuery>;

export const JACKPOT_HIT_STATUSES = ['pending', 'paid', 'forfeited'] as const;
/** A jackpot hit: `pending` until its `jackpot_win` credit succeeds (`paid`), or `forfeited` when the round's wager never stood. */
export const JackpotHitStatus = z.enum(JACKPOT_HIT_STATUSES);

/** `GET /api/operator/v1/jackpot-wins` query. */
export const JackpotWinQuery = z.strictObject({
  ...SearchBase,
  jackpot_id: JackpotId.optional(),
  level: JackpotLevelName.optional(),
  round_id: Id.optional(),
  status: JackpotHitStatus.optional(),
});
export type JackpotWinQuery = z.infer<typeof JackpotWinQuery>;

export const PROMO_TYPES = ['tournament', 'prize_drop'] as const;
export const PromoType = z.enum(PROMO_TYPES);
export const PROMO_PAYOUT_STATUSES = ['pending', 'paid'] as const;
/** A promotional payout: `pending` until its `promo_win` credit succeeds, then `paid`. */
export const PromoPayoutStatus = z.enum(PROMO_PAYOUT_STATUSES);

/** `GET /api/operator/v1/promo-payouts` query. */
export const PromoPayoutQuery = z.strictObject({
  ...SearchBase,
  promo_type: PromoType.optional(),
  /** The tournament's or prize drop's id. */
  promo_id: Id.optional(),
  status: PromoPayoutStatus.optional(),
});
export type PromoPayoutQuery = z.infer<typeof PromoPayoutQuery>;

/** A page of a search, newest first. */
function page<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    limit: z.number().int(),
    /** Pass as `cursor` for the next page; null on the last page. */
    next_cursor: z.string().nullable(),
  });
}

export const TransactionSearchResponse = successEnvelope(page(AuditTransaction));
export type TransactionSearchResponse = z.infer<typeof TransactionSearchResponse>;

/** A round as the operator audits it: a stable id and integer totals. */
export const OperatorRound = z.object({
  round_id: z.string(),
  operator_id: z.string(),
  session_id: z.string(),
  player_id: z.string(),
  game_symbol: z.string(),
  provider_id: ProviderId,
  currency: CurrencyCode,
  status: RoundStatus,
  /**
   * A rejected round's code: the operator wallet's refusal of its debit (e.g. `insufficient_funds`,
   * `limit_reached`, `self_excluded`); null for any other status.
   */
  rejection_code: z.string().nullable(),
  /** True while a wallet step keeps failing and staff should look. */
  stuck: z.boolean(),
  bet_minor: MinorAmount,
  win_minor: MinorAmount,
  created_at: z.string(),
  settled_at: z.string().nullable(),
  /** A round that fed a progressive jackpot: its id (absent for any other round). */
  jackpot_id: z.string().optional(),
  /**
   * Its contribution to the jackpot, summed over the levels, in millionths of a minor unit: an
   * exact decimal string (absent for a round that fed no jackpot).
   */
  jackpot_contribution_micros: z.string().optional(),
  /**
   * The minor units its jackpot hits won (paid by `jackpot_win` credits); absent with no jackpot.
   * 0 until the round's debit is applied (no result is told before the wager stands), and for a
   * round whose wager was refused (its hit is forfeited).
   */
  jackpot_win_minor: MinorAmount.optional(),
  /**
   * Extension (issue 39): the stake ladder the round was played at, with its version and the
   * exchange rate it was derived at (docs/currencies.md "Stake ladders"); absent for a round of a
   * session without one (a fiat currency, a coin launch).
   */
  stake_ladder: StakeLadderInfo.pick({ ladder_id: true, version: true, rate: true }).optional(),
  /**
   * The round's replay page (issue 26): `<GAME_BASE_URL>/replay/<round_id>?sig=<signature>`, a
   * read-only page on the game origin that shows the round as the player saw it, with no session
   * and no wallet call. Stable, signed and not guessable: valid for as long as the round is
   * retained and SERVICE_SECRET is unchanged (rotating the secret invalidates every link issued
   * before). For staff and support; give a player the short-lived link of
   * `POST /api/operator/v1/rounds/{round_id}/replay-url` instead.
   */
  round_details_url: z.string(),
});
export type OperatorRound = z.infer<typeof OperatorRound>;

export const RoundSearchResponse = successEnvelope(page(OperatorRound));
export type RoundSearchResponse = z.infer<typeof RoundSearchResponse>;

export const RoundDetailResponse = successEnvelope(
  OperatorRound.extend({ transactions: z.array(AuditTransaction) }),
);
export type RoundDetailResponse = z.infer<typeof RoundDetailResponse>;

/**
 * A round id a replay link can name (the replay page's path segment): letters, digits and `_:.-`,
 * 1 to 128 characters. Anything else is 422 at `path.round_id`.
 */
export const ReplayRoundId = z.string().regex(/^[A-Za-z0-9_:.-]{1,128}$/);

/** Body of `POST /api/operator/v1/rounds/{round_id}/replay-url`: no fields (an empty object, or no body). */
export const ReplayUrlRequest = z.strictObject({});
export type ReplayUrlRequest = z.infer<typeof ReplayUrlRequest>;

/** `data` of `POST /api/operator/v1/rounds/{round_id}/replay-url`: a link to give a player. */
export const ReplayUrl = z.object({
  round_id: z.string(),
  /**
   * The round's replay page, time-limited:
   * `<GAME_BASE_URL>/replay/<round_id>?k=<key id>&iat=<unix seconds>&exp=<unix seconds>&sig=<signature>`.
   * Opens as often as wanted until `expires_at` (time-limited, not single use); refused after, and
   * once a revocation of the round's (or the operator's) replay links follows its issue.
   */
  url: z.string(),
  /** When the link stops working: ten minutes after it was issued (RFC 3339, UTC). */
  expires_at: z.string(),
});
export type ReplayUrl = z.infer<typeof ReplayUrl>;
export const ReplayUrlResponse = successEnvelope(ReplayUrl);
export type ReplayUrlResponse = z.infer<typeof ReplayUrlResponse>;

/** Body of the replay-link revocations (`POST /api/admin/v1/.../replay-links/revoke`): optional. */
export const ReplayLinkRevokeRequest = z.strictObject({
  /** Why the links are revoked (kept with the revocation). */
  reason: z.string().min(1).max(500).optional(),
});
export type ReplayLinkRevokeRequest = z.infer<typeof ReplayLinkRevokeRequest>;

/**
 * `data` of a replay-link revocation: every replay link of the round (scope `round`), or of every
 * round of the operator made before `revoked_at` (scope `operator`), issued before `revoked_at`
 * stops opening (410); links issued after it open.
 */
export const ReplayLinkRevocation = z.object({
  scope: z.enum(['round', 'operator']),
  /** The round (scope `round`) or the operator (scope `operator`). */
  subject_id: z.string(),
  /** The round's operator (scope `round`), or the operator itself. */
  operator_id: z.string(),
  /** From this instant back, the links issued are refused (RFC 3339, UTC). A repeat moves it forward. */
  revoked_at: z.string(),
  reason: z.string().nullable(),
});
export type ReplayLinkRevocation = z.infer<typeof ReplayLinkRevocation>;
export const ReplayLinkRevocationResponse = successEnvelope(ReplayLinkRevocation);
export type ReplayLinkRevocationResponse = z.infer<typeof ReplayLinkRevocationResponse>;

/** A round that fed a progressive jackpot (`GET /api/operator/v1/jackpot-contributions`). */
export const OperatorJackpotContribution = z.object({
  round_id: z.string(),
  jackpot_id: z.string(),
  session_id: z.string(),
  /** The operator's external player id. */
  player_id: z.string(),
  game_symbol: z.string(),
  currency: CurrencyCode,
  /** The round's stake (minor units). */
  stake_minor: MinorAmount,
  /** Its contribution over every level, in millionths of a minor unit: an exact decimal string. */
  contribution_micros: z.string(),
  /** The minor units its hits won (0 without a hit, and until the round's debit is applied). */
  jackpot_win_minor: MinorAmount,
  /** The round's status: a rejected, cancelled or rolled-back round's wager never stood. */
  round_status: RoundStatus,
  created_at: z.string(),
});
export type OperatorJackpotContribution = z.infer<typeof OperatorJackpotContribution>;
export const JackpotContributionSearchResponse = successEnvelope(page(OperatorJackpotContribution));
export type JackpotContributionSearchResponse = z.infer<typeof JackpotContributionSearchResponse>;

/** One level a round hit (`GET /api/operator/v1/jackpot-wins`). */
export const OperatorJackpotWin = z.object({
  round_id: z.string(),
  jackpot_id: z.string(),
  level: z.string(),
  currency: CurrencyCode,
  /** The operator's external player id. */
  player_id: z.string(),
  amount_minor: MinorAmount,
  status: JackpotHitStatus,
  /** The `jackpot_win` credit's transaction id (`<round>:jackpot:<level>`; never sent for a forfeited hit). */
  transaction_id: z.string(),
  created_at: z.string(),
  /** When it was paid or forfeited; null while pending. */
  settled_at: z.string().nullable(),
});
export type OperatorJackpotWin = z.infer<typeof OperatorJackpotWin>;
export const JackpotWinSearchResponse = successEnvelope(page(OperatorJackpotWin));
export type JackpotWinSearchResponse = z.infer<typeof JackpotWinSearchResponse>;

/** A promotional prize owed to a player (`GET /api/operator/v1/promo-payouts`). */
export const OperatorPromoPayout = z.object({
  /** The payout id: the round reference (`round_id`) of its `promo_win` credit. */
  payout_id: z.string(),
  promo_type: PromoType,
  promo_id: z.string(),
  /** The tournament rank; null for a prize drop. */
  rank: z.number().int().nullable(),
  operator_id: z.string(),
  /** The operator's external player id. */
  player_id: z.string(),
  currency: CurrencyCode,
  amount_minor: MinorAmount,
  status: PromoPayoutStatus,
  /** The `promo_win` credit's transaction id (`<payout_id>:credit`). */
  transaction_id: z.string(),
  /** That credit's journal status; null before it is journalled. */
  transaction_status: TransactionStatus.nullable(),
  created_at: z.string(),
  paid_at: z.string().nullable(),
});
export type OperatorPromoPayout = z.infer<typeof OperatorPromoPayout>;
export const PromoPayoutSearchResponse = successEnvelope(page(OperatorPromoPayout));
export type PromoPayoutSearchResponse = z.infer<typeof PromoPayoutSearchResponse>;
export const PromoPayoutResponse = successEnvelope(OperatorPromoPayout);
export type PromoPayoutResponse = z.infer<typeof PromoPayoutResponse>;

/** `data` of `GET /api/operator/v1/sessions/{session_id}`. */
export const OperatorSession = z.object({
  session_id: z.string(),
  operator_id: z.string(),
  player_id: z.string(),
  game_symbol: z.string(),
  provider_id: ProviderId,
  currency: CurrencyCode,
  status: z.enum(['active', 'closed', 'revoked']),
  device: z.string().nullable(),
  lang: z.string().nullable(),
  return_url: z.string().nullable(),
  created_at: z.string(),
  last_activity_at: z.string(),
  expires_at: z.string().nullable(),
  rounds: z.object({ total: z.number().int(), open: z.number().int(), stuck: z.number().int() }),
  /**
   * Player protection: set while the session takes no bets because the operator wallet refused a
   * debit with a blocking code (`self_excluded`, `session_time_limit`, `player_blocked` or a code
   * the service does not know); a new launch of the same player, game and currency clears it.
   */
  bets_blocked: BetsBlocked.nullable(),
});
export type OperatorSession = z.infer<typeof OperatorSession>;
export const OperatorSessionResponse = successEnvelope(OperatorSession);

/** One currency's totals. Deltas are the player's side: a debit is negative, a credit positive. */
export const ReconciliationCurrency = z.object({
  currency: CurrencyCode,
  rounds: z.number().int(),
  transactions: z.number().int(),
  /** Sum of successful debits (negative), credits, cancels and rollbacks (positive). */
  wallet_delta_minor: MinorAmount,
  /** Sum over rounds of win - bet; zero for rejected, cancelled and rolled-back rounds. */
  game_delta_minor: MinorAmount,
  difference_minor: MinorAmount,
  pending_transactions: z.number().int(),
  balanced: z.boolean(),
});
export type ReconciliationCurrency = z.infer<typeof ReconciliationCurrency>;

/** A round whose wallet effect differs from its history, or with a pending transaction. */
export const ReconciliationItem = z.object({
  round_id: z.string(),
  currency: CurrencyCode,
  round_status: RoundStatus.nullable(),
  wallet_delta_minor: MinorAmount,
  game_delta_minor: MinorAmount,
  difference_minor: MinorAmount,
  pending_transactions: z.number().int(),
  transaction_ids: z.array(z.string()),
});
export type ReconciliationItem = z.infer<typeof ReconciliationItem>;

/** Free rounds of the window in one currency, reported apart from paid play (docs/free-rounds.md). */
export const ReconciliationFreeRounds = z.object({
  currency: CurrencyCode,
  /** Free rounds (bet 0) recorded in the window; they are counted in the currency totals too. */
  rounds: z.number().int(),
  /** Their game delta: the wins (a free round's bet is 0). */
  free_round_win_minor: MinorAmount,
  /** Their wallet delta: the credits that paid them (a free round has no debit). */
  free_round_credit_minor: MinorAmount,
});

/**
 * Jackpots of the window in one currency, apart: the contributions of its rounds whose wager stood
 * and its hits by status. Jackpot wins are in the rounds' totals too (a completed round's game side
 * includes its jackpot wins, its wallet side the `jackpot_win` credits).
 */
export const ReconciliationJackpots = z.object({
  currency: CurrencyCode,
  /** Rounds of the window that fed a jackpot and whose wager stood (not rejected, cancelled or rolled back). */
  contributing_rounds: z.number().int(),
  /** Their contributions, in millionths of a minor unit: an exact decimal string. */
  contribution_micros: z.string(),
  /** Hits of the window's rounds, by status, and their minor units. */
  hits_paid: z.number().int(),
  win_paid_minor: MinorAmount,
  hits_pending: z.number().int(),
  win_pending_minor: MinorAmount,
  hits_forfeited: z.number().int(),
  win_forfeited_minor: MinorAmount,
});
export type ReconciliationJackpots = z.infer<typeof ReconciliationJackpots>;

/**
 * Promotional payouts (tournaments, prize drops) created in the window in one currency: the promo
 * ledger (what the payouts owe) against the wallet side (the successful `promo_win` credits of
 * those payout ids). Not game rounds: they are in no round total.
 */
export const ReconciliationPromoPayouts = z.object({
  currency: CurrencyCode,
  payouts: z.number().int(),
  /** The payouts' amounts, paid and pending. */
  ledger_minor: MinorAmount,
  /** The successful credits of those payouts in this currency. */
  wallet_credit_minor: MinorAmount,
  /** wallet_credit_minor - ledger_minor. */
  difference_minor: MinorAmount,
  /** Payouts not yet paid, and their amounts. */
  pending_payouts: z.number().int(),
  pending_minor: MinorAmount,
  /** Their journal rows still pending (sent or about to be, no answer yet). */
  pending_transactions: z.number().int(),
  /** Zero difference, nothing pending, no credit in another currency. */
  balanced: z.boolean(),
});
export type ReconciliationPromoPayouts = z.infer<typeof ReconciliationPromoPayouts>;

export const Reconciliation = z.object({
  operator_id: z.string(),
  from: z.string().nullable(),
  to: z.string(),
  /**
   * Every currency's rounds balanced (zero difference, no pending financial transaction) and every
   * currency's promotional payouts balanced (`promo_payouts`).
   */
  balanced: z.boolean(),
  currencies: z.array(ReconciliationCurrency),
  items: z.array(ReconciliationItem),
  /** True when more rounds differ than `items` lists. */
  items_truncated: z.boolean(),
  /** Free-round campaigns' rounds per currency, apart (included in `currencies` as well). */
  free_rounds: z.array(ReconciliationFreeRounds),
  /** Every currency of `currencies` balanced (the rounds alone). */
  rounds_balanced: z.boolean(),
  /** Jackpot contributions and wins of the window's rounds per currency, apart (their wins are in `currencies` too). */
  jackpots: z.array(ReconciliationJackpots),
  /** Promotional payouts created in the window per currency: the promo ledger against the wallet. */
  promo_payouts: z.array(ReconciliationPromoPayouts),
  /** Every currency of `promo_payouts` balanced (true when there is none). */
  promo_payouts_balanced: z.boolean(),
});
export type Reconciliation = z.infer<typeof Reconciliation>;
export const ReconciliationResponse = successEnvelope(Reconciliation);

/** Header of `reconciliation.csv` (one row per currency after it). */
export const RECONCILIATION_CSV_HEADER = [
  'currency',
  'rounds',
  'transactions',
  'wallet_delta_minor',
  'game_delta_minor',
  'difference_minor',
  'pending_transactions',
  'balanced',
  'jackpot_contribution_micros',
  'jackpot_win_paid_minor',
  'jackpot_win_pending_minor',
  'jackpot_win_forfeited_minor',
  'promo_payouts',
  'promo_ledger_minor',
  'promo_wallet_credit_minor',
  'promo_difference_minor',
  'promo_pending_payouts',
  'promo_balanced',
] as const;

/*
 * Entries of the native history arrays (the spec: "not shown"). The session history lists every
 * stage of every round of the session in order; the round history adds its ledger and wallet.
 */

/** One recorded stage of a multi-step round: a player action or an engine step. */
export const NativeStageEntry = z.object({
  round_id: z.string(),
  /** 0, 1, 2 ... within the round. */
  seq: z.number().int().nonnegative(),
  /** bet, reveal, guess, roll, cashout, bust, abandon, cancel ... */
  action: z.string(),
  inputs: z.record(z.string(), z.unknown()),
  outcome: z.record(z.string(), z.unknown()),
  /** The running multiplier after this stage, an exact decimal string; null where none applies. */
  multiplier: z.string().nullable(),
  created_at: z.string(),
});
export type NativeStageEntry = z.infer<typeof NativeStageEntry>;

/** A money movement the round caused at the operator's wallet (journalled successes only). */
export const NativeLedgerEntry = z.object({
  transaction_id: z.string(),
  transaction_type: TransactionType,
  /** The player's side: a debit is negative, a credit, cancel or rollback positive. */
  delta_minor: MinorAmount,
  currency: CurrencyCode,
  /** The balance the wallet answered, as its decimal string. */
  wallet_balance: z.string().nullable(),
  completed_at: z.string().nullable(),
});
export type NativeLedgerEntry = z.infer<typeof NativeLedgerEntry>;

/** A wallet call of the round as journalled: every transaction, whatever its status. */
export const NativeWalletEntry = OperatorTransaction.extend({
  attempts: z.number().int(),
  http_status: z.number().int().nullable(),
  error_code: z.string().nullable(),
  created_at: z.string(),
  completed_at: z.string().nullable(),
});
export type NativeWalletEntry = z.infer<typeof NativeWalletEntry>;
