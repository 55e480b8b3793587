import type { StaffRoundDetail, StaffStageEntry, StaffTimelineEntry } from '@opi/contract';
import type { Pool } from '@opi/db';
import { wagerStandsSql } from '@opi/play/settlement/wager-stands';
import { getRound, type ReplayLinks } from '../audit/repository.js';

/**
 * One round for staff: the audit API's round with its transactions (same scope check: another
 * operator's round is 404 as an unknown one), the wallet calls with their timing for the timeline,
 * and the stage history of multi-step titles (native, crash), in order. Its `round_details_url`
 * (issue 26) is the round's replay page, as in the audit API. No stage (a native roll or card, a
 * crash round's record) is shown until the round's wager stands (issue 34, no last look).
 */
export async function roundDetail(
  pool: Pool,
  links: ReplayLinks,
  operatorId: string,
  roundId: string,
): Promise<StaffRoundDetail> {
  const round = await getRound(pool, links, operatorId, roundId);
  const [timing, stages, extra] = await Promise.all([
    pool.query<
      Omit<StaffTimelineEntry, 'amount_minor' | 'created_at' | 'completed_at'> & {
        amount_minor: bigint;
        created_at: Date;
        completed_at: Date | null;
      }
    >(
      `SELECT transaction_id, transaction_type, status, amount_minor, attempts, http_status, error_code,
              wallet_balance, original_transaction_id, created_at, completed_at
       FROM wallet_transactions WHERE round_id = $1 AND operator_id = $2
       ORDER BY created_at, transaction_id`,
      [roundId, operatorId],
    ),
    pool.query<Omit<StaffStageEntry, 'created_at'> & { created_at: Date }>(
      `SELECT seq, action, inputs, outcome, multiplier::text AS multiplier, created_at
       FROM round_stages WHERE round_id = $1 ORDER BY seq`,
      [roundId],
    ),
    pool.query<{
      intent: Record<string, unknown>;
      rtp: string | null;
      title: string | null;
      updated_at: Date;
      wager_stands: boolean;
    }>(
      `SELECT r.intent, g.rtp, g.title, r.updated_at, ${wagerStandsSql('r')} AS wager_stands
       FROM rounds r LEFT JOIN games g ON g.symbol = r.symbol
       WHERE r.round_id = $1`,
      [roundId],
    ),
  ]);
  const e = extra.rows[0];
  return {
    ...round,
    game_title: e?.title ?? null,
    stored_rtp: e?.rtp ?? null,
    updated_at: e?.updated_at.toISOString() ?? null,
    /** prov_a rounds end by rollback; the others keep their intent (shown with the family). */
    multi_step: Boolean(e?.intent && (e.intent as { multiStep?: unknown }).multiStep),
    timeline: timing.rows.map((t) => ({
      ...t,
      created_at: t.created_at.toISOString(),
      completed_at: t.completed_at?.toISOString() ?? null,
    })),
    stages: e?.wager_stands ? stages.rows.map((s) => ({ ...s, created_at: s.created_at.toISOString() })) : [],
  };
}
