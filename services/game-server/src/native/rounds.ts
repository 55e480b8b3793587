import { randomUUID } from 'node:crypto';
import { walletRefusalMessage } from '@opi/contract';
import { type Pool, type PoolClient, withTransaction } from '@opi/db';
import { NativeMoveError, nativeCryptoRng, type Rng, ratioToDecimal } from '@opi/games';
import { readBetsBlocked } from '@opi/play/sessions/bets-blocked';
import { assertCycleInterval, recordCycleEnd, refuseAutoBet } from '@opi/play/sessions/gb-rules';
import { assertNoRealityCheckDue, sessionRulesFacts } from '@opi/play/sessions/jurisdiction-rules';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { assertOnLadder } from '@opi/play/sessions/stake-ladders';
import { assertTakesBets, refuseSuspendedOperator } from '@opi/play/sessions/takes-bets';
import {
  conflict,
  invalidField,
  notFound,
  runtimeNotConfigured,
  unavailable,
} from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import { roundDetailsUrl } from '@opi/signing';
import { type RoundIntent, transactionIdsFor } from '@opi/wallet';
import { finishUpdate, recordRound, stageSignal } from '@opi/workflows';
import { z } from 'zod';
import type { GameDeps } from '../deps.js';
import { startRoundSettlement } from '../settlement/start-round.js';
import {
  applyAction,
  currentOffer,
  NATIVE_FAMILY,
  type NativeFamily,
  parseBetParams,
  type StageDraft,
  type StageRow,
  startRound,
  titleView,
} from './titles.js';

/** How long a bet or a final action waits for the wallet before answering (the page polls after). */
export const NATIVE_WAIT_MS = 15_000;
/** The abandon rule's idle time when the configuration gives none (docs/native-titles.md). */
export const DEFAULT_ABANDON_AFTER_SECONDS = 300;
/** The longest a player action waits for Temporal to accept its stage signal. */
const SIGNAL_TIMEOUT_MS = 10_000;

/**
 * Actions stop this long before the workflow's abandon timer could fire, so an accepted action
 * always reaches the workflow first: 10 s, or a fifth of a short test setting.
 */
export function abandonMarginMs(abandonAfterSeconds: number): number {
  return Math.min(10_000, abandonAfterSeconds * 200);
}

export const BetRequest = z.object({
  /** The stake in minor units (integer, as a number or a decimal string). */
  stake_minor: z.union([z.number().int().positive(), z.string().regex(/^[1-9][0-9]{0,17}$/)]),
  /** Mines: how many mines (1 to 24, default 3). */
  mines: z.union([z.number().int(), z.string().regex(/^[0-9]{1,2}$/)]).optional(),
  /** Dice: the roll-under target in hundredths (100 = 1.00 to 9800 = 98.00; default 5000). */
  target: z.union([z.number().int(), z.string().regex(/^[0-9]{1,5}$/)]).optional(),
});

export const ActionRequest = z.object({
  round_id: z.string().min(1).max(64),
  action: z.enum(['reveal', 'guess', 'cashout']),
  /** Mines: the cell to reveal, 0 to 24 (row by row). */
  cell: z.number().int().optional(),
  /** Hi-Lo: higher, lower or same. */
  guess: z.enum(['higher', 'lower', 'same']).optional(),
});

interface RoundRow {
  round_id: string;
  session_id: string;
  symbol: string;
  currency: string;
  status: string;
  stuck: boolean;
  bet_minor: bigint;
  win_minor: bigint;
  intent: RoundIntent;
  outcome: Record<string, unknown> | null;
  created_at: Date;
}

const ROUND_COLUMNS = `round_id, session_id, symbol, trim(currency) AS currency, status, stuck, bet_minor, win_minor,
  intent, outcome, created_at`;

export function familyOf(session: RuntimeSession): NativeFamily {
  const family = session.provider_id === 'prov_c' ? NATIVE_FAMILY[session.symbol] : undefined;
  if (!family) throw conflict('This title is not played through the native runtime');
  return family;
}

/** The title's native family and the settlement service a bet or an action needs (409 / 503 first). */
function nativeRound(deps: GameDeps, session: RuntimeSession) {
  const family = familyOf(session);
  if (!deps.temporal) throw runtimeNotConfigured('settlement service');
  return { family, temporal: deps.temporal };
}

async function loadStages(db: Pool | PoolClient, roundId: string): Promise<StageRow[]> {
  const { rows } = await db.query<StageRow>(
    `SELECT seq, action, inputs, outcome, multiplier::text AS multiplier, created_at
     FROM round_stages WHERE round_id = $1 ORDER BY seq`,
    [roundId],
  );
  return rows;
}

async function insertStages(c: PoolClient, roundId: string, firstSeq: number, stages: StageDraft[]) {
  for (const [i, s] of stages.entries()) {
    // (round_id, seq) is the primary key: of two writers of the same stage only one succeeds.
    await c.query(
      `INSERT INTO round_stages (round_id, seq, action, inputs, outcome, multiplier) VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        roundId,
        firstSeq + i,
        s.action,
        JSON.stringify(s.inputs),
        JSON.stringify(s.outcome),
        s.multiplier ? ratioToDecimal(s.multiplier, 8) : null,
      ],
    );
  }
}

interface Journal {
  debit: { status: string; error_code: string | null; completed_at: Date | null } | null;
  /** the wallet balance after the round's latest successful step */
  balance: string | null;
}

async function loadJournal(db: Pool | PoolClient, intent: RoundIntent): Promise<Journal> {
  const { rows } = await db.query<{
    transaction_id: string;
    status: string;
    error_code: string | null;
    completed_at: Date | null;
    wallet_balance: string | null;
  }>(
    `SELECT transaction_id, status, error_code, completed_at, wallet_balance FROM wallet_transactions
     WHERE round_id = $1 ORDER BY completed_at NULLS FIRST`,
    [intent.roundId],
  );
  const debit = rows.find((r) => r.transaction_id === intent.transactions.debit) ?? null;
  const done = rows.filter((r) => r.status === 'success' && r.wallet_balance !== null);
  return {
    debit: debit && { status: debit.status, error_code: debit.error_code, completed_at: debit.completed_at },
    balance: done[done.length - 1]?.wallet_balance ?? null,
  };
}

const isFinal = (s: StageRow | undefined) => s?.outcome.final === true;
const CLOSING = new Set(['rejected', 'cancel', 'abandon']);

type ViewStatus = 'placing' | 'playing' | 'settling' | 'completed' | 'rejected' | 'cancelled';

/** The page's view of a round: never the mines layout while the round is open. */
function roundView(family: NativeFamily, row: RoundRow, stages: StageRow[], journal: Journal) {
  const last = stages[stages.length - 1];
  const finalStage = stages.find((s) => s.outcome.final === true);
  let status: ViewStatus;
  if (row.status === 'completed') status = 'completed';
  else if (row.status === 'rejected') status = 'rejected';
  else if (row.status === 'cancelled' || row.status === 'rolled_back') status = 'cancelled';
  else if (journal.debit?.status !== 'success') status = 'placing';
  else status = isFinal(last) || family === 'dice' ? 'settling' : 'playing';
  const playing = status === 'playing';
  const state = { stakeMinor: row.bet_minor, secret: row.outcome ?? {}, stages };
  const offer = playing ? currentOffer(family, state) : 0n;
  const rule = row.intent.multiStep;
  const since = Math.max(last?.created_at.getTime() ?? 0, journal.debit?.completed_at?.getTime() ?? 0);
  const abandoned = stages.find((s) => s.action === 'abandon');
  const showOutcome = status !== 'rejected' && status !== 'placing';
  return {
    round_id: row.round_id,
    symbol: row.symbol,
    currency: row.currency,
    status,
    stake_minor: row.bet_minor.toString(),
    win_minor:
      status === 'completed'
        ? row.win_minor.toString()
        : finalStage && showOutcome
          ? String(finalStage.outcome.win_minor ?? '0')
          : null,
    offer_minor: offer.toString(),
    can_cash_out: playing && offer > 0n,
    multiplier: (showOutcome ? last?.multiplier : null) ?? null,
    abandon_rule: rule ? { after_seconds: rule.abandonAfterSeconds, rule: rule.rule } : null,
    act_before:
      playing && rule
        ? new Date(
            since + rule.abandonAfterSeconds * 1000 - abandonMarginMs(rule.abandonAfterSeconds),
          ).toISOString()
        : null,
    abandoned: abandoned ? { win_minor: String(abandoned.outcome.win_minor ?? '0') } : null,
    error: status === 'rejected' ? (journal.debit?.error_code ?? 'rejected') : null,
    error_message:
      status === 'rejected' ? walletRefusalMessage(journal.debit?.error_code ?? 'rejected') : null,
    stuck: row.stuck,
    balance: journal.balance,
    stages: showOutcome
      ? stages.map((s) => ({
          seq: s.seq,
          action: s.action,
          inputs: s.inputs,
          outcome: s.outcome,
          multiplier: s.multiplier,
        }))
      : [],
    ...titleView(family, state, {
      playing,
      over: status === 'completed' || status === 'rejected' || status === 'cancelled',
      showOutcome,
    }),
  };
}

export type NativeRoundView = ReturnType<typeof roundView>;

async function viewOf(db: Pool | PoolClient, family: NativeFamily, row: RoundRow) {
  const [stages, journal] = await Promise.all([loadStages(db, row.round_id), loadJournal(db, row.intent)]);
  return roundView(family, row, stages, journal);
}

async function readRound(db: Pool | PoolClient, roundId: string): Promise<RoundRow | undefined> {
  const { rows } = await db.query<RoundRow>(`SELECT ${ROUND_COLUMNS} FROM rounds WHERE round_id = $1`, [
    roundId,
  ]);
  return rows[0];
}

/** Polls until `done` holds (or the wait is over). */
async function waitFor(done: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  let pause = 20;
  while (Date.now() < deadline) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(250, pause * 2);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | null> {
  return Promise.race([p, new Promise<null>((r) => setTimeout(() => r(null), ms).unref())]);
}

function stakeWithinLimits(stake: bigint, limits: { bet_min_minor: bigint; bet_max_minor: bigint }) {
  if (stake < limits.bet_min_minor || stake > limits.bet_max_minor) {
    throw invalidField(
      ['body', 'stake_minor'],
      `the stake must be between ${limits.bet_min_minor} and ${limits.bet_max_minor} minor units`,
    );
  }
}

/**
 * POST /api/runtime/native/bet: a round starts with its bet. The outcome is drawn (CSPRNG: the
 * mines layout, the first card, the dice roll), the round and its intent are written with the bet
 * stage in one transaction (one unfinished round per player and title), then the round's
 * settlement workflow starts and debits. Mines and Hi-Lo stay open (winMinor null, multiStep
 * abandon rule); Dice is a single stage settled at once. The answer waits for the debit (for
 * dice, the whole settlement): a refused debit is a rejected round.
 */
export async function placeBet(
  deps: GameDeps,
  session: RuntimeSession,
  body: unknown,
  rng: Rng = nativeCryptoRng,
) {
  const { family, temporal } = nativeRound(deps, session);
  // A suspended operator starts no round (403); the transaction below checks again, under locks.
  refuseSuspendedOperator(session);
  // GB: no autoplay or auto-bet (422 at the field; elsewhere such fields are ignored).
  await refuseAutoBet(deps.pool, session.session_id, body);
  const req = parseOr422(BetRequest, body ?? {}, 'body');
  const stake = BigInt(req.stake_minor);
  const { rows: ops } = await deps.pool.query<{ bet_min_minor: bigint; bet_max_minor: bigint }>(
    `SELECT bet_min_minor, bet_max_minor FROM operators WHERE operator_id = $1`,
    [session.operator_id],
  );
  stakeWithinLimits(stake, ops[0]!);
  // A session frozen with a stake ladder (issue 39: a crypto currency) takes its stakes only.
  await assertOnLadder(deps.pool, session, stake, 'stake_minor');
  let started: ReturnType<typeof startRound>;
  try {
    started = startRound(family, rng, stake, parseBetParams(family, req));
  } catch (err) {
    if (err instanceof NativeMoveError) {
      throw invalidField(['body', family === 'dice' ? 'target' : 'mines'], err.message);
    }
    throw err;
  }

  const roundId = `r_${randomUUID()}`;
  const abandonAfterSeconds = deps.native?.abandonAfterSeconds ?? DEFAULT_ABANDON_AFTER_SECONDS;
  const intent: RoundIntent = {
    roundId,
    operatorId: session.operator_id,
    sessionId: session.session_id,
    playerId: session.external_player_id,
    gameSymbol: session.symbol,
    providerId: 'prov_c',
    currency: session.currency,
    actionType: family,
    stakeMinor: stake.toString(),
    winMinor: started.winMinor === null ? null : started.winMinor.toString(),
    transactions: transactionIdsFor(roundId),
    // The round's replay page, fixed now: its credit carries it, the same bytes in every process.
    detailsUrl: roundDetailsUrl(deps.gameBaseUrl, deps.replayKey, roundId),
    // Abandoned (no action for abandonAfterSeconds): credit the current cash-out offer, which is
    // 0 until the first safe reveal or right guess.
    ...(started.winMinor === null ? { multiStep: { abandonAfterSeconds, rule: 'cashout' as const } } : {}),
  };
  await withTransaction(deps.pool, async (c) => {
    // One unfinished round per player and title, whatever the session: the player row is the lock.
    await c.query(`SELECT 1 FROM players WHERE player_id = $1 FOR UPDATE`, [session.player_id]);
    const { rows } = await c.query<{ round_id: string }>(
      `SELECT round_id FROM rounds WHERE player_id = $1 AND symbol = $2 AND status = 'open' LIMIT 1`,
      [session.player_id, session.symbol],
    );
    if (rows[0]) {
      throw conflict(`Round ${rows[0].round_id} is not finished yet`, {
        round_id: rows[0].round_id,
      });
    }
    // No bets in a revoked session (401) or a suspended operator's (403), nor (player protection)
    // in a session the operator's wallet stopped, until relaunch (409): under the session's and
    // the operator's row locks, so a revocation or deactivation either waits for this round or stops it.
    await assertTakesBets(c, session);
    // Jurisdiction rules: no bet while a reality check waits for the player (nothing written).
    await assertNoRealityCheckDue(c, session.session_id);
    // GB: 5 s between the end of the last game cycle and this one's start (429, nothing written).
    await assertCycleInterval(c, session.session_id);
    await recordRound(c, { intent, playerPk: session.player_id, outcome: started.secret });
    await insertStages(c, roundId, 0, [started.bet]);
    // Dice is decided by its bet: the cycle ends with this stage.
    if (started.winMinor !== null) await recordCycleEnd(c, session.session_id);
  });
  const settlement = await startRoundSettlement(temporal, intent, { awaitOutcome: family === 'dice' });
  if (family === 'dice') {
    await settlement.settled(NATIVE_WAIT_MS).catch(() => null);
  } else {
    // The round can be played once the debit is known (journalled before the workflow moves on).
    await waitFor(async () => {
      const { rows } = await deps.pool.query<{ status: string }>(
        `SELECT status FROM wallet_transactions WHERE transaction_id = $1`,
        [intent.transactions.debit],
      );
      return rows[0]?.status === 'success' || rows[0]?.status === 'failed';
    }, NATIVE_WAIT_MS);
  }
  return roundState(deps, family, roundId);
}

/** The round's view, closing its stage log first if the workflow ended it without an action. */
async function roundState(deps: GameDeps, family: NativeFamily, roundId: string) {
  const row = await readRound(deps.pool, roundId);
  if (!row) throw notFound('round');
  // One read of the round decides both: a status that moves on meanwhile shows on the next read.
  if (row.status !== 'open') await closeStageLog(deps.pool, row);
  return viewOf(deps.pool, family, row);
}

/**
 * A round the workflow ended without a final player action (abandoned and settled by its rule,
 * refused debit, cancel) gets a closing stage, so its stage log tells the whole story. Written
 * once, under the round's lock, by whichever reader sees it first.
 */
async function closeStageLog(pool: Pool, row: RoundRow): Promise<void> {
  const stages = await loadStages(pool, row.round_id);
  const last = stages[stages.length - 1];
  if (last && CLOSING.has(last.action)) return;
  const action =
    row.status === 'rejected'
      ? 'rejected'
      : row.status === 'cancelled' || row.status === 'rolled_back'
        ? 'cancel'
        : row.status === 'completed' && !stages.some((s) => s.outcome.final === true)
          ? 'abandon'
          : null;
  if (!action) return;
  await withTransaction(pool, async (c) => {
    await c.query(`SELECT 1 FROM rounds WHERE round_id = $1 FOR UPDATE`, [row.round_id]);
    const again = await loadStages(c, row.round_id);
    if (again.length !== stages.length) return;
    const rule = row.intent.multiStep;
    await insertStages(c, row.round_id, stages.length, [
      {
        action,
        inputs: {},
        outcome:
          action === 'abandon'
            ? {
                final: true,
                rule: rule?.rule ?? 'loss',
                after_seconds: rule?.abandonAfterSeconds ?? null,
                win_minor: row.win_minor.toString(),
              }
            : { final: true, status: row.status },
        multiplier: null,
      },
    ]);
  });
}

/**
 * POST /api/runtime/native/action: one player action (reveal, guess, cash-out) on the player's open
 * round. Under the round's row lock: the round must be open, its debit successful, no final stage
 * yet, and the abandon deadline not near; the action's stages are appended (seq is the primary
 * key), the new cash-out offer is signalled to the workflow (`stage`), and only then is the
 * transaction committed. A final action (cash-out, a mine, a wrong guess) then sends `finish` with
 * its win, and the workflow credits once.
 */
export async function playAction(
  deps: GameDeps,
  session: RuntimeSession,
  body: unknown,
  rng: Rng = nativeCryptoRng,
) {
  const { family, temporal } = nativeRound(deps, session);
  const req = parseOr422(ActionRequest, body ?? {}, 'body');
  const result = await withTransaction(deps.pool, async (c) => {
    const { rows } = await c.query<RoundRow & { db_now: Date }>(
      `SELECT ${ROUND_COLUMNS}, now() AS db_now FROM rounds
       WHERE round_id = $1 AND player_id = $2 AND symbol = $3 FOR UPDATE`,
      [req.round_id, session.player_id, session.symbol],
    );
    const row = rows[0];
    if (!row) throw notFound('round');
    if (row.currency !== session.currency) throw conflict('The round is in another currency');
    if (row.status !== 'open') throw conflict(`The round is ${row.status}`);
    const [stages, journal] = await Promise.all([loadStages(c, row.round_id), loadJournal(c, row.intent)]);
    if (journal.debit?.status !== 'success') throw conflict('The wager is still being placed');
    const last = stages[stages.length - 1];
    if (isFinal(last)) throw conflict('The round is being settled');
    const rule = row.intent.multiStep;
    if (rule) {
      const since = Math.max(last?.created_at.getTime() ?? 0, journal.debit.completed_at?.getTime() ?? 0);
      const deadline = since + rule.abandonAfterSeconds * 1000 - abandonMarginMs(rule.abandonAfterSeconds);
      if (row.db_now.getTime() >= deadline) {
        throw conflict('The round was left idle and is being settled by its abandon rule');
      }
    }
    let applied: ReturnType<typeof applyAction>;
    try {
      applied = applyAction(
        family,
        rng,
        { stakeMinor: row.bet_minor, secret: row.outcome ?? {}, stages },
        {
          action: req.action,
          ...(req.cell !== undefined ? { cell: req.cell } : {}),
          ...(req.guess ? { guess: req.guess } : {}),
        },
      );
    } catch (err) {
      if (err instanceof NativeMoveError) throw conflict(err.message);
      throw err;
    }
    await insertStages(c, row.round_id, stages.length, applied.stages);
    // A final stage (cash-out, a mine, a wrong guess) ends the game cycle (GB's 5 s count from here).
    if (applied.finalWinMinor !== null) await recordCycleEnd(c, session.session_id);
    // The offer reaches the workflow before the stage is committed: a committed stage is never
    // unknown to the workflow (a lost finish is then settled with this very offer).
    const handle = temporal.client.workflow.getHandle(row.round_id);
    const sent = await withTimeout(
      handle.signal(stageSignal, { cashoutMinor: applied.offerMinor.toString() }).then(() => true),
      SIGNAL_TIMEOUT_MS,
    ).catch(() => null);
    if (!sent) throw unavailable('The settlement service did not answer: try again');
    return { roundId: row.round_id, finalWin: applied.finalWinMinor };
  });
  if (result.finalWin !== null) {
    await sendFinish(deps, result.roundId, result.finalWin, NATIVE_WAIT_MS);
  }
  return roundState(deps, family, result.roundId);
}

/** `finish` with the round's win; the workflow keeps the first one. Waits up to `waitMs` for the credit. */
async function sendFinish(deps: GameDeps, roundId: string, winMinor: bigint, waitMs: number): Promise<void> {
  if (!deps.temporal) return;
  const handle = deps.temporal.client.workflow.getHandle(roundId);
  const update = handle.executeUpdate(finishUpdate, { args: [{ winMinor: winMinor.toString() }] });
  // A refused finish (already settled by the abandon rule, or cancelled) leaves the DB to tell.
  await withTimeout(update, waitMs).catch((err: unknown) => {
    deps.logger.warn('native finish not applied', { round_id: roundId, error: String(err) });
    return null;
  });
}

/**
 * GET /api/runtime/native/state: the player's unfinished round of this title (any session, in
 * this currency: a relaunch resumes it with its wager), else the latest finished one. A round
 * whose final stage is written but is still open gets its `finish` sent again (idempotent).
 */
export async function nativeState(deps: GameDeps, session: RuntimeSession) {
  const family = familyOf(session);
  const { rows } = await deps.pool.query<RoundRow>(
    `SELECT ${ROUND_COLUMNS} FROM rounds
     WHERE player_id = $1 AND symbol = $2 AND currency = $3
     ORDER BY (status = 'open') DESC, created_at DESC LIMIT 1`,
    [session.player_id, session.symbol, session.currency],
  );
  const row = rows[0];
  // Player protection: set while the operator's wallet has stopped this session's bets.
  const bets_blocked = await readBetsBlocked(deps.pool, session.session_id);
  // Jurisdiction rules in force, the session's time played and net position, the reality check.
  if (!row) return { round: null, bets_blocked, ...(await sessionRulesFacts(deps.pool, session.session_id)) };
  if (row.status === 'open' && family !== 'dice') {
    const stages = await loadStages(deps.pool, row.round_id);
    const last = stages[stages.length - 1];
    if (isFinal(last))
      await sendFinish(deps, row.round_id, BigInt(String(last!.outcome.win_minor ?? '0')), 2_000);
  }
  const round = await roundState(deps, family, row.round_id);
  // Read after the round: a round this read saw complete is in the net position.
  return { round, bets_blocked, ...(await sessionRulesFacts(deps.pool, session.session_id)) };
}
