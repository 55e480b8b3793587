import { z } from 'zod';
import { CurrencyCode, ExternalPlayerId, Instant } from './primitives.js';

/*
 * Free-round campaigns (issue 18): /api/provider/v1/free-rounds. An operator grants players a number
 * of rounds of its prov_a / prov_b slot titles at a fixed stake; the provider pays for them (no
 * debit is ever sent; each round's win is paid with a credit whose body carries
 * `action_type: free_round` and `campaign_id`). See docs/free-rounds.md.
 */

/** At most this many rounds per player in one campaign. */
export const FREE_ROUNDS_MAX = 1000;
/** At most this many players per request (create or add players). */
export const FREE_ROUND_PLAYERS_MAX = 1000;
/** At most this many titles per campaign. */
export const FREE_ROUND_SYMBOLS_MAX = 50;

/** The operator's own campaign id: 1 to 64 visible ASCII characters; the idempotency key. */
export const CampaignId = z
  .string()
  .regex(/^[\x21-\x7e]{1,64}$/, '1 to 64 visible ASCII characters (no spaces)');

const Players = z
  .array(ExternalPlayerId)
  .max(FREE_ROUND_PLAYERS_MAX, `at most ${FREE_ROUND_PLAYERS_MAX} players per request`);

export const CreateCampaignRequest = z
  .object({
    /** The operator's own campaign id: the idempotency key (the same body again answers the original). */
    campaign_id: CampaignId,
    /** Slot titles (prov_a, prov_b) of the operator's catalog; the rounds are played on any of them. */
    symbols: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(FREE_ROUND_SYMBOLS_MAX, `at most ${FREE_ROUND_SYMBOLS_MAX} titles`),
    /** The currency the rounds are played and credited in. */
    currency: CurrencyCode,
    /**
     * Stake of each round in minor units: a stake every title offers, within the operator's bet
     * limits (in a crypto currency, a stake of each title's ladder by rate in force today).
     */
    bet_minor: z.union([z.int().positive(), z.string().regex(/^[1-9][0-9]{0,17}$/, 'a positive integer')]),
    /** Rounds per player (1 to 1000). */
    rounds: z.int().min(1).max(FREE_ROUNDS_MAX),
    /** Start of the window (RFC 3339, any offset; read in UTC). */
    valid_from: Instant,
    /** End of the window (RFC 3339): no round starts at or after it. Must be after valid_from. */
    expires_at: Instant,
    /** Players granted the rounds (external_player_id); more can be added later. */
    players: Players.optional(),
  })
  .refine((b) => b.expires_at > b.valid_from, {
    message: 'expires_at must be after valid_from',
    path: ['expires_at'],
  });
export type CreateCampaignRequest = z.infer<typeof CreateCampaignRequest>;

export const AddPlayersRequest = z.object({
  /** Players to grant the campaign's rounds (a player already granted is left as is). */
  players: Players.min(1),
});

export const ListCampaignsQuery = z.object({
  /** Page size, 1 to 100 (default 50). */
  limit: z.coerce.number().int().min(1).max(100).default(50),
  /** The `next_cursor` of the previous page. */
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, 'a cursor from next_cursor')
    .optional(),
});

/**
 * Players per page of a campaign read (`GET /free-rounds/{campaign_id}`, and the answers of create,
 * add players and cancel): 1000 by default and at most, so a campaign granted in one request (at
 * most 1000 players) still reads in one answer, and a larger one in pages of at most ~150 kB.
 */
export const CAMPAIGN_PLAYERS_PAGE_MAX = 1000;

export const CampaignQuery = z.object({
  /** Players per page, 1 to 1000 (default 1000), in external_player_id order. */
  limit: z.coerce.number().int().min(1).max(CAMPAIGN_PLAYERS_PAGE_MAX).default(CAMPAIGN_PLAYERS_PAGE_MAX),
  /** The `players_next_cursor` of the previous page. */
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,400}$/, 'a cursor from players_next_cursor')
    .optional(),
});

export const CampaignStatus = z.enum(['scheduled', 'active', 'expired', 'cancelled']);

export const CampaignPlayer = z.object({
  external_player_id: z.string(),
  rounds_total: z.int(),
  rounds_used: z.int(),
  rounds_remaining: z.int(),
  /** Sum of the credits paid for this player's free rounds (minor units, decimal string). */
  won_minor: z.string(),
});

export const Campaign = z.object({
  campaign_id: z.string(),
  operator_id: z.string(),
  symbols: z.array(z.string()),
  currency: z.string(),
  bet_minor: z.string(),
  rounds: z.int(),
  valid_from: z.string(),
  expires_at: z.string(),
  created_at: z.string(),
  cancelled_at: z.string().nullable(),
  status: CampaignStatus,
  players_count: z.int(),
  rounds_used: z.int(),
  won_minor: z.string(),
});
export type Campaign = z.infer<typeof Campaign>;

export const CampaignDetail = Campaign.extend({
  /** A page of the campaign's players in external_player_id order (the first page unless `cursor`). */
  players: z.array(CampaignPlayer),
  /** Pass as `cursor` for the next page of players; null on the last page. */
  players_next_cursor: z.string().nullable(),
});

export const CampaignResponse = z.object({ success: z.literal(true), data: CampaignDetail });
export const CampaignListResponse = z.object({
  success: z.literal(true),
  data: z.object({ items: z.array(Campaign), next_cursor: z.string().nullable() }),
});

/** Free rounds a launched session can play now (launch response and the runtime session read). */
export const SessionFreeRounds = z.object({
  campaign_id: z.string(),
  /**
   * The stake each free round is played at, in minor units: the campaign's; in a session frozen
   * with a stake ladder (a crypto currency) whose ladder lacks it, the ladder's nearest stake.
   */
  bet_minor: z.string(),
  rounds_remaining: z.int(),
  rounds_total: z.int(),
  won_minor: z.string(),
  expires_at: z.string(),
  /** The player declined them in this session (paid spins allowed). */
  declined: z.boolean(),
});
export type SessionFreeRounds = z.infer<typeof SessionFreeRounds>;
