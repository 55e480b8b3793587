import type { Pool } from '@opi/db';
import { refusalFacts } from '@opi/play/sessions/bets-blocked';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { wagerStandsSql } from '@opi/play/settlement/wager-stands';
import { notFound } from '@opi/service-kit/http/named-errors';
import type { RoundIntent } from '@opi/wallet';

/** A round id as the spin makes them (`r_<uuid>`); anything else is not one of this session's. */
const ROUND_ID = /^r_[0-9a-f-]{36}$/;

/** What `GET /api/runtime/rounds/:round_id` answers: the spin's answer, once the round is over. */
export interface RoundStatusAnswer {
  round_id: string;
  /** `pending` while the round's settlement is open (the wallet has not answered for good). */
  status: 'pending' | 'completed' | 'rejected' | 'cancelled';
  bet_minor: string;
  /** The round's win, once its debit stands (null before: the outcome is not told early). */
  win_minor: string | null;
  /** The engine's outcome (reels, wins), once the debit stands; null before. */
  outcome: unknown;
  /** The newest balance the wallet answered for the round's callbacks (null: none yet). */
  balance: string | null;
  error: string | null;
  error_message: string | null;
  bets_blocked: unknown;
  jackpot_wins: { jackpot_id: string; level: string; amount_minor: string }[];
  prize_drop: { drop_id: string; amount_minor: string } | null;
}

interface Row {
  round_id: string;
  status: string;
  bet_minor: string;
  win_minor: string;
  outcome: unknown;
  intent: RoundIntent;
  debit_status: string | null;
  debit_error: string | null;
  stands: boolean;
  balance: string | null;
}

/**
 * One round of this session, as the slot page follows it after a spin answered `pending` (the
 * wallet was slow): its status, and once the round's debit stands its outcome and win; the
 * balance the wallet last answered for it. Another session's round, or an unknown id, is 404.
 */
export async function roundStatus(
  pool: Pool,
  session: RuntimeSession,
  roundId: string,
): Promise<RoundStatusAnswer> {
  if (!ROUND_ID.test(roundId)) throw notFound('round');
  const { rows } = await pool.query<Row>(
    `SELECT r.round_id, r.status, r.bet_minor::text, r.win_minor::text, r.outcome, r.intent,
            d.status AS debit_status, d.error_code AS debit_error, ${wagerStandsSql('r')} AS stands,
            (SELECT t.wallet_balance FROM wallet_transactions t
              WHERE t.round_id = r.round_id AND t.status = 'success' AND t.wallet_balance IS NOT NULL
                AND t.transaction_type <> 'balance'
              -- A credit-ahead round records its debit and credit in one statement (one
              -- completed_at): the later step, the credit, then wins the tie.
              ORDER BY t.completed_at DESC NULLS LAST, (t.transaction_type = 'debit') ASC LIMIT 1) AS balance
       FROM rounds r
       LEFT JOIN wallet_transactions d
              ON d.round_id = r.round_id AND d.transaction_type = 'debit'
      WHERE r.round_id = $1 AND r.session_id = $2`,
    [roundId, session.session_id],
  );
  const row = rows[0];
  if (!row) throw notFound('round');
  const status =
    row.status === 'completed'
      ? 'completed'
      : row.status === 'rejected'
        ? 'rejected'
        : row.status === 'cancelled' || row.status === 'rolled_back'
          ? 'cancelled'
          : 'pending';
  // Nothing of the outcome before the wager stands (issue 34's one rule, wager-stands.ts).
  const told = row.stands && status !== 'rejected';
  const intent = row.intent;
  const error = status === 'rejected' ? (row.debit_error ?? 'rejected') : null;
  const refusal = error
    ? await refusalFacts(pool, session.session_id, error)
    : { error_message: null, bets_blocked: null };
  return {
    round_id: row.round_id,
    status,
    bet_minor: row.bet_minor,
    // The intent's win (the column is written when the round completes).
    win_minor: told ? (intent.winMinor ?? row.win_minor) : null,
    outcome: told ? row.outcome : null,
    balance: row.balance,
    error,
    ...refusal,
    jackpot_wins:
      told && intent.jackpot
        ? (intent.jackpot.wins ?? []).map((w) => ({
            jackpot_id: intent.jackpot!.jackpotId,
            level: w.level,
            amount_minor: w.amountMinor,
          }))
        : [],
    prize_drop:
      told && intent.prizeDrop
        ? { drop_id: intent.prizeDrop.dropId, amount_minor: intent.prizeDrop.amountMinor }
        : null,
  };
}
