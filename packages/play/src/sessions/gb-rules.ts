import type { Pool, PoolClient } from '@opi/db';
import type { HttpError } from '@opi/service-kit/http/errors';
import { invalidField, tooManyRequests, unprocessable } from '@opi/service-kit/http/named-errors';

/*
 * The UK's rules for native and crash titles (issue 26; docs/jurisdiction-rules.md). The launch
 * records `min_cycle_interval_ms` on the session (GB: 5000; migration 25). A game cycle ends in
 * the transaction that ends it (`recordCycleEnd`: a native round's final stage, a crash round's
 * cash-out or crash), which writes `sessions.last_cycle_ended_at`; the transaction that records
 * the next round checks it (`assertCycleInterval`) before anything is written, under the lock
 * that already serialises a player's rounds of a title (the native bet's player row, the crash
 * bet's fairness chain) and a FOR UPDATE of the session row itself: of two concurrent starts one
 * waits for the other and then sees its round. Auto-bet requests are refused where autoplay is not
 * allowed (`refuseAutoBet`).
 */

/**
 * A native or crash round started too soon after the previous cycle ended (GB: 5 s): 429
 * `{detail, error: 'cycle_too_soon', retry_after_ms}` with Retry-After (whole seconds, rounded up).
 */
export function cycleTooSoonError(retryAfterMs: number): HttpError {
  const ms = Math.max(1, Math.ceil(retryAfterMs));
  return tooManyRequests(
    `In this jurisdiction the next game starts at least the minimum interval after the previous one ended: try again in ${ms} ms`,
    { error: 'cycle_too_soon', retry_after_ms: ms },
    { 'Retry-After': String(Math.ceil(ms / 1000)) },
  );
}

/**
 * Inside the transaction that records a native or crash round, before its rows are written:
 * refuses (429 `cycle_too_soon`) a round that starts less than the session's
 * `min_cycle_interval_ms` after its last game cycle ended (database clock). Locks the session row
 * (FOR UPDATE): a cycle's end and the next start are decided one after the other.
 */
export async function assertCycleInterval(c: PoolClient, sessionId: string): Promise<void> {
  const { rows } = await c.query<{ wait_ms: number | null }>(
    `SELECT CASE WHEN min_cycle_interval_ms IS NULL OR last_cycle_ended_at IS NULL THEN NULL
                 ELSE ceil(extract(epoch FROM last_cycle_ended_at
                        + make_interval(secs => min_cycle_interval_ms / 1000.0) - now()) * 1000)::int END AS wait_ms
       FROM sessions WHERE session_id = $1 FOR UPDATE`,
    [sessionId],
  );
  const wait = rows[0]?.wait_ms;
  if (wait !== null && wait !== undefined && wait > 0) throw cycleTooSoonError(wait);
}

/**
 * Records the end of a game cycle on the session, in the transaction that ends it (a native
 * round's final stage; a crash round's cash-out or crash at `endedAt`, its server time; default:
 * the database's now()). Never moves the time back.
 */
export async function recordCycleEnd(
  c: Pool | PoolClient,
  sessionId: string,
  endedAt: Date | null = null,
): Promise<void> {
  await c.query(
    `UPDATE sessions
        SET last_cycle_ended_at = greatest(coalesce(last_cycle_ended_at, '-infinity'), coalesce($2::timestamptz, now()))
      WHERE session_id = $1`,
    [sessionId, endedAt],
  );
}

/** Fields of a native or crash bet (or a slot spin) that ask for autoplay or auto-bet. */
export const AUTO_BET_FIELDS = [
  'autoplay',
  'auto_play',
  'autoplay_count',
  'auto_spins',
  'auto_bet',
  'autobet',
  'auto_bets',
  'auto_bet_count',
  'auto_rounds',
  'repeat',
  'repeat_count',
] as const;

function asks(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== '';
}

/**
 * Refuses (422 at the field) a native or crash bet body asking for autoplay or auto-bet in a
 * session whose rules forbid autoplay (GB). Reads the session row only when the body has such a
 * field. Crash's automatic cash-out (`auto_cashout`) is a cash-out, not a bet: not refused.
 */
export async function refuseAutoBet(pool: Pool, sessionId: string, body: unknown): Promise<void> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const b = body as Record<string, unknown>;
  const field = AUTO_BET_FIELDS.find((f) => asks(b[f]));
  if (!field) return;
  const { rows } = await pool.query<{ autoplay_allowed: boolean; jurisdiction: string | null }>(
    `SELECT autoplay_allowed, jurisdiction FROM sessions WHERE session_id = $1`,
    [sessionId],
  );
  const row = rows[0];
  if (!row || row.autoplay_allowed) return;
  throw invalidField(
    ['body', field],
    `autoplay and auto-bet are not allowed in ${row.jurisdiction ?? 'this jurisdiction'}`,
  );
}

/** Status and code of a slot spin staking more than the session's cap (GB). */
export function stakeAboveCapError(field: string, costMinor: bigint, capMinor: bigint, where: string | null) {
  return unprocessable(
    [
      {
        loc: ['body', field],
        msg: `the stake ${costMinor} is above the cap of ${capMinor} minor units per spin in ${where ?? 'this jurisdiction'}`,
        type: 'value_error',
      },
    ],
    // money-float-ok: a GB cap is at most 600 minor units (a fixed table): exact as a JSON number.
    { error: 'stake_above_cap', max_stake_minor: Number(capMinor) },
  );
}
