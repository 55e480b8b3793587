import { createHash } from 'node:crypto';
import { CONTRACT_VERSION } from '@opi/contract';
import { minorToDecimalNumber } from '@opi/money';
import { ApplicationFailure } from '@temporalio/activity';
import {
  callbackRequestId,
  type SettlementDeps,
  WALLET_CONFIG_FAULT,
  WALLET_NOT_CONFIGURED,
  WALLET_REJECTED_RETRY,
  WALLET_UNCERTAIN,
} from '../settle-round/activities.js';
import type { WalletNetworkPolicy } from '../wallet/address-policy.js';
import { sendWalletCallback } from '../wallet/send.js';

/*
 * Promotional payouts (issue 25, docs/jackpots-and-promotions.md): a tournament prize or a prize
 * drop, owed on a promo_payouts row, paid by one `credit` with `action_type: promo_win`. No
 * session, no token, no round: the payout id is the credit's round reference. Journal first, like
 * every wallet step (settle-round/activities.ts): the pending journal row with the exact body is
 * written before the first send, and every attempt sends those bytes.
 */

export interface PromoPayoutRow {
  payout_id: string;
  promo_type: 'tournament' | 'prize_drop';
  promo_id: string;
  operator_id: string;
  external_player_id: string;
  currency: string;
  amount_minor: string;
  rank: number | null;
  session_id: string;
  game_symbol: string;
  status: 'pending' | 'paid';
}

/** The credit's transaction id: the payout id and `:credit`. */
export function promoTransactionId(payoutId: string): string {
  return `${payoutId}:credit`;
}

/**
 * The credit body of a payout: the contract's fields (round_id = payout id), then the optional
 * `promo_type`, `promo_id` and, for a tournament, `rank`. Deterministic: it follows from the
 * payout row, which never changes.
 */
export function buildPromoCallbackBody(p: PromoPayoutRow): string {
  const minor = BigInt(p.amount_minor);
  const transactionId = promoTransactionId(p.payout_id);
  const body: Record<string, unknown> = {
    contract_version: CONTRACT_VERSION,
    operator_id: p.operator_id,
    player_id: p.external_player_id,
    session_id: p.session_id,
    game_symbol: p.game_symbol,
    currency: p.currency,
    request_id: callbackRequestId(transactionId),
    transaction_id: transactionId,
    round_id: p.payout_id,
    transaction_type: 'credit',
    action_type: 'promo_win',
    amount: minorToDecimalNumber(minor, p.currency),
    amount_minor: Number(minor),
    promo_type: p.promo_type,
    promo_id: p.promo_id,
  };
  if (p.rank !== null) body.rank = p.rank;
  return JSON.stringify(body);
}

export type PromoPayResult = { status: 'paid'; balance: string | null };

interface JournalRow {
  transaction_id: string;
  status: 'pending' | 'success' | 'failed';
  request_body: string;
  attempts: number;
  wallet_balance: string | null;
}

export function createPromotionActivities(deps: SettlementDeps) {
  const log = deps.log ?? (() => {});
  const network: WalletNetworkPolicy = { allowPrivate: deps.allowPrivateNetworks ?? !deps.requireHttps };

  async function walletConfig(operatorId: string): Promise<{ url: string; secret: string }> {
    const { rows } = await deps.pool.query<{
      wallet_base_url: string | null;
      wallet_secret_enc: string | null;
    }>(`SELECT wallet_base_url, wallet_secret_enc FROM operators WHERE operator_id = $1`, [operatorId]);
    const row = rows[0];
    if (!row?.wallet_base_url || !row.wallet_secret_enc)
      throw ApplicationFailure.retryable(
        `operator ${operatorId} has no wallet configured`,
        WALLET_NOT_CONFIGURED,
      );
    if (deps.requireHttps && !row.wallet_base_url.startsWith('https://'))
      throw ApplicationFailure.retryable(`operator ${operatorId} wallet is not HTTPS`, WALLET_NOT_CONFIGURED);
    return { url: row.wallet_base_url, secret: deps.box.decrypt(row.wallet_secret_enc) };
  }

  /**
   * Journal first: the payout's credit row (pending, its exact body) is written once; a later
   * attempt counts itself on it. A row already settled is answered without calling the wallet.
   */
  async function claim(p: PromoPayoutRow): Promise<JournalRow> {
    const body = buildPromoCallbackBody(p);
    const { rows } = await deps.pool.query<JournalRow>(
      `INSERT INTO wallet_transactions (transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
         transaction_type, amount_minor, currency, request_body, request_hash, attempts)
       VALUES ($1, $2, $3, $4, $5, $6, 'credit', $7, $8, $9, $10, 1)
       ON CONFLICT (transaction_id) DO UPDATE
         SET attempts = CASE WHEN wallet_transactions.status = 'pending'
                             THEN wallet_transactions.attempts + 1 ELSE wallet_transactions.attempts END,
             updated_at = now()
       RETURNING transaction_id, status, request_body, attempts, wallet_balance`,
      [
        promoTransactionId(p.payout_id),
        p.operator_id,
        p.session_id,
        p.payout_id,
        p.external_player_id,
        p.game_symbol,
        p.amount_minor,
        p.currency,
        body,
        createHash('sha256').update(body).digest('hex'),
      ],
    );
    return rows[0]!;
  }

  /** The journal row's success and the payout's `paid`, in one statement. */
  async function recordPaid(p: PromoPayoutRow, balance: string | null, httpStatus: number | null) {
    await deps.pool.query(
      `WITH tx AS (
         UPDATE wallet_transactions SET status = 'success', wallet_balance = $2, http_status = $3, error_code = NULL,
                last_error = NULL, completed_at = now(), updated_at = now()
          WHERE transaction_id = $1 AND status = 'pending' RETURNING 1
       ), pp AS (
         UPDATE promo_payouts SET status = 'paid', paid_at = now()
          WHERE payout_id = $4 AND status = 'pending' RETURNING 1
       ) SELECT (SELECT count(*) FROM tx) AS tx, (SELECT count(*) FROM pp) AS pp`,
      [promoTransactionId(p.payout_id), balance, httpStatus, p.payout_id],
    );
  }

  async function recordUnresolved(txId: string, reason: string, httpStatus?: number) {
    await deps.pool.query(
      `UPDATE wallet_transactions SET last_error = $2, http_status = $3, updated_at = now()
       WHERE transaction_id = $1 AND status = 'pending'`,
      [txId, reason.slice(0, 500), httpStatus ?? null],
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
      const row = await claim(p);
      if (row.status === 'success') {
        if (p.status !== 'paid') await recordPaid(p, row.wallet_balance, null);
        return { status: 'paid', balance: row.wallet_balance };
      }
      if (row.status === 'failed')
        throw ApplicationFailure.nonRetryable(
          `journal holds a failed promotional credit ${row.transaction_id}`,
          'JournalInconsistent',
        );
      const wallet = await walletConfig(p.operator_id);
      const outcome = await sendWalletCallback({
        baseUrl: wallet.url,
        operation: 'credit',
        secret: wallet.secret,
        body: row.request_body,
        requestId: `${row.transaction_id}#${row.attempts}`,
        operatorId: p.operator_id,
        timeoutMs: deps.walletTimeoutMs,
        network,
      });
      log(outcome.kind === 'success' ? 'info' : 'warn', 'wallet callback', {
        operator_id: p.operator_id,
        round_id: p.payout_id,
        transaction_id: row.transaction_id,
        transaction_type: 'credit',
        action_type: 'promo_win',
        attempt: row.attempts,
        outcome: outcome.kind,
        http_status: outcome.httpStatus ?? null,
      });
      switch (outcome.kind) {
        case 'success':
          await recordPaid(p, outcome.balance, outcome.httpStatus ?? null);
          return { status: 'paid', balance: outcome.balance };
        case 'rejected':
          log('error', 'the wallet rejected a promotional credit; it stays pending and is retried', {
            alert: true,
            operator_id: p.operator_id,
            transaction_id: row.transaction_id,
            error: outcome.error,
          });
          await recordUnresolved(row.transaction_id, `400 ${outcome.error}`, outcome.httpStatus);
          throw ApplicationFailure.retryable(
            `wallet rejected promo credit: ${outcome.error}`,
            WALLET_REJECTED_RETRY,
          );
        case 'config_fault':
          await recordUnresolved(
            row.transaction_id,
            `${outcome.error}: ${outcome.message ?? ''}`.slice(0, 500),
            outcome.httpStatus,
          );
          throw ApplicationFailure.retryable(
            `wallet configuration fault: ${outcome.error}`,
            WALLET_CONFIG_FAULT,
          );
        case 'uncertain':
          await recordUnresolved(row.transaction_id, outcome.reason, outcome.httpStatus);
          throw ApplicationFailure.retryable(`uncertain wallet outcome: ${outcome.reason}`, WALLET_UNCERTAIN);
      }
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
        await c.query(`SELECT pg_advisory_xact_lock(21, hashtext($1))`, [input.tournamentId]);
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
                        PARTITION BY s.currency
                        ORDER BY s.score DESC, s.score_reached_at, s.external_player_id COLLATE "C",
                                 s.operator_id COLLATE "C") AS rank
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
