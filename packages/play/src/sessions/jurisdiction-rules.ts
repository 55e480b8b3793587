import type { JurisdictionRules } from '@opi/contract';
import type { Pool, PoolClient } from '@opi/db';
import type { HttpError } from '@opi/service-kit/http/errors';
import { conflict, invalidField, tooManyRequests } from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import { z } from 'zod';
import type { RuntimeSession } from './runtime-session.js';

/*
 * Jurisdiction rules on the game side (issue 18). The launch records the rules in force on the
 * session (sessions.jurisdiction, min_spin_interval_ms, autoplay_allowed, turbo_allowed,
 * reality_check_interval_seconds, reality_check_due_at; migration 15). The slot spin's one
 * statement (services/game-server/src/slots/spin-statement.ts) refuses a spin that starts less than min_spin_interval_ms after the
 * session's latest round started (429 `spin_too_soon` with `retry_after_ms`) and a spin while a
 * reality check is due and not acknowledged (409 `reality_check_due`). The native and crash bets
 * refuse the same way (assertNoRealityCheckDue, in the transaction that records the round). The
 * slot page reads the rules, the session's elapsed time and net position from GET
 * /api/runtime/session, the native and crash pages from their state reads; every page
 * acknowledges a reality check with POST /api/runtime/reality-check.
 */

/** The columns the spin's statement reads from the session row for the rules. */
export interface SpinRulesRow {
  reality_check_due: boolean | null;
  reality_check_due_at: Date | null;
  retry_after_ms: number | null;
}

/** A spin that starts too soon after the previous one (GB: 2.5 s): 429 `spin_too_soon`. */
export function spinTooSoonError(retryAfterMs: number): HttpError {
  const ms = Math.max(1, Math.ceil(retryAfterMs));
  return tooManyRequests(
    `Spins in this jurisdiction start at least the minimum interval apart: try again in ${ms} ms`,
    { error: 'spin_too_soon', retry_after_ms: ms },
  );
}

/** A spin while a reality check waits for the player: 409 `reality_check_due`. */
export function realityCheckDueError(dueAt: Date | null): HttpError {
  return conflict(
    'A reality check is due: acknowledge it (POST /api/runtime/reality-check) before the next spin',
    { error: 'reality_check_due', reality_check_due_at: dueAt?.toISOString() ?? null },
  );
}

/**
 * Refuses a native or crash bet (409 `reality_check_due`, the slot spin's body) while the
 * session's reality check is due and not answered. Called inside the transaction that records the
 * round, before anything is written: a refused bet leaves no round behind. The check reads the
 * database clock, like the spin's statement.
 */
export async function assertNoRealityCheckDue(db: Pool | PoolClient, sessionId: string): Promise<void> {
  const { rows } = await db.query<{ reality_check_due_at: Date | null; due: boolean | null }>(
    `SELECT reality_check_due_at, reality_check_due_at <= now() AS due FROM sessions WHERE session_id = $1`,
    [sessionId],
  );
  const row = rows[0];
  if (row?.due) throw realityCheckDueError(row.reality_check_due_at);
}

/** The fields a spin request may carry that ask for autoplay or turbo (quick) spins. */
const AUTOPLAY_FIELDS = ['autoplay', 'auto_spins', 'autoplay_count'] as const;
const TURBO_FIELDS = ['turbo', 'quick_spin', 'quickspin'] as const;

function asks(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0;
}

/**
 * Refuses (422 at the field) a spin body asking for autoplay or turbo in a session whose rules
 * forbid them (GB). Reads the session row only when the body has such a field.
 */
export async function refuseAutoplayTurbo(pool: Pool, session: RuntimeSession, body: unknown): Promise<void> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const b = body as Record<string, unknown>;
  const autoplay = AUTOPLAY_FIELDS.find((f) => asks(b[f]));
  const turbo = TURBO_FIELDS.find((f) => asks(b[f]));
  if (!autoplay && !turbo) return;
  const { rows } = await pool.query<{
    autoplay_allowed: boolean;
    turbo_allowed: boolean;
    jurisdiction: string | null;
  }>(`SELECT autoplay_allowed, turbo_allowed, jurisdiction FROM sessions WHERE session_id = $1`, [
    session.session_id,
  ]);
  const row = rows[0];
  if (!row) return;
  const where = row.jurisdiction ?? 'this jurisdiction';
  if (autoplay && !row.autoplay_allowed)
    throw invalidField(['body', autoplay], `autoplay is not allowed in ${where}`);
  if (turbo && !row.turbo_allowed)
    throw invalidField(['body', turbo], `turbo spins are not allowed in ${where}`);
}

/** What GET /api/runtime/session adds for the rules: the rules, the session's play so far, the reality check. */
export interface SessionRulesFacts {
  rules: JurisdictionRules;
  /** Since the session began (a relaunch resumes the session and its clock). */
  play: { started_at: string; elapsed_ms: number; net_minor: string };
  /**
   * GB native and crash titles (issue 26): when the next game cycle may start (5 s after the end
   * of the last one, database clock) and how long that is from now; null when no interval applies.
   */
  next_cycle: { not_before: string; wait_ms: number } | null;
  /** The reality check, when the operator set an interval, else null. */
  reality_check: { interval_seconds: number; due_at: string; due: boolean } | null;
}

interface FactsRow {
  jurisdiction: string | null;
  min_spin_interval_ms: number | null;
  autoplay_allowed: boolean;
  turbo_allowed: boolean;
  reality_check_interval_seconds: number | null;
  reality_check_due_at: Date | null;
  due: boolean | null;
  created_at: Date;
  min_cycle_interval_ms: number | null;
  max_stake_minor: string | null;
  age_band: '18-24' | '25+' | null;
  next_cycle_at: Date | null;
  next_cycle_wait_ms: number | null;
  elapsed_ms: string;
  net_minor: string;
}

/**
 * The session's rules, elapsed time (database clock) and net position: wins minus bets of its
 * completed rounds, minor units (a round still settling is not counted yet; a rejected or
 * cancelled round moved no money).
 */
export async function sessionRulesFacts(pool: Pool, sessionId: string): Promise<SessionRulesFacts | null> {
  const { rows } = await pool.query<FactsRow>(
    `SELECT s.jurisdiction, s.min_spin_interval_ms, s.autoplay_allowed, s.turbo_allowed,
            s.reality_check_interval_seconds, s.reality_check_due_at, s.reality_check_due_at <= now() AS due,
            s.created_at, floor(extract(epoch FROM now() - s.created_at) * 1000)::bigint::text AS elapsed_ms,
            s.min_cycle_interval_ms, s.max_stake_minor::text AS max_stake_minor, s.age_band,
            CASE WHEN s.min_cycle_interval_ms IS NOT NULL AND s.last_cycle_ended_at IS NOT NULL
                 THEN s.last_cycle_ended_at + make_interval(secs => s.min_cycle_interval_ms / 1000.0) END
              AS next_cycle_at,
            CASE WHEN s.min_cycle_interval_ms IS NOT NULL AND s.last_cycle_ended_at IS NOT NULL
                 THEN greatest(0, ceil(extract(epoch FROM s.last_cycle_ended_at
                        + make_interval(secs => s.min_cycle_interval_ms / 1000.0) - now()) * 1000))::int END
              AS next_cycle_wait_ms,
            (SELECT coalesce(sum(r.win_minor - r.bet_minor), 0) FROM rounds r
              WHERE r.operator_id = s.operator_id AND r.session_id = s.session_id AND r.status = 'completed')::text
              AS net_minor
       FROM sessions s WHERE s.session_id = $1`,
    [sessionId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    rules: {
      jurisdiction: r.jurisdiction,
      min_spin_interval_ms: r.min_spin_interval_ms,
      min_cycle_interval_ms: r.min_cycle_interval_ms,
      autoplay: r.autoplay_allowed,
      turbo: r.turbo_allowed,
      reality_check_interval_seconds: r.reality_check_interval_seconds,
      // money-float-ok: a GB cap is at most 600 minor units (a fixed table): exact as a JSON number.
      max_stake_minor: r.max_stake_minor === null ? null : Number(r.max_stake_minor),
      age_band: r.age_band,
    },
    play: {
      started_at: r.created_at.toISOString(),
      elapsed_ms: Number(r.elapsed_ms),
      net_minor: r.net_minor,
    },
    next_cycle:
      r.next_cycle_at !== null
        ? { not_before: r.next_cycle_at.toISOString(), wait_ms: r.next_cycle_wait_ms ?? 0 }
        : null,
    reality_check:
      r.reality_check_interval_seconds !== null && r.reality_check_due_at !== null
        ? {
            interval_seconds: r.reality_check_interval_seconds,
            due_at: r.reality_check_due_at.toISOString(),
            due: r.due === true,
          }
        : null,
  };
}

export const RealityCheckRequest = z.object({
  /** `continue`: play on (the next check is one interval later); `leave`: the page goes to return_url. */
  action: z.enum(['continue', 'leave']).default('continue'),
});

/**
 * POST /api/runtime/reality-check: the player answers a due reality check. `continue` moves the
 * next one an interval on from now and lets spins through again; `leave` is recorded and changes
 * nothing else (a relaunch shows the check again). Recorded in reality_checks with the time played
 * and net position shown. 409 `reality_check_not_due` when none is due.
 */
export async function acknowledgeRealityCheck(pool: Pool, session: RuntimeSession, body: unknown) {
  const req = parseOr422(RealityCheckRequest, body ?? {}, 'body');
  const { rows } = await pool.query<{ check_id: string; due_at: Date; next_due_at: Date | null }>(
    `WITH s AS (
       SELECT session_id, operator_id, reality_check_due_at, reality_check_interval_seconds, created_at
         FROM sessions
        WHERE session_id = $1 AND reality_check_due_at <= now() AND reality_check_interval_seconds IS NOT NULL
        FOR UPDATE
     ), upd AS (
       UPDATE sessions SET reality_check_due_at = now() + make_interval(secs => s.reality_check_interval_seconds)
         FROM s WHERE sessions.session_id = s.session_id AND $2 = 'continue'
       RETURNING sessions.reality_check_due_at
     ), ins AS (
       INSERT INTO reality_checks (operator_id, session_id, due_at, action, elapsed_ms, net_minor)
       SELECT s.operator_id, s.session_id, s.reality_check_due_at, $2,
              floor(extract(epoch FROM now() - s.created_at) * 1000)::bigint,
              (SELECT coalesce(sum(r.win_minor - r.bet_minor), 0) FROM rounds r
                WHERE r.operator_id = s.operator_id AND r.session_id = s.session_id AND r.status = 'completed')
         FROM s
       RETURNING check_id
     )
     SELECT (SELECT check_id FROM ins)::text AS check_id, s.reality_check_due_at AS due_at,
            (SELECT reality_check_due_at FROM upd) AS next_due_at
       FROM s`,
    [session.session_id, req.action],
  );
  const row = rows[0];
  if (!row) throw conflict('No reality check is due', { error: 'reality_check_not_due' });
  return {
    acknowledged: true,
    action: req.action,
    due_at: row.due_at.toISOString(),
    next_due_at: row.next_due_at?.toISOString() ?? null,
    ...(await sessionRulesFacts(pool, session.session_id)),
  };
}
