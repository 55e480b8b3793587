import Router from '@koa/router';
import { OperatorId, type ReplayLinkRevocation, ReplayLinkRevokeRequest, ReplayRoundId } from '@opi/contract';
import type { Pool } from '@opi/db';
import { notFound } from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import type { Context, Middleware } from 'koa';
import type { ApiDeps } from '../deps.js';

/*
 * Revoking replay links (issue 34; migration 29, replay_link_revocations). Replay links carry no
 * state of their own, so a revocation is a time: every link of the round (or of the operator's
 * rounds) issued at or before it stops opening on the game server (410 `revoked`), whichever key
 * signed it. A round's stable details link counts as issued with its round: a round revocation
 * ends it for good, an operator revocation ends those of the rounds made before it. Share links
 * issued afterwards (the audit API's replay-url, the player's history) open as before. A repeat
 * moves the time forward (200 each time).
 */

interface Row {
  scope: 'round' | 'operator';
  subject_id: string;
  revoked_at: Date;
  reason: string | null;
}

async function revoke(
  pool: Pool,
  scope: 'round' | 'operator',
  subjectId: string,
  reason: string | null,
  by: string | null,
): Promise<Row> {
  // clock_timestamp(): the instant of this statement, not of an enclosing transaction's start.
  const { rows } = await pool.query<Row>(
    `INSERT INTO replay_link_revocations (scope, subject_id, revoked_at, reason, revoked_by)
     VALUES ($1, $2, clock_timestamp(), $3, $4)
     ON CONFLICT (scope, subject_id) DO UPDATE
       SET revoked_at = greatest(replay_link_revocations.revoked_at, EXCLUDED.revoked_at),
           reason = EXCLUDED.reason, revoked_by = EXCLUDED.revoked_by
     RETURNING scope, subject_id, revoked_at, reason`,
    [scope, subjectId, reason, by],
  );
  return rows[0]!;
}

const present = (r: Row, operatorId: string): ReplayLinkRevocation => ({
  scope: r.scope,
  subject_id: r.subject_id,
  operator_id: operatorId,
  revoked_at: r.revoked_at.toISOString(),
  reason: r.reason,
});

/** The admin key's id, for the record (authenticate's AuthState). */
const keyIdOf = (ctx: Context): string | null =>
  (ctx.state.auth as { keyId?: string } | undefined)?.keyId ?? null;

export function replayLinkRevocationRoutes(deps: ApiDeps, adminGuard: Middleware[]): Router {
  const admin = new Router({ prefix: '/api/admin/v1' });

  admin.post('/rounds/:round_id/replay-links/revoke', ...adminGuard, async (ctx) => {
    const id = ctx.params.round_id ?? '';
    if (!ReplayRoundId.safeParse(id).success) throw notFound('round');
    const { reason } = parseOr422(ReplayLinkRevokeRequest, ctx.state.body ?? {}, 'body');
    const { rows } = await deps.pool.query<{ operator_id: string }>(
      `SELECT operator_id FROM rounds WHERE round_id = $1`,
      [id],
    );
    if (!rows[0]) throw notFound('round');
    const row = await revoke(deps.pool, 'round', id, reason ?? null, keyIdOf(ctx));
    ctx.body = { success: true, data: present(row, rows[0].operator_id) };
  });

  admin.post('/operators/:operator_id/replay-links/revoke', ...adminGuard, async (ctx) => {
    const id = ctx.params.operator_id ?? '';
    if (!OperatorId.safeParse(id).success) throw notFound('operator');
    const { reason } = parseOr422(ReplayLinkRevokeRequest, ctx.state.body ?? {}, 'body');
    const { rows } = await deps.pool.query(`SELECT 1 FROM operators WHERE operator_id = $1`, [id]);
    if (!rows[0]) throw notFound('operator');
    const row = await revoke(deps.pool, 'operator', id, reason ?? null, keyIdOf(ctx));
    ctx.body = { success: true, data: present(row, id) };
  });
  return admin;
}
