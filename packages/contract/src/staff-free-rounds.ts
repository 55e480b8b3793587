import { z } from 'zod';
import { Campaign, CampaignDetail } from './free-rounds.js';
import { MinorAmount } from './primitives.js';
import { StaffAuditEntry } from './staff-audit.js';
import { staffPage } from './staff-play.js';

/*
 * The staff API's free-round campaigns (/api/staff/v1/operators/{operator_id}: `GET /free-rounds`,
 * `GET /free-rounds/{campaign_id}`, an admin's `POST /free-rounds/{campaign_id}/cancel`): the
 * operator API's campaigns (free-rounds.ts) with the rounds left and the campaign's rounds.
 */

/** A campaign as the staff list shows it: the operator API's, plus its unplayed rounds. */
export const StaffCampaign = Campaign.extend({
  /** Rounds not yet played by its players (void once the campaign is cancelled or expired). */
  rounds_remaining: z.number().int(),
});
export type StaffCampaign = z.infer<typeof StaffCampaign>;

/** `GET /free-rounds`: campaign id order, keyset pages. */
export const StaffCampaignList = z.object({
  items: z.array(StaffCampaign),
  next_cursor: z.string().nullable(),
});
export type StaffCampaignList = z.infer<typeof StaffCampaignList>;

/** A round played on the campaign (newest first). */
export const StaffCampaignRound = z.object({
  round_id: z.string(),
  created_at: z.string(),
  settled_at: z.string().nullable(),
  player_id: z.string(),
  session_id: z.string(),
  game_symbol: z.string(),
  status: z.string(),
  stuck: z.boolean(),
  bet_minor: MinorAmount.nullable(),
  win_minor: MinorAmount,
  currency: z.string(),
});
export type StaffCampaignRound = z.infer<typeof StaffCampaignRound>;

/** `GET /free-rounds/{campaign_id}`: the campaign with a page of its players and of its rounds. */
export const StaffCampaignDetail = CampaignDetail.extend({
  rounds_remaining: z.number().int(),
  /** Its rounds not yet final (they finish after a cancel). */
  rounds_in_flight: z.number().int(),
  rounds_page: staffPage(StaffCampaignRound),
});
export type StaffCampaignDetail = z.infer<typeof StaffCampaignDetail>;

/** `POST /free-rounds/{campaign_id}/cancel`. */
export const StaffCampaignCancelResult = z.object({
  /** cancelled: cancelled now; already_cancelled: it was (the operator's DELETE or another staff member). */
  result: z.enum(['cancelled', 'already_cancelled']),
  message: z.string(),
  campaign: CampaignDetail,
  audit: StaffAuditEntry,
});
export type StaffCampaignCancelResult = z.infer<typeof StaffCampaignCancelResult>;
