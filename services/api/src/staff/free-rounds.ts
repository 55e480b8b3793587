import type {
  StaffCampaignCancelResult,
  StaffCampaignDetail,
  StaffCampaignList,
  StaffCampaignRound,
} from '@opi/contract';
import type { Pool } from '@opi/db';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../audit/cursor.js';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';
import { cancelCampaign, decodePlayerCursor, listCampaigns, readCampaign } from '../free-rounds/campaigns.js';
import { writeAudit } from './audit-log.js';
import type { StaffPrincipal } from './auth.js';

/*
 * The staff portal's Free rounds pages (issue 18, item 4): an operator's free-round campaigns, one
 * campaign with its players and its rounds, and the admin's cancel. The campaign reads and the
 * cancel are the operator API's own functions (free-rounds/campaigns.ts); the staff layer adds the
 * rounds of a campaign (rounds.free_round_campaign_id) and the audit row of a cancel.
 */

/** A round that has not reached one of these is still in flight (it finishes after a cancel). */
const FINAL = ['completed', 'rejected', 'cancelled', 'rolled_back'];

/**
 * `GET .../free-rounds/{campaign_id}` query: a page of the campaign's rounds, newest first
 * (`limit`, `cursor`), and a page of its players by player id (`players_limit`, 100 by default,
 * and `players_cursor`, the previous page's `players_next_cursor`).
 */
export const StaffCampaignQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(400).optional(),
  players_limit: z.coerce.number().int().min(1).max(1000).default(100),
  players_cursor: z.string().max(400).optional(),
});

/** `POST .../free-rounds/{campaign_id}/cancel` body: an optional reason, kept in the audit log. */
export const StaffCampaignCancelRequest = z.strictObject({
  reason: z.string().trim().max(500).optional(),
});

/** Rounds of the campaign not yet played by its players (void once it is cancelled or expired). */
function unplayed(c: { players_count: number; rounds: number; rounds_used: number }): number {
  return c.players_count * c.rounds - c.rounds_used;
}

/** The campaigns list: the operator API's list (campaign id order, keyset cursor) plus rounds remaining. */
export async function staffCampaigns(
  deps: ApiDeps,
  operator: OperatorRow,
  query: Record<string, string | string[] | undefined>,
): Promise<StaffCampaignList> {
  const page = await listCampaigns(deps, operator, query);
  return {
    items: page.items.map((c) => ({ ...c, rounds_remaining: unplayed(c) })),
    next_cursor: page.next_cursor,
  };
}

/** One campaign, its players (rounds used and remaining, won) and a page of its rounds, newest first. */
export async function staffCampaign(
  pool: Pool,
  operatorId: string,
  campaignId: string,
  q: z.infer<typeof StaffCampaignQuery>,
): Promise<StaffCampaignDetail> {
  const campaign = await readCampaign(pool, operatorId, campaignId, {
    limit: q.players_limit,
    after:
      q.players_cursor === undefined
        ? null
        : decodePlayerCursor(q.players_cursor, ['query', 'players_cursor']),
  });
  const cursor = decodeCursor(q.cursor);
  const { rows } = await pool.query<
    Omit<StaffCampaignRound, 'bet_minor' | 'win_minor' | 'created_at' | 'settled_at'> & {
      bet_minor: bigint | null;
      win_minor: bigint;
      created_at: Date;
      settled_at: Date | null;
      micros: bigint;
    }
  >(
    `SELECT r.round_id, r.created_at, r.settled_at, p.external_player_id AS player_id, r.session_id,
            r.symbol AS game_symbol, r.status, r.stuck, r.free_round_bet_minor AS bet_minor, r.win_minor,
            trim(r.currency) AS currency, (extract(epoch FROM r.created_at) * 1000000)::bigint AS micros
       FROM rounds r JOIN players p ON p.player_id = r.player_id
      WHERE r.operator_id = $1 AND r.free_round_campaign_id = $2
        AND ($3::bigint IS NULL
             OR (r.created_at, r.round_id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4))
      ORDER BY r.created_at DESC, r.round_id DESC LIMIT $5`,
    [operatorId, campaignId, cursor?.micros.toString() ?? null, cursor?.id ?? null, q.limit + 1],
  );
  const items = rows.slice(0, q.limit);
  const last = items[items.length - 1];
  const inFlight = await roundsInFlight(pool, operatorId, campaignId);
  return {
    ...campaign,
    rounds_remaining: unplayed(campaign),
    rounds_in_flight: inFlight,
    rounds_page: {
      items: items.map(({ micros: _, ...r }) => ({
        ...r,
        created_at: r.created_at.toISOString(),
        settled_at: r.settled_at?.toISOString() ?? null,
      })),
      limit: q.limit,
      next_cursor:
        rows.length > q.limit && last ? encodeCursor({ micros: last.micros, id: last.round_id }) : null,
    },
  };
}

async function roundsInFlight(pool: Pool, operatorId: string, campaignId: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM rounds
      WHERE operator_id = $1 AND free_round_campaign_id = $2 AND NOT (status = ANY ($3::text[]))`,
    [operatorId, campaignId, FINAL],
  );
  return rows[0]?.n ?? 0;
}

/**
 * An admin's cancel of a campaign: the operator API's DELETE (cancelCampaign, idempotent) with the
 * same effect — no round of it starts afterwards, the players' unplayed rounds are void, rounds
 * already recorded settle — written to the staff audit log with who, the reason and what it voided.
 * An unknown campaign is 404 (not logged, like an unknown round's cancel).
 */
export async function staffCancelCampaign(
  deps: ApiDeps,
  input: {
    operator: OperatorRow;
    campaignId: string;
    reason: string | undefined;
    staff: StaffPrincipal;
    clientIp: string;
  },
): Promise<StaffCampaignCancelResult> {
  const { operator, campaignId } = input;
  const before = await readCampaign(deps.pool, operator.operator_id, campaignId);
  const campaign = await cancelCampaign(deps, operator, campaignId);
  const already = before.status === 'cancelled';
  const voided = already ? 0 : unplayed(before);
  const inFlight = await roundsInFlight(deps.pool, operator.operator_id, campaignId);
  const message = already
    ? `The campaign was already cancelled at ${campaign.cancelled_at}.`
    : `The campaign is cancelled: ${voided} unplayed round${voided === 1 ? '' : 's'} void` +
      (inFlight > 0 ? `; ${inFlight} round${inFlight === 1 ? '' : 's'} in flight finish.` : '.');
  const result = already ? 'already_cancelled' : 'cancelled';
  const audit = await writeAudit(deps.pool, {
    staffId: input.staff.staffId,
    username: input.staff.username,
    operatorId: operator.operator_id,
    action: 'free_rounds.cancel',
    target: campaignId,
    result,
    clientIp: input.clientIp,
    detail: {
      reason: input.reason ?? '',
      message,
      status_before: before.status,
      cancelled_at: campaign.cancelled_at,
      players_count: before.players_count,
      rounds_used: before.rounds_used,
      rounds_voided: voided,
      rounds_in_flight: inFlight,
    },
  });
  return { result, message, campaign, audit };
}
