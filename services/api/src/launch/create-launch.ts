import { randomUUID } from 'node:crypto';
import { AMOUNT_UNIT, CONTRACT_VERSION, type LaunchUrlData, LaunchUrlRequest, rulesFor } from '@opi/contract';
import { isSlotTitle } from '@opi/games';
import { sessionFreeRounds } from '@opi/play/sessions/free-rounds';
import { ladderById, ladderForLaunch, presentLadder } from '@opi/play/sessions/stake-ladders';
import { LIFETIMES, newLaunchToken } from '@opi/play/sessions/tokens';
import {
  badGateway,
  badRequest,
  conflict,
  forbidden,
  invalidField,
  misconfigured,
  notFound,
  notFoundDetail,
  unavailable,
} from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import type { OperatorRow } from '../auth/operator-scope.js';
import { availabilityOf } from '../catalog/present.js';
import { type CatalogRow, loadCatalog } from '../catalog/repository.js';
import type { ApiDeps } from '../deps.js';
import { settlementProbe } from '../settlement/settlement-probe.js';
import { gbStakeCapKnown } from './gb-stake-cap.js';
import {
  checkReturnUrl,
  gbFiatOnly,
  normalizeDevice,
  parseCoin,
  type RuleResult,
  resolveCurrency,
  resolveDisplayUnit,
} from './rules.js';

/** A named (prepared once per connection) statement: the launch path skips parse and plan. */
function named(
  name: string,
  text: string,
  values: unknown[],
): { name: string; text: string; values: unknown[] } {
  return { name, text, values };
}

/**
 * The launch's database work in one statement (one round trip, its own transaction): upsert the
 * player; find the player's unfinished round of this game and live session of this game and
 * currency (locked); then, when the player is the operator's and no unfinished round is in
 * another currency, refresh that session (a new token and deadline; an unfinished round keeps its
 * coin; a player-protection block of its bets ends) or insert a new one. When the player belongs
 * to another operator or the round's currency differs, it writes nothing and answers what it
 * found, for the 409. A player inserted by a concurrent first launch after this statement's
 * snapshot is not seen: no player_id, run it again.
 *
 * LAUNCH_DURABILITY: the statement's transaction commits with synchronous_commit off, as the nonce
 * claims do: it answers without waiting for its WAL record to reach disk. A PostgreSQL crash in
 * the following fraction of a second can lose the new session (and a new player row): the launch
 * URL then answers as an unknown grant and the operator launches again. Nothing money depends on
 * is written this way: a round and its intent commit synchronously, which also flushes every
 * launch before it (the WAL is one sequence), so no round can reference a lost session.
 *
 * $1 new player id, $2 operator, $3 external player id, $4 player currency (crash scope) or null,
 * $5 symbol, $6 session currency, $7 new session id, $8 family, $9 token hash, $10 device,
 * $11 lang, $12 return_url, $13 coin, $14 expires_at, $15 grant_expires_at; the jurisdiction rules
 * (issue 18): $16 jurisdiction, $17 min_spin_interval_ms, $18 autoplay, $19 turbo, $20 reality-check
 * interval in seconds (a resumed session keeps a reality check already scheduled or due); the UK's
 * rules for every family (issue 26): $21 min_cycle_interval_ms, $22 age_band, $23 max_stake_minor;
 * issue 39: $24 display_unit (null: the currency's first unit), $25 stake_ladder_id (a resumed
 * session keeps the ladder it was launched with: frozen for its life).
 */
function launchStatement(scope: 'global' | 'crash'): string {
  const existing =
    scope === 'crash'
      ? `SELECT player_id, operator_id FROM players
         WHERE scope = 'crash' AND operator_id = $2 AND external_player_id = $3 AND currency = $4::char(3)`
      : `SELECT player_id, operator_id FROM players WHERE scope = 'global' AND external_player_id = $3`;
  return `
  WITH durability AS (
    -- Commit without waiting for the WAL flush (this transaction only): see LAUNCH_DURABILITY.
    SELECT set_config('synchronous_commit', 'off', true)
  ), ins_player AS (
    INSERT INTO players (player_id, operator_id, external_player_id, scope, currency)
    VALUES ($1, $2, $3, '${scope}', $4::char(3)) ON CONFLICT DO NOTHING RETURNING player_id, operator_id
  ), player AS (
    (SELECT player_id, operator_id FROM ins_player UNION ALL ${existing}) LIMIT 1
  ), open_round AS (
    SELECT r.round_id, r.currency FROM player p
    JOIN LATERAL (
      SELECT round_id, currency FROM rounds WHERE player_id = p.player_id AND symbol = $5 AND status = 'open'
      ORDER BY created_at LIMIT 1
    ) r ON true
  ), live AS (
    SELECT s.session_id FROM player p
    JOIN LATERAL (
      SELECT session_id FROM sessions
      WHERE operator_id = $2 AND player_id = p.player_id AND symbol = $5 AND currency = $6::char(3)
        AND status = 'active'
      ORDER BY created_at DESC LIMIT 1 FOR UPDATE
    ) s ON true
  ), ok AS (
    SELECT player_id FROM player
    WHERE operator_id = $2 AND NOT EXISTS (SELECT 1 FROM open_round WHERE trim(currency) <> $6::text)
  ), refreshed AS (
    UPDATE sessions SET token_hash = $9, device = $10, lang = $11, return_url = $12,
           coin_minor = CASE WHEN EXISTS (SELECT 1 FROM open_round) THEN coin_minor
                             ELSE coalesce($13::bigint, coin_minor) END,
           expires_at = $14, grant_expires_at = $15, last_activity_at = now(),
           -- The operator launched again: a player-protection block of the session's bets ends.
           bets_blocked_code = NULL, bets_blocked_at = NULL, bets_blocked_round_id = NULL,
           jurisdiction = $16, min_spin_interval_ms = $17, autoplay_allowed = $18, turbo_allowed = $19,
           reality_check_interval_seconds = $20::int,
           reality_check_due_at = CASE WHEN $20::int IS NULL THEN NULL
                                       ELSE coalesce(reality_check_due_at, now() + make_interval(secs => $20::int)) END,
           min_cycle_interval_ms = $21::int, age_band = $22::text, max_stake_minor = $23::bigint,
           display_unit = $24::text, stake_ladder_id = coalesce(stake_ladder_id, $25::text)
    WHERE session_id = (SELECT session_id FROM live) AND EXISTS (SELECT 1 FROM ok)
    RETURNING session_id, stake_ladder_id
  ), created AS (
    INSERT INTO sessions (session_id, operator_id, player_id, symbol, provider_id, currency, token_hash,
                          device, lang, return_url, coin_minor, expires_at, grant_expires_at,
                          jurisdiction, min_spin_interval_ms, autoplay_allowed, turbo_allowed,
                          reality_check_interval_seconds, reality_check_due_at,
                          min_cycle_interval_ms, age_band, max_stake_minor, display_unit, stake_ladder_id)
    SELECT $7, $2, ok.player_id, $5, $8, $6::char(3), $9, $10, $11, $12, $13::bigint, $14, $15,
           $16, $17, $18, $19, $20::int, now() + make_interval(secs => $20::int),
           $21::int, $22::text, $23::bigint, $24::text, $25::text
    FROM ok WHERE NOT EXISTS (SELECT 1 FROM live)
    RETURNING session_id, stake_ladder_id
  )
  SELECT (SELECT player_id FROM player) AS player_id,
         (SELECT operator_id FROM player) AS player_operator_id,
         (SELECT round_id FROM open_round) AS round_id,
         (SELECT currency FROM open_round) AS round_currency,
         coalesce((SELECT session_id FROM refreshed), (SELECT session_id FROM created)) AS session_id,
         coalesce((SELECT stake_ladder_id FROM refreshed), (SELECT stake_ladder_id FROM created)) AS stake_ladder_id,
         -- Whether the player holds any free-round grant with rounds left (as authentication reads
         -- it): none, and the launch answers free_rounds: null without a query of its own.
         EXISTS (SELECT 1 FROM free_round_grants g
                  WHERE g.operator_id = $2 AND g.external_player_id = $3
                    AND g.rounds_used < g.rounds_total) AS free_rounds_granted,
         (SELECT count(*) FROM durability)::int AS durability`;
}
const LAUNCH_GLOBAL = launchStatement('global');
const LAUNCH_CRASH = launchStatement('crash');

interface LaunchRow {
  player_id: string | null;
  player_operator_id: string | null;
  round_id: string | null;
  round_currency: string | null;
  session_id: string | null;
  stake_ladder_id: string | null;
  free_rounds_granted: boolean;
}

function rule<T>(r: RuleResult<T>): T {
  if (!r.ok) throw invalidField(['body', r.field], r.reason);
  return r.value;
}

/** Required launch fields missing: 400 (spec, Errors); malformed fields: 422. */
function requireLaunchFields(body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('A JSON object body is required');
  const b = body as Record<string, unknown>;
  if (b.external_player_id === undefined) throw badRequest('external_player_id is required');
  if (b.symbol === undefined && b.slug === undefined) throw badRequest('symbol or slug is required');
}

async function resolveGame(
  deps: ApiDeps,
  operatorId: string,
  symbol?: string,
  slug?: string,
): Promise<CatalogRow> {
  // The whole catalog with this operator's assignments, cached until any catalog table changes.
  const rows = await deps.caches.catalogRows.get(operatorId, () => loadCatalog(deps.pool, { operatorId }));
  const lookup = (id: string) => rows.find((r) => r.symbol === id) ?? rows.find((r) => r.slug === id);
  const bySymbol = symbol !== undefined ? lookup(symbol) : undefined;
  const bySlug = slug !== undefined ? lookup(slug) : undefined;
  if (symbol !== undefined && slug !== undefined && bySymbol && bySlug && bySymbol.symbol !== bySlug.symbol) {
    throw badRequest('symbol and slug name different games');
  }
  const game = bySymbol ?? bySlug;
  if (!game || (symbol !== undefined && !bySymbol) || (slug !== undefined && !bySlug)) throw notFound('game');
  return game;
}

/** Availability blockers as launch statuses: the catalog's rules decide, the spec's statuses answer. */
function requireLaunchable(game: CatalogRow, operator: OperatorRow, isProduction: boolean): void {
  const { availability } = availabilityOf(game, { operator, isProduction });
  const b = new Set(availability.blockers);
  if (b.has('unassigned')) throw notFoundDetail('Game not in the operator catalog');
  if (b.has('transport_unavailable')) {
    const why =
      game.integration_mode !== 'operator-wallet'
        ? `${game.integration_mode} titles do not accept operator-wallet launches`
        : game.provider_id === 'prov_b'
          ? 'prov_b is switched off'
          : 'operator-wallet transport is not enabled for this title';
    throw conflict(`Unsupported provider integration: ${why}`);
  }
  if (b.has('disabled')) throw forbidden('Game not enabled for this operator');
  if (b.has('release_acceptance'))
    throw forbidden('Game not enabled: its installed version has no accepted release');
  if (b.has('operator_configuration')) throw conflict('The operator wallet is not configured');
}

/** The title's runtime path (its page); none: 503, the provider runtime is not configured. */
function runtimePathOf(game: CatalogRow): string {
  const path = (game.metadata.launch_path as string | null | undefined) ?? null;
  if (!path) throw unavailable('Provider runtime not configured for this title');
  return path;
}

/**
 * 502 when the settlement runtime (Temporal) is known to be unreachable: from the cached probe's
 * verdict, never a network round trip of its own (settlement/settlement-probe.ts).
 */
function requireRuntimeAvailable(deps: ApiDeps): void {
  const verdict = settlementProbe(deps)?.verdict();
  if (verdict?.state === 'unavailable') {
    throw badGateway(
      'Provider runtime unavailable: the settlement service does not answer; try again shortly',
    );
  }
}

function launchUrlFor(base: string, game: CatalogRow, path: string, token: string): string {
  const url = new URL(path, base);
  const param = game.provider_id === 'prov_c' ? 'grant' : game.provider_id === 'prov_d' ? 'login' : 'mgckey';
  url.searchParams.set(param, token);
  return url.toString();
}

export interface LaunchResult {
  data: LaunchUrlData;
  resumedRoundId: string | null;
}

/**
 * POST /api/provider/v1/launch-url: create or resume a player's session and answer a fresh
 * launch URL. The player, the session and the token change in one database transaction.
 */
export async function createLaunch(
  deps: ApiDeps,
  operator: OperatorRow,
  rawBody: unknown,
): Promise<LaunchResult> {
  requireLaunchFields(rawBody);
  const req = parseOr422(LaunchUrlRequest, rawBody, 'body');
  if (deps.isProduction && !deps.gameBaseUrl.startsWith('https://')) {
    throw misconfigured('The game server public address (GAME_BASE_URL) must be HTTPS in production');
  }
  const game = await resolveGame(deps, operator.operator_id, req.symbol, req.slug);
  requireLaunchable(game, operator, deps.isProduction);

  const family = game.provider_id;
  const currency = rule(
    resolveCurrency({
      requested: req.currency,
      operator,
      game: {
        provider_id: family,
        crash_currencies: game.metadata.crash_currencies as string[] | null | undefined,
      },
    }),
  );
  const returnUrl = rule(checkReturnUrl(req.return_url, family, deps.isProduction));
  const coinMinor = rule(parseCoin(req.coin, family, currency));
  const displayUnit = rule(resolveDisplayUnit(req.display_unit, currency));
  const device = normalizeDevice(req.device, family);
  // Jurisdiction rules: the launch's jurisdiction, else the operator's default (issue 18).
  const rules = rulesFor(
    req.jurisdiction ?? operator.default_jurisdiction ?? null,
    family,
    operator.reality_check_interval_seconds ?? null,
    { currency, ageBand: req.age_band ?? null },
  );
  // GB: no crypto currency, in any family (issue 39; docs/currencies.md).
  rule(gbFiatOnly(rules.jurisdiction, currency));
  // GB slot stakes are capped per currency (a fixed table): a currency without a cap is refused.
  rule(gbStakeCapKnown(rules, family));
  // The runtime last: a request the runtime would refuse anyway gets its own status first, and
  // neither 503 nor 502 writes anything.
  const launchPath = runtimePathOf(game);
  requireRuntimeAvailable(deps);
  // Stakes in a crypto currency come from the title's EUR ladder at the rate in force (issue 39):
  // no rate loaded is 422 at body.currency. A coin launch keeps its coin ladder.
  const ladder =
    coinMinor === null
      ? await ladderForLaunch(deps.pool, {
          symbol: game.symbol,
          currency,
          today: new Date().toISOString().slice(0, 10),
        })
      : ({ kind: 'none' } as const);
  if (ladder.kind === 'no_rate') {
    throw invalidField(
      ['body', 'currency'],
      `stakes in ${currency} are derived from an exchange rate and none is loaded for ${ladder.pair}`,
    );
  }
  const { token, hash } = newLaunchToken();
  const now = Date.now();
  const expiresAt =
    family === 'prov_c'
      ? new Date(now + LIFETIMES.nativeSessionMs)
      : family === 'prov_d'
        ? new Date(now + LIFETIMES.crashGrantMs)
        : new Date(now + LIFETIMES.slotInactivityMs);
  const grantExpiresAt =
    family === 'prov_c' ? new Date(now + LIFETIMES.nativeGrantMs) : family === 'prov_d' ? expiresAt : null;

  // Player identity: global for prov_a/prov_b/prov_c (one operator owns an id); prov_d isolates
  // by operator and currency and keeps the supplied id in callbacks.
  const scope = family === 'prov_d' ? 'crash' : 'global';
  const newSessionId = `s_${randomUUID()}`;
  const values = [
    `p_${randomUUID()}`,
    operator.operator_id,
    req.external_player_id,
    scope === 'crash' ? currency : null,
    game.symbol,
    currency,
    newSessionId,
    family,
    hash,
    device,
    req.lang ?? null,
    returnUrl,
    coinMinor,
    expiresAt,
    grantExpiresAt,
    rules.jurisdiction,
    rules.min_spin_interval_ms,
    rules.autoplay,
    rules.turbo,
    rules.reality_check_interval_seconds,
    rules.min_cycle_interval_ms,
    rules.age_band,
    rules.max_stake_minor,
    req.display_unit === undefined ? null : displayUnit,
    ladder.kind === 'ladder' ? ladder.ladder.ladder_id : null,
  ];
  const statement = named(`launch_${scope}`, scope === 'crash' ? LAUNCH_CRASH : LAUNCH_GLOBAL, values);
  let row = (await deps.pool.query<LaunchRow>(statement)).rows[0];
  // A concurrent first launch of the same player committed after this statement's snapshot (its
  // insert won, ours did nothing and could not see its row): the next statement sees it.
  if (!row?.player_id) row = (await deps.pool.query<LaunchRow>(statement)).rows[0];
  if (!row?.player_id) throw new Error('player row missing after upsert');
  if (row.player_operator_id !== operator.operator_id) {
    throw conflict('external_player_id belongs to another operator');
  }
  // An unfinished round resumes only in its own currency (the statement then wrote nothing).
  if (row.round_id && row.round_currency?.trim() !== currency) {
    throw conflict(
      `An unfinished round of this game is in ${row.round_currency?.trim()}; launch in that currency`,
    );
  }
  if (!row.session_id) throw new Error('launch wrote no session');
  const { integration } = availabilityOf(game, { operator, isProduction: deps.isProduction });
  const data: LaunchUrlData = {
    symbol: game.symbol,
    slug: game.slug,
    operator_id: operator.operator_id,
    currency,
    ...(req.lang ? { lang: req.lang } : {}),
    session_id: row.session_id,
    launch_url: launchUrlFor(deps.gameBaseUrl, game, launchPath, token),
    expires_at: expiresAt.toISOString(),
    contract_version: CONTRACT_VERSION,
    amount_unit: AMOUNT_UNIT,
    provider_session_id: null,
    test_launch: !deps.isProduction,
    operator_integration: integration,
    rules,
    display_unit: displayUnit,
    stake_ladder: row.stake_ladder_id
      ? presentLadder((await ladderById(deps.pool, row.stake_ladder_id))!)
      : null,
    ...(isSlotTitle(family)
      ? {
          free_rounds: await sessionFreeRounds(deps.pool, {
            session_id: row.session_id,
            operator_id: operator.operator_id,
            external_player_id: req.external_player_id,
            symbol: game.symbol,
            currency,
            provider_id: family,
            free_rounds_granted: row.free_rounds_granted,
            stake_ladder_id: row.stake_ladder_id ?? null,
          }),
        }
      : {}),
  };
  return { data, resumedRoundId: row.round_id ?? null };
}
