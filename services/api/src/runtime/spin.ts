import { randomUUID } from 'node:crypto';
import { withTransaction } from '@opi/db';
import {
  type RoundIntent,
  type RoundOutcome,
  recordRound,
  startSettlement,
  transactionIdsFor,
} from '@opi/workflows';
import { z } from 'zod';
import type { ApiDeps } from '../deps.js';
import type { SlotPlayer, SlotPlayResult } from '../engines/slot-player.js';
import { HttpError } from '../http/errors.js';
import { parseOr422 } from '../http/validate.js';
import type { RuntimeSession } from '../sessions/runtime-session.js';
import { assertBetsAllowed } from './bets-blocked.js';

export const SpinRequest = z.object({
  /** Total stake in minor units (integer, as a number or a decimal string). */
  bet_minor: z.union([z.number().int().positive(), z.string().regex(/^[1-9][0-9]{0,17}$/)]),
  /** base spin, buy the feature, or the special bet (when the title has them). */
  mode: z.enum(['base', 'buy', 'special']).default('base'),
  /** Special bet level (one of the title's `bls`). */
  bet_level: z.number().int().positive().optional(),
});

/** Engine outcomes carry bigint amounts; JSON carries them as decimal strings. */
export function jsonSafe(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, jsonSafe(v)]),
    );
  }
  return value;
}

/** How long the page waits for the settlement before answering `pending` (it polls after). */
export const SPIN_WAIT_MS = 15_000;

/**
 * POST /api/runtime/spin: the outcome comes from the engine (CSPRNG), the round and its intent are
 * written in one transaction, then the round's settlement workflow runs (debit, credit). The page
 * shows the balance the wallet answered.
 */
export async function spin(deps: ApiDeps, play: SlotPlayer, session: RuntimeSession, body: unknown) {
  if (session.provider_id !== 'prov_a' && session.provider_id !== 'prov_b') {
    throw new HttpError(409, 'This title is not played through /spin');
  }
  if (!deps.temporal) throw new HttpError(503, 'Provider runtime not configured (no settlement service)');
  const req = parseOr422(SpinRequest, body ?? {}, 'body');
  const betMinor = BigInt(req.bet_minor);
  const { rows: ops } = await deps.pool.query<{ bet_min_minor: bigint; bet_max_minor: bigint }>(
    `SELECT bet_min_minor, bet_max_minor FROM operators WHERE operator_id = $1`,
    [session.operator_id],
  );
  const limits = ops[0]!;
  if (betMinor < limits.bet_min_minor || betMinor > limits.bet_max_minor) {
    throw new HttpError(422, [
      {
        loc: ['body', 'bet_minor'],
        msg: `the bet must be between ${limits.bet_min_minor} and ${limits.bet_max_minor} minor units`,
        type: 'value_error',
      },
    ]);
  }
  let result: SlotPlayResult;
  try {
    result = play(session.symbol, {
      betMinor,
      mode: req.mode,
      ...(req.bet_level !== undefined ? { betLevel: req.bet_level } : {}),
    });
  } catch (err) {
    throw new HttpError(422, err instanceof Error ? err.message : 'this play is not available for the title');
  }
  // What is debited (a special bet's bet x level, a bought feature's price) stays within the
  // operator's limits too. The check does not depend on the outcome, so refusing here biases nothing.
  if (result.costMinor > limits.bet_max_minor) {
    throw new HttpError(422, [
      {
        loc: ['body', req.mode === 'buy' ? 'mode' : 'bet_level'],
        msg: `this play costs ${result.costMinor} minor units, above the operator's maximum of ${limits.bet_max_minor}`,
        type: 'value_error',
      },
    ]);
  }

  const roundId = `r_${randomUUID()}`;
  const intent: RoundIntent = {
    roundId,
    operatorId: session.operator_id,
    sessionId: session.session_id,
    playerId: session.external_player_id,
    gameSymbol: session.symbol,
    providerId: session.provider_id,
    currency: session.currency,
    actionType: req.mode === 'buy' ? 'buy_feature' : 'spin',
    stakeMinor: result.costMinor.toString(),
    winMinor: result.totalWinMinor.toString(),
    transactions: transactionIdsFor(roundId),
  };
  await withTransaction(deps.pool, async (c) => {
    // One unfinished round at a time per session: the previous one must settle first.
    const { rows } = await c.query(
      `SELECT round_id FROM rounds WHERE session_id = $1 AND status = 'open' FOR UPDATE`,
      [session.session_id],
    );
    if (rows.length > 0) throw new HttpError(409, `Round ${rows[0].round_id} is still being settled`);
    // Player protection: a session whose debit the operator refused with a blocking code takes no
    // bets until relaunch (checked after the unfinished round: its refusal commits the block).
    await assertBetsAllowed(c, session.session_id);
    await recordRound(c, { intent, playerPk: session.player_id, outcome: jsonSafe(result.outcome) });
  });
  const handle = await startSettlement(deps.temporal.client, deps.temporal.taskQueue, intent);
  const settled = await Promise.race([
    handle.result() as Promise<RoundOutcome>,
    new Promise<null>((r) => setTimeout(() => r(null), SPIN_WAIT_MS).unref()),
  ]);
  return {
    round_id: roundId,
    status: settled?.status ?? 'pending',
    bet_minor: result.costMinor.toString(),
    win_minor: result.totalWinMinor.toString(),
    balance: settled && 'balance' in settled ? settled.balance : null,
    error: settled && settled.status === 'rejected' ? settled.error : null,
    outcome: jsonSafe(result.outcome),
  };
}
