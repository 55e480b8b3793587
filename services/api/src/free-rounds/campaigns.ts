import { createHash } from 'node:crypto';
import {
  AddPlayersRequest,
  CAMPAIGN_PLAYERS_PAGE_MAX,
  type Campaign,
  CampaignId,
  CampaignQuery,
  CreateCampaignRequest,
  ExternalPlayerId,
  ListCampaignsQuery,
} from '@opi/contract';
import { type PoolClient, withTransaction } from '@opi/db';
import { isSlotTitle, SLOT_SYMBOLS, slotConfig } from '@opi/games';
import { isCryptoCurrency } from '@opi/money';
import { stakeOptions } from '@opi/play/engines/stakes';
import { ladderForLaunch, ladderStakesWithin } from '@opi/play/sessions/stake-ladders';
import type { HttpError } from '@opi/service-kit/http/errors';
import {
  badRequest,
  conflict,
  invalidField,
  notFound,
  notFoundDetail,
} from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { OperatorRow } from '../auth/operator-scope.js';
import type { ApiDeps } from '../deps.js';

/*
 * Free-round campaigns of an operator (POST/GET /api/provider/v1/free-rounds, GET/DELETE
 * .../{campaign_id}, POST .../{campaign_id}/players). See docs/free-rounds.md.
 */

const REQUIRED = ['campaign_id', 'symbols', 'currency', 'bet_minor', 'rounds', 'valid_from', 'expires_at'];

function requireObject(body: unknown, required: string[]): void {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('A JSON object body is required');
  const missing = required.filter((f) => (body as Record<string, unknown>)[f] === undefined);
  if (missing.length > 0) throw badRequest(`Missing required field(s): ${missing.join(', ')}`);
}

function unprocessable(loc: (string | number)[], msg: string): HttpError {
  return invalidField(loc, msg);
}

interface CampaignRow {
  operator_id: string;
  campaign_id: string;
  symbols: string[];
  currency: string;
  bet_minor: bigint;
  rounds: number;
  valid_from: Date;
  expires_at: Date;
  created_at: Date;
  cancelled_at: Date | null;
  request_hash: string;
  status: Campaign['status'];
  players_count: number;
  rounds_used: number;
  won_minor: bigint;
}

const CAMPAIGN_SELECT = `SELECT c.operator_id, c.campaign_id, c.symbols, trim(c.currency) AS currency, c.bet_minor,
       c.rounds, c.valid_from, c.expires_at, c.created_at, c.cancelled_at, c.request_hash,
       CASE WHEN c.cancelled_at IS NOT NULL THEN 'cancelled' WHEN now() < c.valid_from THEN 'scheduled'
            WHEN now() >= c.expires_at THEN 'expired' ELSE 'active' END AS status,
       (SELECT count(*) FROM free_round_grants g WHERE g.operator_id = c.operator_id AND g.campaign_id = c.campaign_id)::int AS players_count,
       (SELECT coalesce(sum(g.rounds_used), 0) FROM free_round_grants g WHERE g.operator_id = c.operator_id AND g.campaign_id = c.campaign_id)::int AS rounds_used,
       (SELECT coalesce(sum(g.won_minor), 0) FROM free_round_grants g WHERE g.operator_id = c.operator_id AND g.campaign_id = c.campaign_id)::bigint AS won_minor
  FROM free_round_campaigns c`;

function present(row: CampaignRow): Campaign {
  return {
    campaign_id: row.campaign_id,
    operator_id: row.operator_id,
    symbols: row.symbols,
    currency: row.currency,
    bet_minor: row.bet_minor.toString(),
    rounds: row.rounds,
    valid_from: row.valid_from.toISOString(),
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    cancelled_at: row.cancelled_at?.toISOString() ?? null,
    status: row.status,
    players_count: row.players_count,
    rounds_used: row.rounds_used,
    won_minor: row.won_minor.toString(),
  };
}

async function readCampaignRow(
  db: ApiDeps['pool'] | PoolClient,
  operatorId: string,
  campaignId: string,
): Promise<CampaignRow | undefined> {
  const { rows } = await db.query<CampaignRow>(
    `${CAMPAIGN_SELECT} WHERE c.operator_id = $1 AND c.campaign_id = $2`,
    [operatorId, campaignId],
  );
  return rows[0];
}

/** A page of a campaign's players: at most `limit`, after the player id `after` (keyset). */
export interface PlayersPage {
  limit: number;
  after: string | null;
}

const FIRST_PLAYERS_PAGE: PlayersPage = { limit: CAMPAIGN_PLAYERS_PAGE_MAX, after: null };

/** The players page a query asks for (`limit`, `cursor`; 422 when malformed). */
export function playersPage(query: Record<string, string | string[] | undefined>): PlayersPage {
  const q = parseOr422(CampaignQuery, flatQuery(query), 'query');
  return {
    limit: q.limit,
    after: q.cursor === undefined ? null : decodePlayerCursor(q.cursor, ['query', 'cursor']),
  };
}

function encodePlayerCursor(playerId: string): string {
  return Buffer.from(playerId, 'utf8').toString('base64url');
}

/** A players cursor (base64url of the last player id of a page), else 422 at `loc`. */
export function decodePlayerCursor(cursor: string, loc: (string | number)[]): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!ExternalPlayerId.safeParse(id).success || encodePlayerCursor(id) !== cursor)
    throw unprocessable(loc, 'not a cursor this service gave (players_next_cursor)');
  return id;
}

/**
 * One campaign with a page of its players' remaining rounds and won totals (external_player_id
 * order, keyset-paged: `players_next_cursor`), the first page unless `page` says otherwise.
 */
export async function readCampaign(
  db: ApiDeps['pool'] | PoolClient,
  operatorId: string,
  campaignId: string,
  page: PlayersPage = FIRST_PLAYERS_PAGE,
) {
  const row = await readCampaignRow(db, operatorId, campaignId);
  if (!row) throw notFound('campaign');
  const { rows } = await db.query<{
    external_player_id: string;
    rounds_total: number;
    rounds_used: number;
    won_minor: bigint;
  }>(
    `SELECT external_player_id, rounds_total, rounds_used, won_minor FROM free_round_grants
      WHERE operator_id = $1 AND campaign_id = $2 AND ($3::text IS NULL OR external_player_id > $3)
      ORDER BY external_player_id LIMIT $4`,
    [operatorId, campaignId, page.after, page.limit + 1],
  );
  const players = rows.slice(0, page.limit);
  return {
    ...present(row),
    players: players.map((p) => ({
      external_player_id: p.external_player_id,
      rounds_total: p.rounds_total,
      rounds_used: p.rounds_used,
      rounds_remaining: p.rounds_total - p.rounds_used,
      won_minor: p.won_minor.toString(),
    })),
    players_next_cursor:
      rows.length > page.limit ? encodePlayerCursor(players[players.length - 1]!.external_player_id) : null,
  };
}

/** The path's campaign id: 422 when it cannot be one. */
export function campaignIdParam(raw: string): string {
  const parsed = CampaignId.safeParse(raw);
  if (!parsed.success)
    throw unprocessable(['path', 'campaign_id'], parsed.error.issues[0]?.message ?? 'invalid');
  return parsed.data;
}

/** The request's canonical form (what makes two creates "the same body"). */
function requestHash(req: CreateCampaignRequest): string {
  const canonical = {
    campaign_id: req.campaign_id,
    symbols: [...new Set(req.symbols)].sort(),
    currency: req.currency,
    bet_minor: String(req.bet_minor),
    rounds: req.rounds,
    valid_from: req.valid_from,
    expires_at: req.expires_at,
    players: [...new Set(req.players ?? [])].sort(),
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/**
 * POST /free-rounds. The campaign id is the idempotency key: the same request again answers the
 * campaign as it is now (200); another body under the same id is 409. Titles must be slot titles
 * (prov_a, prov_b) of the operator's catalog (unknown or unassigned 404; another family 409); the
 * currency one of the operator's; the stake one every title offers (the page's stake ladder; in a
 * crypto currency the title's ladder by rate in force today) within the operator's bet limits (422).
 */
export async function createCampaign(
  deps: ApiDeps,
  operator: OperatorRow,
  body: unknown,
): Promise<{ created: boolean; data: Awaited<ReturnType<typeof readCampaign>> }> {
  requireObject(body, REQUIRED);
  const req = parseOr422(CreateCampaignRequest, body, 'body');
  const hash = requestHash(req);
  const existing = await readCampaignRow(deps.pool, operator.operator_id, req.campaign_id);
  if (existing) return { created: false, data: await sameOrConflict(deps, operator, req.campaign_id, hash) };

  const symbols = [...new Set(req.symbols)];
  const { rows: games } = await deps.pool.query<{ symbol: string; provider_id: string; assigned: boolean }>(
    `SELECT g.symbol, g.provider_id,
            EXISTS (SELECT 1 FROM operator_games og WHERE og.operator_id = $1 AND og.symbol = g.symbol AND og.enabled) AS assigned
       FROM games g WHERE g.symbol = ANY ($2::text[])`,
    [operator.operator_id, symbols],
  );
  for (const symbol of symbols) {
    const game = games.find((g) => g.symbol === symbol);
    if (!game?.assigned) throw notFoundDetail(`Game ${symbol} not found in the operator catalog`);
    if (!isSlotTitle(game.provider_id) || !SLOT_SYMBOLS.includes(symbol)) {
      throw conflict(
        `Unsupported provider operation: free rounds are for prov_a and prov_b slot titles; ${symbol} is a ${game.provider_id} title whose stakes are chosen per stage or per bet in-game, so it has no fixed-stake round to give away`,
      );
    }
  }
  if (!operator.allowed_currencies.includes(req.currency))
    throw unprocessable(
      ['body', 'currency'],
      `${req.currency} is not among the operator's allowed currencies`,
    );
  const bet = BigInt(req.bet_minor);
  if (bet < operator.bet_min_minor || bet > operator.bet_max_minor)
    throw unprocessable(
      ['body', 'bet_minor'],
      `the stake must be between ${operator.bet_min_minor} and ${operator.bet_max_minor} minor units`,
    );
  const today = new Date().toISOString().slice(0, 10);
  for (const symbol of symbols) {
    // A crypto currency's stakes are the title's ladder by rate (issue 39; docs/currencies.md): the
    // ladder in force today (as a launch now would freeze it), within the operator's limits.
    const offered = isCryptoCurrency(req.currency)
      ? await cryptoStakes(deps, operator, symbol, req.currency, today)
      : stakeOptions({
          betMinMinor: operator.bet_min_minor,
          betMaxMinor: operator.bet_max_minor,
          coinMinor: null,
          config: slotConfig(symbol),
        }).stakes_minor;
    if (!offered.includes(bet.toString()))
      throw unprocessable(
        ['body', 'bet_minor'],
        `${symbol} offers the stakes ${offered.join(', ')} (minor units)`,
      );
  }

  const players = [...new Set(req.players ?? [])];
  const inserted = await withTransaction(deps.pool, async (client) => {
    const { rowCount } = await client.query(
      `INSERT INTO free_round_campaigns (operator_id, campaign_id, symbols, currency, bet_minor, rounds, valid_from,
                                         expires_at, request_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
      [
        operator.operator_id,
        req.campaign_id,
        symbols,
        req.currency,
        bet,
        req.rounds,
        req.valid_from,
        req.expires_at,
        hash,
      ],
    );
    if (rowCount !== 1) return false;
    await client.query(
      `INSERT INTO free_round_grants (operator_id, campaign_id, external_player_id, rounds_total)
       SELECT $1, $2, p, $4 FROM unnest($3::text[]) AS p ON CONFLICT DO NOTHING`,
      [operator.operator_id, req.campaign_id, players, req.rounds],
    );
    return true;
  });
  // A concurrent create of the same id got there first: the same answer as a repeat.
  if (!inserted) return { created: false, data: await sameOrConflict(deps, operator, req.campaign_id, hash) };
  return { created: true, data: await readCampaign(deps.pool, operator.operator_id, req.campaign_id) };
}

/**
 * The stakes `symbol` offers in a crypto currency: its ladder in force on `today` (written as a
 * launch would write it: version 1 on first use, a new version past the drift band) within the
 * operator's limits. No EUR rate loaded for the currency: 422 at `body.currency`, as a launch.
 */
async function cryptoStakes(
  deps: ApiDeps,
  operator: OperatorRow,
  symbol: string,
  currency: string,
  today: string,
): Promise<string[]> {
  const ladder = await ladderForLaunch(deps.pool, { symbol, currency, today });
  if (ladder.kind === 'no_rate')
    throw unprocessable(
      ['body', 'currency'],
      `stakes in ${currency} are derived from an exchange rate and none is loaded for ${ladder.pair}`,
    );
  if (ladder.kind === 'none') return [];
  return ladderStakesWithin(ladder.ladder, operator.bet_min_minor, operator.bet_max_minor);
}

async function sameOrConflict(deps: ApiDeps, operator: OperatorRow, campaignId: string, hash: string) {
  const row = await readCampaignRow(deps.pool, operator.operator_id, campaignId);
  if (row && row.request_hash !== hash)
    throw conflict(`Campaign ${campaignId} exists with another request body`);
  return readCampaign(deps.pool, operator.operator_id, campaignId);
}

function encodeCursor(campaignId: string): string {
  return Buffer.from(campaignId, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!CampaignId.safeParse(id).success || encodeCursor(id) !== cursor)
    throw unprocessable(['query', 'cursor'], 'not a cursor this service gave (next_cursor)');
  return id;
}

/** GET /free-rounds: the operator's campaigns in campaign id order, `limit` per page, keyset cursor. */
export async function listCampaigns(
  deps: ApiDeps,
  operator: OperatorRow,
  query: Record<string, string | string[] | undefined>,
) {
  const q = parseOr422(ListCampaignsQuery, flatQuery(query), 'query');
  const after = q.cursor === undefined ? null : decodeCursor(q.cursor);
  const { rows } = await deps.pool.query<CampaignRow>(
    `${CAMPAIGN_SELECT} WHERE c.operator_id = $1 AND ($2::text IS NULL OR c.campaign_id > $2)
      ORDER BY c.campaign_id LIMIT $3`,
    [operator.operator_id, after, q.limit + 1],
  );
  const page = rows.slice(0, q.limit);
  return {
    items: page.map(present),
    next_cursor: rows.length > q.limit ? encodeCursor(page[page.length - 1]!.campaign_id) : null,
  };
}

/** POST /free-rounds/{id}/players: grants the rounds to more players (a player already granted keeps theirs). */
export async function addPlayers(deps: ApiDeps, operator: OperatorRow, campaignId: string, body: unknown) {
  requireObject(body, ['players']);
  const req = parseOr422(AddPlayersRequest, body, 'body');
  const row = await readCampaignRow(deps.pool, operator.operator_id, campaignId);
  if (!row) throw notFound('campaign');
  if (row.status === 'cancelled' || row.status === 'expired')
    throw conflict(`Campaign ${campaignId} is ${row.status}: no players can be added`);
  await deps.pool.query(
    `INSERT INTO free_round_grants (operator_id, campaign_id, external_player_id, rounds_total)
     SELECT $1, $2, p, $4 FROM unnest($3::text[]) AS p ON CONFLICT DO NOTHING`,
    [operator.operator_id, campaignId, [...new Set(req.players)], row.rounds],
  );
  return readCampaign(deps.pool, operator.operator_id, campaignId);
}

/**
 * DELETE /free-rounds/{id}: cancels the campaign (idempotent). No round of it starts afterwards
 * (the spend checks cancelled_at in the round's own transaction); rounds already recorded settle.
 */
export async function cancelCampaign(deps: ApiDeps, operator: OperatorRow, campaignId: string) {
  const { rowCount } = await deps.pool.query(
    `UPDATE free_round_campaigns SET cancelled_at = coalesce(cancelled_at, now())
      WHERE operator_id = $1 AND campaign_id = $2`,
    [operator.operator_id, campaignId],
  );
  if (rowCount !== 1) throw notFound('campaign');
  return readCampaign(deps.pool, operator.operator_id, campaignId);
}
