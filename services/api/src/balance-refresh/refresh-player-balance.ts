import { type BalanceRefreshData, BalanceRefreshRequest } from '@opi/contract';
import { PRESENCE_FRESH_SECONDS, REFRESH_FAMILY } from '@opi/play/balance-refresh/hub';
import type { HttpError } from '@opi/service-kit/http/errors';
import { badRequest, conflict, notFound } from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';

/** Balance refresh signalling is supported for this family only (spec, Provider families). */

/** A body that is not a JSON object, or lacks external_player_id: 400 (as launch); malformed: 422. */
function requireFields(body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('A JSON object body is required');
  if ((body as Record<string, unknown>).external_player_id === undefined)
    throw badRequest('external_player_id is required');
}

function unsupported(family: string): HttpError {
  return conflict(
    `Unsupported provider operation: balance refresh signalling is supported for ${REFRESH_FAMILY} only, not ${family}`,
  );
}

/** The game filter (a symbol, else a slug) over every title: unknown 404, another family 409. */
async function resolveGameFilter(deps: ApiDeps, symbolOrSlug: string): Promise<string> {
  const { rows } = await deps.pool.query<{ symbol: string; provider_id: string }>(
    `SELECT symbol, provider_id FROM games WHERE symbol = $1
     UNION ALL
     SELECT symbol, provider_id FROM games WHERE slug = $1 AND symbol <> $1
     LIMIT 1`,
    [symbolOrSlug],
  );
  const game = rows[0];
  if (!game) throw notFound('game');
  if (game.provider_id !== REFRESH_FAMILY) throw unsupported(game.provider_id);
  return game.symbol;
}

interface SessionRow {
  session_id: string;
  game_symbol: string;
  currency: string;
  provider_id: string;
  active_subscribers: number;
}

/**
 * POST /api/provider/v1/player-balance-refresh: finds the player's active, unexpired sessions of
 * this operator (filtered), counts their open event streams (fresh presence rows in any process),
 * and sends one signal covering every matching session. It carries no balance and sets none: the
 * page reacts by reading its balance through the wallet balance callback.
 */
export async function refreshPlayerBalance(
  deps: ApiDeps,
  operator: OperatorRow,
  rawBody: unknown,
): Promise<BalanceRefreshData> {
  requireFields(rawBody);
  const req = parseOr422(BalanceRefreshRequest, rawBody, 'body');
  const symbol = req.game_symbol === undefined ? null : await resolveGameFilter(deps, req.game_symbol);

  const { rows } = await deps.pool.query<SessionRow>(
    `SELECT s.session_id, s.symbol AS game_symbol, trim(s.currency) AS currency, s.provider_id,
            (SELECT count(*)::int FROM subscriber_presence sp
             WHERE sp.session_id = s.session_id
               AND sp.last_seen_at > now() - make_interval(secs => $6)) AS active_subscribers
     FROM players p
     JOIN sessions s ON s.player_id = p.player_id AND s.operator_id = p.operator_id
     WHERE p.operator_id = $1 AND p.external_player_id = $2
       AND s.status = 'active' AND (s.expires_at IS NULL OR s.expires_at > now())
       AND ($3::text IS NULL OR s.currency = $3::text)
       AND ($4::text IS NULL OR s.symbol = $4)
       AND ($5::text IS NULL OR s.session_id = $5)
     ORDER BY s.created_at, s.session_id`,
    [
      operator.operator_id,
      req.external_player_id,
      req.currency ?? null,
      symbol,
      req.session_id ?? null,
      PRESENCE_FRESH_SECONDS,
    ],
  );
  // A session filter naming another family's session is refused like a game filter; unfiltered,
  // other families' sessions are skipped (not found, not counted).
  const other = rows.find((r) => r.provider_id !== REFRESH_FAMILY);
  if (other && req.session_id !== undefined) throw unsupported(other.provider_id);
  const found = rows.filter((r) => r.provider_id === REFRESH_FAMILY);

  const signal = { request_id: req.request_id ?? null, reason: req.reason ?? null };
  // Every found session is signalled, subscribers or not: a page may subscribe (or a process's
  // presence refresh land) between the count and the NOTIFY. notified = a signal was sent.
  await deps.refresh.publish(
    found.map((r) => r.session_id),
    signal,
  );
  const sessions = found.map((r) => ({
    session_id: r.session_id,
    game_symbol: r.game_symbol,
    currency: r.currency,
    active_subscribers: r.active_subscribers,
    notified: true,
  }));
  return {
    operator_id: operator.operator_id,
    external_player_id: req.external_player_id,
    ...signal,
    sessions_found: sessions.length,
    sessions_notified: sessions.filter((s) => s.notified).length,
    subscribers_notified: sessions.reduce((n, s) => n + s.active_subscribers, 0),
    sessions,
  };
}
