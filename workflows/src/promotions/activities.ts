import { ADVISORY_LOCK_CLASS, leaderboardOrderSql } from '@opi/db';
import {
  claimJournalRow,
  createWalletStep,
  journalOutcomeSql,
  type PromoPayoutRow,
  promoJournalRow,
  promoTransactionId,
} from '@opi/wallet';
import { ApplicationFailure } from '@temporalio/activity';
import { type SettlementDeps, settledOrThrow } from '../settle-round/activities.js';

/*
 * Promotional payouts (issue 25, docs/jackpots-and-promotions.md): a tournament prize or a prize
 * drop, owed on a promo_payouts row, paid by one `credit` with `action_type: promo_win` (its body:
 * @opi/wallet's buildPromoCallbackBody). Journal first, like every wallet step: the pending journal
 * row with the exact body is written before the first send, and every attempt sends those bytes
 * through @opi/wallet's wallet step, as the rounds' steps do.
 */

export type PromoPayResult = { status: 'paid'; balance: string | null };

export function createPromotionActivities(deps: SettlementDeps) {
  const wallet = createWalletStep(deps);

  /** The journal row's success and the payout's `paid`, in one statement. */
  async function recordPaid(p: PromoPayoutRow, balance: string | null, httpStatus: number | null) {
    await deps.pool.query(
      `WITH tx AS (
         ${journalOutcomeSql('$1', { status: `'success'`, balance: '$2', error: 'NULL', httpStatus: '$3' })}
       ), pp AS (
         UPDATE promo_payouts SET status = 'paid', paid_at = now()
          WHERE payout_id = $4 AND status = 'pending' RETURNING 1
       ) SELECT (SELECT count(*) FROM tx) AS tx, (SELECT count(*) FROM pp) AS pp`,
      [promoTransactionId(p.payout_id), balance, httpStatus, p.payout_id],
    );
  }

  return {
    /**
     * One attempt to pay a promotional payout: returns once the wallet has the credit (or the
     * journal says it has); anything else throws a retryable failure, a rejection included (the
     * player is owed the prize: the same body is sent again until the wallet takes it).
     */
    async payPromoStep(input: { payoutId: string }): Promise<PromoPayResult> {
      const { rows } = await deps.pool.query<PromoPayoutRow>(
        `SELECT payout_id, promo_type, promo_id, operator_id, external_player_id, trim(currency) AS currency,
                amount_minor::text, rank, session_id, game_symbol, status
           FROM promo_payouts WHERE payout_id = $1`,
        [input.payoutId],
      );
      const p = rows[0];
      if (!p)
        throw ApplicationFailure.nonRetryable(
          `no promotional payout ${input.payoutId}`,
          'PromoPayoutUnknown',
        );
      const row = await claimJournalRow(deps.pool, promoJournalRow(p));
      const result = await wallet.run({
        operation: 'credit',
        operatorId: p.operator_id,
        roundId: p.payout_id,
        row,
        label: 'promotional credit',
        rejectionIsFinal: false,
        logFields: { action_type: 'promo_win' },
        onSuccess: ({ balance, httpStatus }) => recordPaid(p, balance, httpStatus),
      });
      if (result.status === 'success') {
        if (!result.journalled) return { status: 'paid', balance: result.balance };
        // A success the journal held already: the payout is marked paid if it is not yet.
        if (p.status !== 'paid') await recordPaid(p, row.wallet_balance, null);
        return { status: 'paid', balance: row.wallet_balance };
      }
      settledOrThrow(result);
      // Never refused for good (rejectionIsFinal is false): a refusal is retried.
      throw ApplicationFailure.nonRetryable(
        `promotional credit ${row.transaction_id} refused`,
        'JournalInconsistent',
      );
    },

    /** The tournament's dates and status (the workflow's timers follow the stored dates). */
    async tournamentState(input: {
      tournamentId: string;
    }): Promise<{ status: string; startsAt: number; endsAt: number } | null> {
      const { rows } = await deps.pool.query<{ status: string; starts_at: Date; ends_at: Date }>(
        `SELECT status, starts_at, ends_at FROM tournaments WHERE tournament_id = $1`,
        [input.tournamentId],
      );
      const t = rows[0];
      return t ? { status: t.status, startsAt: t.starts_at.getTime(), endsAt: t.ends_at.getTime() } : null;
    },

    /** scheduled -> running once its start has come (a cancelled one stays cancelled). */
    async startTournament(input: { tournamentId: string }): Promise<string> {
      const { rows } = await deps.pool.query<{ status: string }>(
        `WITH u AS (
           UPDATE tournaments SET status = 'running', updated_at = now()
            WHERE tournament_id = $1 AND status = 'scheduled' AND starts_at <= now() RETURNING status
         ) SELECT coalesce((SELECT status FROM u), (SELECT status FROM tournaments WHERE tournament_id = $1)) AS status`,
        [input.tournamentId],
      );
      return rows[0]?.status ?? 'missing';
    },

    /**
     * The end: in one transaction, the tournament's scoring lock taken (every round counted before
     * the end has committed; see the scoring trigger) and its row locked, then one statement freezes the leaderboard per
     * currency (ties: the earlier score, then the lower player id), writes one payout per prize
     * won (a score above zero) and sets the status ended. Answers the status and the payout ids; a
     * repeat (ended or paid already) answers the payouts written the first time, a cancelled
     * tournament none. Before the end (by the database's clock) it fails and is retried.
     */
    async freezeTournament(input: {
      tournamentId: string;
    }): Promise<{ status: string; payoutIds: string[] }> {
      const c = await deps.pool.connect();
      try {
        await c.query('BEGIN');
        // Every round counted so far has committed (the scoring trigger holds this lock shared
        // until its transaction ends); rounds that come later wait, then find the tournament ended.
        await c.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [
          ADVISORY_LOCK_CLASS.tournamentScoring,
          input.tournamentId,
        ]);
        const { rows: locked } = await c.query<{ status: string; over: boolean }>(
          `SELECT status, now() >= ends_at AS over FROM tournaments WHERE tournament_id = $1 FOR UPDATE`,
          [input.tournamentId],
        );
        const t = locked[0];
        if (!t)
          throw ApplicationFailure.nonRetryable(`no tournament ${input.tournamentId}`, 'TournamentUnknown');
        if ((t.status === 'scheduled' || t.status === 'running') && !t.over)
          throw ApplicationFailure.retryable(
            `tournament ${input.tournamentId} has not ended yet`,
            'TournamentNotOver',
          );
        if (t.status === 'scheduled' || t.status === 'running') {
          await c.query(
            `WITH ranked AS (
               SELECT s.*, row_number() OVER (
                        PARTITION BY s.currency ORDER BY ${leaderboardOrderSql('s')}) AS rank
                 FROM tournament_scores s WHERE s.tournament_id = $1
             ), placed AS MATERIALIZED (
               SELECT r.*, CASE WHEN r.score > 0 THEN p.amount_minor END AS prize_minor,
                      -- 32 random hex digits (issue 34): nothing another operator could compute
                      -- from a player id. Written once here (MATERIALIZED: one value per row),
                      -- read from the row ever after; one prize per player is the UNIQUE's.
                      CASE WHEN r.score > 0 AND p.amount_minor IS NOT NULL THEN
                        'pp_t_' || r.tournament_id || '_' || replace(gen_random_uuid()::text, '-', '')
                      END AS payout_id
                 FROM ranked r
                 LEFT JOIN tournament_prizes p
                   ON p.tournament_id = r.tournament_id AND p.currency = r.currency AND p.rank = r.rank
             ), standings AS (
               INSERT INTO tournament_standings (tournament_id, currency, rank, operator_id, external_player_id, score,
                                                 score_reached_at, rounds_counted, prize_minor, payout_id)
               SELECT tournament_id, currency, rank, operator_id, external_player_id, score, score_reached_at,
                      rounds_counted, prize_minor, payout_id FROM placed
               RETURNING 1
             ), payouts AS (
               INSERT INTO promo_payouts (payout_id, promo_type, promo_id, operator_id, external_player_id, player_id,
                                          currency, amount_minor, rank, session_id, game_symbol)
               SELECT payout_id, 'tournament', tournament_id, operator_id, external_player_id, player_id, currency,
                      prize_minor, rank, last_session_id, last_game_symbol
                 FROM placed WHERE payout_id IS NOT NULL
               ON CONFLICT DO NOTHING RETURNING 1
             )
             UPDATE tournaments SET status = 'ended', frozen_at = now(), updated_at = now()
              WHERE tournament_id = $1`,
            [input.tournamentId],
          );
        }
        const { rows } = await c.query<{ status: string; payout_ids: string[] }>(
          `SELECT t.status, coalesce((SELECT array_agg(payout_id ORDER BY currency, rank) FROM promo_payouts
                                       WHERE promo_type = 'tournament' AND promo_id = t.tournament_id), '{}') AS payout_ids
             FROM tournaments t WHERE t.tournament_id = $1`,
          [input.tournamentId],
        );
        await c.query('COMMIT');
        return { status: rows[0]!.status, payoutIds: rows[0]!.payout_ids };
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        c.release();
      }
    },

    /** ended -> paid once every payout is paid; fails (and is retried) while one is pending. */
    async markTournamentPaid(input: { tournamentId: string }): Promise<string> {
      const { rows } = await deps.pool.query<{ status: string; pending: number }>(
        `WITH u AS (
           UPDATE tournaments SET status = 'paid', paid_at = now(), updated_at = now()
            WHERE tournament_id = $1 AND status = 'ended'
              AND NOT EXISTS (SELECT 1 FROM promo_payouts WHERE promo_type = 'tournament' AND promo_id = $1
                                 AND status = 'pending')
            RETURNING status
         ) SELECT coalesce((SELECT status FROM u), (SELECT status FROM tournaments WHERE tournament_id = $1)) AS status,
                  (SELECT count(*)::int FROM promo_payouts WHERE promo_type = 'tournament' AND promo_id = $1
                      AND status = 'pending') AS pending`,
        [input.tournamentId],
      );
      const r = rows[0]!;
      if (r.status === 'ended' && r.pending > 0)
        throw ApplicationFailure.retryable(`${r.pending} payouts still pending`, 'PayoutsPending');
      return r.status;
    },
  };
}

export type PromotionActivities = ReturnType<typeof createPromotionActivities>;
