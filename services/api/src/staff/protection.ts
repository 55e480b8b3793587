import { PLAYER_PROTECTION_CODES, type StaffProtectionView } from '@opi/contract';
import type { Pool } from '@opi/db';

/*
 * The staff portal's Protection page (issue 18): for one operator, debits its wallet refused with a
 * player-protection code (wallet_transactions.error_code in PLAYER_PROTECTION_CODES), by code and
 * the most recent ones; sessions whose bets are blocked now; reality checks the players answered
 * (reality_checks) and those due and not answered yet. The answer's shape is the contract's
 * StaffProtectionView.
 */

const iso = (d: Date) => d.toISOString();

export async function protectionView(
  pool: Pool,
  operatorId: string,
  limit = 50,
): Promise<StaffProtectionView> {
  const codes = [...PLAYER_PROTECTION_CODES];
  const [byCode, recent, blocked, byAction, due, checks] = await Promise.all([
    pool.query<{ code: string; count: number; last_at: Date }>(
      `SELECT error_code AS code, count(*)::int AS count, max(created_at) AS last_at
         FROM wallet_transactions
        WHERE operator_id = $1 AND transaction_type = 'debit' AND error_code = ANY ($2::text[])
        GROUP BY error_code ORDER BY count(*) DESC, error_code`,
      [operatorId, codes],
    ),
    pool.query<{
      transaction_id: string;
      code: string;
      player_id: string;
      session_id: string;
      round_id: string;
      game_symbol: string;
      amount_minor: string;
      currency: string;
      at: Date;
    }>(
      `SELECT transaction_id, error_code AS code, player_id, session_id, round_id, game_symbol,
              amount_minor::text AS amount_minor, trim(currency) AS currency, created_at AS at
         FROM wallet_transactions
        WHERE operator_id = $1 AND transaction_type = 'debit' AND error_code = ANY ($2::text[])
        ORDER BY created_at DESC, transaction_id LIMIT $3`,
      [operatorId, codes, limit],
    ),
    pool.query<{
      session_id: string;
      player_id: string;
      symbol: string;
      code: string;
      since: Date;
      round_id: string | null;
    }>(
      `SELECT s.session_id, p.external_player_id AS player_id, s.symbol, s.bets_blocked_code AS code,
              s.bets_blocked_at AS since, s.bets_blocked_round_id AS round_id
         FROM sessions s JOIN players p ON p.player_id = s.player_id
        WHERE s.operator_id = $1 AND s.bets_blocked_code IS NOT NULL
        ORDER BY s.bets_blocked_at DESC LIMIT $2`,
      [operatorId, limit],
    ),
    pool.query<{ action: string; count: number }>(
      `SELECT action, count(*)::int AS count FROM reality_checks WHERE operator_id = $1 GROUP BY action ORDER BY action`,
      [operatorId],
    ),
    pool.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM sessions
        WHERE operator_id = $1 AND status = 'active' AND reality_check_due_at <= now()`,
      [operatorId],
    ),
    pool.query<{
      session_id: string;
      player_id: string;
      due_at: Date;
      acknowledged_at: Date;
      action: string;
      elapsed_ms: string;
      net_minor: string;
      currency: string;
    }>(
      `SELECT c.session_id, p.external_player_id AS player_id, c.due_at, c.acknowledged_at, c.action,
              c.elapsed_ms::text AS elapsed_ms, c.net_minor::text AS net_minor,
              trim(s.currency) AS currency
         FROM reality_checks c JOIN sessions s ON s.session_id = c.session_id
         JOIN players p ON p.player_id = s.player_id
        WHERE c.operator_id = $1 ORDER BY c.acknowledged_at DESC, c.check_id DESC LIMIT $2`,
      [operatorId, limit],
    ),
  ]);
  return {
    codes,
    refusals_by_code: byCode.rows.map((r) => ({ code: r.code, count: r.count, last_at: iso(r.last_at) })),
    recent_refusals: recent.rows.map((r) => ({ ...r, at: iso(r.at) })),
    blocked_sessions: blocked.rows.map((r) => ({ ...r, since: iso(r.since) })),
    reality_checks: {
      by_action: byAction.rows,
      due_unanswered: due.rows[0]?.count ?? 0,
      recent: checks.rows.map((r) => ({
        ...r,
        due_at: iso(r.due_at),
        acknowledged_at: iso(r.acknowledged_at),
        elapsed_ms: Number(r.elapsed_ms),
      })),
    },
  };
}
