import Router from '@koa/router';
import {
  CONTRACT_VERSION,
  NativeHistoryQuery,
  type NativeLedgerEntry,
  type NativeRoundHistory,
  type NativeSessionHistory,
  type NativeStageEntry,
  type NativeWalletEntry,
} from '@opi/contract';
import type { Pool } from '@opi/db';
import type { RoundStage } from '@opi/games';
import { intentWithoutResult, wagerStandsSql } from '@opi/play/settlement/wager-stands';
import { sendJson } from '@opi/service-kit/http/json';
import { badRequest, invalidField, notFound, notFoundDetail } from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';

/*
 * Native (prov_c) history: what a round intended, each stage as it was played, what moved at the
 * wallet (ledger) and every wallet call as journalled. Read by the owning operator's key.
 *
 * No last look (issue 34): a native round's first stage (the Dice roll, the first Hi-Lo card) and,
 * for Dice, its win in the intent are written with the bet, before the debit. Until the round's
 * wager stands (its debit applied: @opi/play/settlement/wager-stands) its stages are not shown (the
 * session history leaves them out; the round history answers none, and its intent without the
 * win). After that the stages are what the player saw as they were played: the wager is taken.
 */

const MAX_SESSION_STAGES = 10_000;

interface NativeSessionRow {
  session_id: string;
  operator_id: string;
  currency: string;
  provider_id: string;
  integration_mode: string;
  /** provider_switches.enabled for prov_c and the title's own prov_c enable flag, both on. */
  service_enabled: boolean;
}

/**
 * The session's native service: a `prov_c` title whose family switch (provider_switches) and own
 * per-title enable flag (games.operator_wallet_enabled, default off) are both on, the two flags
 * the catalog and launch read (catalog/availability.ts). Either off: no native service, 404.
 * Another operator's session is answered as an unknown one, 404 `Session not found`, by the same
 * single statement (issue 34 point 4: a read by id never tells that the id exists elsewhere), and
 * before the service is looked at.
 */
async function nativeSession(pool: Pool, operatorId: string, sessionId: string): Promise<NativeSessionRow> {
  const { rows } = await pool.query<NativeSessionRow>(
    `SELECT s.session_id, s.operator_id, trim(s.currency) AS currency, g.provider_id, g.integration_mode,
            (ps.enabled AND g.operator_wallet_enabled) AS service_enabled
     FROM sessions s
     JOIN games g ON g.symbol = s.symbol
     JOIN provider_switches ps ON ps.provider_id = g.provider_id
     WHERE s.session_id = $1 AND s.operator_id = $2`,
    [sessionId, operatorId],
  );
  const s = rows[0];
  if (!s) throw notFound('session');
  if (s.provider_id !== 'prov_c') throw notFoundDetail('No native service for this session');
  if (!s.service_enabled) {
    throw notFoundDetail('The native service for this title is not enabled');
  }
  return s;
}

const modeOf = (s: NativeSessionRow) =>
  s.integration_mode === 'operator-wallet' ? 'operator-wallet' : 'sandbox-only';

interface StageRow extends RoundStage {
  round_id: string;
}
const presentStage = (r: StageRow): NativeStageEntry => ({
  round_id: r.round_id,
  seq: r.seq,
  action: r.action,
  inputs: r.inputs,
  outcome: r.outcome,
  multiplier: r.multiplier,
  created_at: r.created_at.toISOString(),
});
const STAGE_COLUMNS =
  'st.round_id, st.seq, st.action, st.inputs, st.outcome, st.multiplier::text AS multiplier, st.created_at';

export async function sessionHistory(
  pool: Pool,
  operatorId: string,
  sessionId: string,
): Promise<NativeSessionHistory> {
  const s = await nativeSession(pool, operatorId, sessionId);
  const { rows } = await pool.query<StageRow>(
    `SELECT ${STAGE_COLUMNS}
     FROM rounds r JOIN round_stages st ON st.round_id = r.round_id
     WHERE r.operator_id = $2 AND r.session_id = $1 AND ${wagerStandsSql('r')}
     ORDER BY r.created_at, r.round_id, st.seq
     LIMIT ${MAX_SESSION_STAGES}`,
    [sessionId, operatorId],
  );
  return { session_id: s.session_id, currency: s.currency, stages: rows.map(presentStage), mode: modeOf(s) };
}

interface WalletRow {
  transaction_id: string;
  operator_id: string;
  session_id: string;
  round_id: string;
  player_id: string;
  game_symbol: string;
  transaction_type: NativeWalletEntry['transaction_type'];
  amount_minor: bigint;
  currency: string;
  status: NativeWalletEntry['status'];
  request_hash: string;
  attempts: number;
  http_status: number | null;
  error_code: string | null;
  wallet_balance: string | null;
  created_at: Date;
  completed_at: Date | null;
  original_success: boolean | null;
}

export async function roundHistory(
  pool: Pool,
  operatorId: string,
  sessionId: string,
  roundId: string,
): Promise<NativeRoundHistory> {
  const s = await nativeSession(pool, operatorId, sessionId);
  const { rows: rounds } = await pool.query<{
    round_id: string;
    status: string;
    intent: Record<string, unknown>;
    wager_stands: boolean;
  }>(
    `SELECT r.round_id, r.status, r.intent, ${wagerStandsSql('r')} AS wager_stands
      FROM rounds r WHERE r.round_id = $1 AND r.session_id = $2`,
    [roundId, sessionId],
  );
  const round = rounds[0];
  // A transaction id (or a round of another session) is not this session's round.
  if (!round) throw notFound('round', 'in this session');
  const [stages, wallet] = await Promise.all([
    pool.query<StageRow>(
      `SELECT ${STAGE_COLUMNS} FROM round_stages st WHERE st.round_id = $1 ORDER BY st.seq`,
      [roundId],
    ),
    pool.query<WalletRow>(
      `SELECT t.transaction_id, t.operator_id, t.session_id, t.round_id, t.player_id, t.game_symbol,
              t.transaction_type, t.amount_minor, trim(t.currency) AS currency, t.status, t.request_hash,
              t.attempts, t.http_status, t.error_code, t.wallet_balance, t.created_at, t.completed_at,
              (o.status = 'success') AS original_success
       FROM wallet_transactions t LEFT JOIN wallet_transactions o ON o.transaction_id = t.original_transaction_id
       WHERE t.round_id = $1 AND t.operator_id = $2
       ORDER BY t.created_at, t.transaction_id`,
      [roundId, operatorId],
    ),
  ]);
  const ledger: NativeLedgerEntry[] = wallet.rows
    .filter((t) => t.status === 'success' && t.transaction_type !== 'balance')
    .map((t) => ({
      transaction_id: t.transaction_id,
      transaction_type: t.transaction_type,
      // A reversal gives back what its debit took (nothing when that debit is not journalled successful).
      delta_minor:
        t.transaction_type === 'debit'
          ? -t.amount_minor
          : t.transaction_type === 'credit' || t.original_success
            ? t.amount_minor
            : 0n,
      currency: t.currency,
      wallet_balance: t.wallet_balance,
      completed_at: t.completed_at?.toISOString() ?? null,
    }));
  return {
    round_id: round.round_id,
    session_id: s.session_id,
    operator_id: s.operator_id,
    currency: s.currency,
    mode: modeOf(s),
    status: round.status,
    intent: round.wager_stands ? round.intent : intentWithoutResult(round.intent),
    stages: round.wager_stands ? stages.rows.map(presentStage) : [],
    ledger,
    wallet: wallet.rows.map(
      (t): NativeWalletEntry => ({
        transaction_id: t.transaction_id,
        operator_id: t.operator_id,
        session_id: t.session_id,
        round_id: t.round_id,
        player_id: t.player_id,
        game_symbol: t.game_symbol,
        transaction_type: t.transaction_type,
        amount_minor: t.amount_minor,
        currency: t.currency,
        status: t.status,
        contract_version: CONTRACT_VERSION,
        request_hash: t.request_hash,
        attempts: t.attempts,
        http_status: t.http_status,
        error_code: t.error_code,
        created_at: t.created_at.toISOString(),
        completed_at: t.completed_at?.toISOString() ?? null,
      }),
    ),
  };
}

function historyQuery(ctx: Context) {
  const raw = flatQuery(ctx.query);
  if (raw.session_id === undefined) {
    throw badRequest('session_id is required');
  }
  const q = parseOr422(NativeHistoryQuery.strict(), raw, 'query');
  if (q.session_id.length > 200) {
    throw invalidField(['query', 'session_id'], 'at most 200 characters');
  }
  return q;
}

/** GET /native/history (the session history at the top level) and /native/history/{round_id}. */
export function nativeHistoryRoutes(deps: ApiDeps, guard: Middleware[]): Router {
  const router = new Router();
  router.get('/native/history', ...guard, async (ctx) => {
    const q = historyQuery(ctx);
    ctx.set('Cache-Control', 'no-store');
    sendJson(
      ctx,
      await sessionHistory(deps.pool, (ctx.state.operator as OperatorRow).operator_id, q.session_id),
    );
  });
  router.get('/native/history/:round_id', ...guard, async (ctx) => {
    const q = historyQuery(ctx);
    const roundId = ctx.params.round_id ?? '';
    // A NUL cannot be in a PostgreSQL text value: 422 here, not a database error.
    if (roundId.length < 1 || roundId.length > 200 || roundId.includes('\u0000')) {
      throw invalidField(['path', 'round_id'], 'must be 1 to 200 characters, without NUL');
    }
    ctx.set('Cache-Control', 'no-store');
    sendJson(ctx, {
      success: true,
      data: await roundHistory(
        deps.pool,
        (ctx.state.operator as OperatorRow).operator_id,
        q.session_id,
        roundId,
      ),
    });
  });
  return router;
}
