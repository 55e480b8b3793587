import * as c from '@opi/contract';
import { z } from 'zod';
import { INPUT_SCHEMAS, OUTPUT_SCHEMAS } from './components.js';

/*
 * Every documented operation: its path, who may call it, its parameters and bodies (zod schemas of
 * packages/contract, by reference), and the statuses the service answers. The document is built
 * from this table (document.ts); the conformance test checks the table against the routes the API
 * really mounts and every answer against the schemas.
 */

export type Auth = 'public' | 'operator' | 'operator-signed' | 'admin';
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a 2xx answer carries. */
export type Body =
  | { kind: 'json'; schema: z.ZodType }
  | { kind: 'csv' }
  | { kind: 'html' }
  | { kind: 'image' }
  | { kind: 'openapi' }
  | { kind: 'metrics' };

export interface Operation {
  method: Method;
  /** OpenAPI path template (`/api/provider/v1/games/{symbol}`). */
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description?: string;
  auth: Auth;
  /** Path parameters in order, with their zod schema and meaning. */
  pathParams?: Record<string, { schema: z.ZodType; description: string }>;
  /** The query schema (input types); its properties become query parameters. */
  query?: z.ZodObject;
  /** Query parameters outside the schema (a master key's operator_id on the audit reads). */
  extraQuery?: Record<string, { schema: z.ZodType; description: string }>;
  /** A JSON request body (input types), or raw image bytes. */
  body?: { schema: z.ZodType; required: boolean } | { kind: 'image' };
  /** Success statuses and what they carry. */
  ok: Record<number, { description: string; body?: Body }>;
  /** Error statuses (answered with ServiceErrorResponse) and when. */
  errors: Partial<Record<ErrorStatus, string>>;
  /** Idempotent reads the operator SDK may retry (fresh nonce per attempt). */
  idempotent?: boolean;
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 408 | 409 | 413 | 415 | 422 | 500 | 502 | 503;

export const TAGS = {
  provider: 'Provider API',
  operator: 'Operator audit API',
  admin: 'Provider admin API (internal)',
  ops: 'Operations',
} as const;
export type Tag = keyof typeof TAGS;

const GameSymbol = z.string().min(1).max(64);
const Id = z.string().min(1).max(200);
const OperatorIdParam = {
  operator_id: {
    schema: z.string().min(1),
    description: 'Only for provider master keys (or the `x-operator-id` header): the operator read.',
  },
};

/** Errors every keyed route can answer. */
const KEYED = {
  401: 'Missing or invalid API key, or (when signing is required or the signature headers are sent) a missing, stale, invalid or reused signature, or a master key naming its operator only in `x-operator-id` on a signed request',
  403: 'Inactive operator, wrong key scope (an operator key naming another operator, an admin key here)',
} as const;
const SCOPED = {
  ...KEYED,
  400: 'A provider master key that names no operator (operator_id or x-operator-id), or names several',
  404: 'The operator a master key names does not exist',
} as const;
const JSON_BODY = {
  408: 'The body did not arrive within 10 s (answered with `Connection: close`)',
  413: 'The body is larger than 64 KiB: refused before it is read when `Content-Length` says so, else as soon as it passes the limit; answered with `Connection: close`',
  415: 'The body is not application/json',
} as const;
const ADMIN = {
  401: KEYED[401],
  403: 'Not a provider-admin key',
} as const;
/** Errors of an admin route that reads a JSON body. */
const ADMIN_JSON = { ...ADMIN, 400: 'Malformed JSON', ...JSON_BODY } as const;

const REVENUE_DESCRIPTION =
  'Per operator × title × currency × day (the operator’s reporting time zone, UTC unless set): rounds whose wager stood, players, stakes, cancelled and rolled-back stakes, net stakes, wins, free-round wins, jackpot contributions (micros, decimal string) and wins, tournament and prize-drop payouts, GGR (net stakes − wins − jackpot wins) and GGY (net stakes − every prize; GB sessions apart). Computed from the journal and the rounds on every read, in one snapshot: exact and current. A round counts on the day it was created; a promotional payout on the day it was awarded. `group_by` sums the rows by day (× currency), title (× currency) or currency; currencies are never converted. Grouped by day, a day with nothing has a row of its own with `no_activity: true`; `no_activity` on the report says the whole period had none. `definition_version` names what every figure counts (docs/reports-and-invoices.md); `filters` states what was asked.';

/** A 2xx answer with a JSON body of `schema`. */
const json = (description: string, schema: z.ZodType) => ({
  description,
  body: { kind: 'json', schema } as const,
});

export const OPERATIONS: Operation[] = [
  // ── provider API ────────────────────────────────────────────────────────────────────────────
  {
    method: 'get',
    path: '/api/provider/v1/games',
    operationId: 'listGames',
    tag: 'provider',
    summary: 'List the operator catalog',
    description:
      'The enabled, assigned, launch-available titles of the authenticated operator. Catalog presence is not proof of wallet support or certification; RTP is stored metadata. An unknown or unavailable `provider_id` gives an empty list.',
    auth: 'operator',
    query: c.GamesListQuery,
    ok: { 200: json('The catalog', c.GamesListResponse) },
    errors: { ...SCOPED, 422: 'A malformed query parameter', 500: 'Server configuration is invalid' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/provider/v1/games/{symbol}',
    operationId: 'getGame',
    tag: 'provider',
    summary: 'One game of the operator catalog, by symbol or slug',
    auth: 'operator',
    pathParams: { symbol: { schema: GameSymbol, description: 'A game symbol or slug' } },
    extraQuery: OperatorIdParam,
    ok: { 200: json('The game', c.GameResponse) },
    errors: {
      ...SCOPED,
      404: 'Game not found or not in the operator catalog (or the operator a master key names does not exist)',
      500: 'Server configuration is invalid',
    },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/provider/v1/game-art/{symbol}',
    operationId: 'getGameArt',
    tag: 'provider',
    summary: 'Game artwork (public)',
    description:
      'The uploaded image for the format when one exists, else a generated SVG. `operator_id` selects that operator’s format preference; it is not authorization. Cacheable (`ETag`, `Cache-Control: public, max-age=300`); `If-None-Match` answers 304.',
    auth: 'public',
    pathParams: { symbol: { schema: GameSymbol, description: 'A game symbol or slug' } },
    query: c.GameArtQuery,
    ok: {
      200: { description: 'The image bytes', body: { kind: 'image' } },
      304: { description: 'Not modified (the `If-None-Match` ETag matches)' },
    },
    errors: {
      404: 'Unknown game and no `title` to draw a fallback from',
      422: 'A malformed query parameter',
    },
    idempotent: true,
  },
  {
    method: 'post',
    path: '/api/provider/v1/launch-url',
    operationId: 'createLaunchUrl',
    tag: 'provider',
    summary: 'Create or resume a player session and get its launch URL',
    description:
      'LaunchUrlData at the top level plus `success: true`, and the same object under `data`. The `launch_url` is a bearer secret: open it unchanged in the player’s browser. A relaunch of the same player, game and currency resumes the session with a fresh token (the previous URL stops working), so this call is not retried blindly: see the operator SDK README.',
    auth: 'operator',
    body: { schema: c.LaunchUrlRequest, required: true },
    ok: { 200: json('The launch', c.LaunchUrlResponse) },
    errors: {
      400: 'Missing required launch field (a body that is not a JSON object, no external_player_id, neither symbol nor slug), symbol and slug naming different games, malformed JSON, or a master key without an operator',
      401: KEYED[401],
      403: 'Inactive operator, wrong key scope, or the game is not enabled for the operator (or has no accepted release)',
      404: 'Game not found or not assigned to the operator; unknown operator',
      409: 'Player identity belongs to another operator; an unfinished round has another currency; unsupported provider integration (prov_b switched off, a demo- or sandbox-only title, a prov_c/prov_d title without its operator-wallet flag); no operator wallet configured',
      ...JSON_BODY,
      422: 'A malformed field (detail lists each), an unsupported currency',
      500: 'Production without an HTTPS GAME_BASE_URL, or another invalid server configuration',
      502: 'Provider runtime unavailable',
      503: 'Provider runtime not configured (the title has no runtime path)',
    },
  },
  {
    method: 'post',
    path: '/api/provider/v1/player-balance-refresh',
    operationId: 'refreshPlayerBalance',
    tag: 'provider',
    summary: 'Signal the player’s open game pages to read their balance again',
    description:
      'Carries no balance and sets none: matching open `prov_a` pages run a balance read through the wallet `balance` callback. `sessions_notified` counts signals sent, not acknowledged refreshes; check `subscribers_notified` too. An unknown player or session is 200 with `sessions_found: 0`.',
    auth: 'operator',
    body: { schema: c.BalanceRefreshRequest, required: true },
    ok: {
      200: json('The signals sent', c.BalanceRefreshResponse),
    },
    errors: {
      400: 'A body that is not a JSON object or lacks external_player_id; malformed JSON; a master key without an operator',
      401: KEYED[401],
      403: KEYED[403],
      404: 'Unknown operator (master keys) or game',
      409: 'A game or session filter naming a provider without balance refresh (only prov_a has it)',
      ...JSON_BODY,
      422: 'A malformed field',
    },
    idempotent: true,
  },
  {
    method: 'post',
    path: '/api/provider/v1/free-rounds',
    operationId: 'createFreeRoundCampaign',
    tag: 'provider',
    summary: 'Create a free-round campaign',
    description:
      'Grants players `rounds` rounds each of the given `prov_a`/`prov_b` slot titles at the stake `bet_minor`, between `valid_from` and `expires_at`. The provider pays for them: no debit is ever sent; each round’s win (zero included) is paid with a `credit` whose body carries `action_type: free_round`, `campaign_id` and, on a player’s last round, `free_round_last: true`. `campaign_id` is the operator’s own id and the idempotency key: the same request again answers the campaign as it is now (200); another body under the same id is 409. See docs/free-rounds.md.',
    auth: 'operator',
    body: { schema: c.CreateCampaignRequest, required: true },
    ok: {
      201: json('The campaign, created', c.CampaignResponse),
      200: json('The same request again: the campaign as it is now', c.CampaignResponse),
    },
    errors: {
      ...SCOPED,
      400: 'A body that is not a JSON object or lacks a required field; malformed JSON; a master key without an operator',
      404: 'A title not in the operator catalog; the operator a master key names does not exist',
      409: 'The campaign id exists with another body; a title that is not a prov_a/prov_b slot (native and crash titles choose stakes in-game: no fixed-stake round to give away)',
      ...JSON_BODY,
      422: 'A malformed field; a stake outside the operator’s bet limits or not offered by a title; a currency the operator does not allow; expires_at not after valid_from',
    },
  },
  {
    method: 'get',
    path: '/api/provider/v1/free-rounds',
    operationId: 'listFreeRoundCampaigns',
    tag: 'provider',
    summary: 'List the operator’s free-round campaigns',
    description: 'In campaign id order, `limit` per page; pass `next_cursor` as `cursor` for the next page.',
    auth: 'operator',
    query: c.ListCampaignsQuery,
    ok: {
      200: json('A page of campaigns', c.CampaignListResponse),
    },
    errors: { ...SCOPED, 422: 'A malformed query parameter (a cursor this service did not give)' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/provider/v1/jackpots',
    operationId: 'listJackpots',
    tag: 'provider',
    summary: 'The operator’s progressive jackpots for its lobby ticker',
    description:
      'The jackpots the operator takes part in (its own, and the network jackpots it is opted in to), each with its levels and, per currency, the pool’s whole minor units now (`amount_minor`), its seed, optional cap and odds (`hit_every_minor`: the stake expected between two hits). Pools are kept in millionths of a minor unit, so a contribution never rounds; see docs/jackpots-and-promotions.md.',
    auth: 'operator',
    ok: {
      200: json('The operator’s jackpots', c.JackpotListResponse),
    },
    errors: { ...SCOPED },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/provider/v1/tournaments',
    operationId: 'listTournaments',
    tag: 'provider',
    summary: 'The tournaments the operator is opted in to',
    description:
      'Each tournament the operator takes part in: its window, scoring (`max_multiplier`: the best single round’s win / stake; `total_win`: the sum of the wins), status (`scheduled`, `running`, `ended`: leaderboard frozen and prizes being paid, `paid`, `cancelled`), titles, and per currency the minimum stake of a round that counts and the prize of each rank. A round counts once it is settled (completed); free rounds never count. Prizes are paid after the end by a `credit` with `action_type: promo_win`; see docs/jackpots-and-promotions.md.',
    auth: 'operator',
    ok: {
      200: json('The operator’s tournaments', c.TournamentListResponse),
    },
    errors: { ...SCOPED },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/provider/v1/tournaments/{tournament_id}/leaderboard',
    operationId: 'getTournamentLeaderboard',
    tag: 'provider',
    summary: 'A tournament’s leaderboard: the top N of each currency',
    description:
      'Live until the end (the scores now, with the prize each rank would win), then the frozen standings (`frozen: true`). Ties go to the earlier score, then to the lower player id. The operator’s own players are shown with their `player_id`; another operator’s players only by a `display_id` that reveals nothing of their id. A rank wins its prize only with a score above zero.',
    auth: 'operator',
    pathParams: { tournament_id: { schema: c.TournamentId, description: 'The tournament id' } },
    query: c.LeaderboardQuery,
    ok: {
      200: json('The leaderboard', c.TournamentLeaderboardResponse),
    },
    errors: {
      ...SCOPED,
      404: 'Tournament not found, or the operator does not take part in it (or the operator a master key names does not exist)',
      422: 'A malformed query parameter',
    },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/provider/v1/prize-drops',
    operationId: 'listPrizeDrops',
    tag: 'provider',
    summary: 'The prize drops the operator is opted in to, with the prizes left',
    description:
      'Each prize drop the operator takes part in (running, coming, or over for less than a day): its window, status (`active`, `cancelled`), titles, and per currency the prize, how many, how many are left, the least qualifying stake and the odds (a qualifying paid spin wins with probability 1 / `award_every_spins` while prizes last; one prize per player per drop and currency). Each award is paid once its round completes by a `credit` with `action_type: promo_win`, `promo_type: prize_drop`; see docs/jackpots-and-promotions.md.',
    auth: 'operator',
    ok: {
      200: json('The operator’s prize drops', c.PrizeDropListResponse),
    },
    errors: { ...SCOPED },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/provider/v1/free-rounds/{campaign_id}',
    operationId: 'getFreeRoundCampaign',
    tag: 'provider',
    summary: 'One free-round campaign with its players’ remaining rounds and won totals',
    description:
      'The players come in pages in `external_player_id` order: `limit` per page (default and at most 1000, so a campaign granted in one request reads in one answer); pass `players_next_cursor` as `cursor` for the next page (null on the last). Create, add players and cancel answer the first page the same way.',
    auth: 'operator',
    pathParams: { campaign_id: { schema: c.CampaignId, description: 'The operator’s campaign id' } },
    query: c.CampaignQuery,
    ok: { 200: json('The campaign', c.CampaignResponse) },
    errors: {
      ...SCOPED,
      404: 'No such campaign of the operator',
      422: 'A malformed campaign id or query parameter (a cursor this service did not give)',
    },
    idempotent: true,
  },
  {
    method: 'post',
    path: '/api/provider/v1/free-rounds/{campaign_id}/players',
    operationId: 'addFreeRoundPlayers',
    tag: 'provider',
    summary: 'Grant a campaign’s rounds to more players',
    description: 'Idempotent per player: a player already granted keeps their rounds and totals.',
    auth: 'operator',
    pathParams: { campaign_id: { schema: c.CampaignId, description: 'The operator’s campaign id' } },
    body: { schema: c.AddPlayersRequest, required: true },
    ok: { 200: json('The campaign', c.CampaignResponse) },
    errors: {
      ...SCOPED,
      400: 'A body that is not a JSON object or lacks players; malformed JSON; a master key without an operator',
      404: 'No such campaign of the operator',
      409: 'The campaign is cancelled or expired',
      ...JSON_BODY,
      422: 'A malformed field or campaign id',
    },
    idempotent: true,
  },
  {
    method: 'delete',
    path: '/api/provider/v1/free-rounds/{campaign_id}',
    operationId: 'cancelFreeRoundCampaign',
    tag: 'provider',
    summary: 'Cancel a free-round campaign',
    description:
      'Idempotent. Unplayed rounds are void: no round of the campaign starts afterwards. Rounds already played settle (their credits are sent).',
    auth: 'operator',
    pathParams: { campaign_id: { schema: c.CampaignId, description: 'The operator’s campaign id' } },
    ok: {
      200: json('The campaign, cancelled', c.CampaignResponse),
    },
    errors: { ...SCOPED, 404: 'No such campaign of the operator', 422: 'A malformed campaign id' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/provider/v1/native/history',
    operationId: 'getNativeSessionHistory',
    tag: 'provider',
    summary: 'Native (prov_c) session history',
    description:
      'Every recorded stage of every round of the session, in order, at top level (no success/data wrapper).',
    auth: 'operator',
    query: c.NativeHistoryQuery,
    ok: {
      200: json('The session history', OUTPUT('NativeSessionHistory')),
    },
    errors: {
      400: 'Missing session_id, or a master key without operator_id',
      401: KEYED[401],
      403: KEYED[403],
      404: 'Session not found (another operator’s session is answered exactly as an unknown one, before its service is looked at), or not a native (prov_c) title’s (no native service)',
      422: 'A malformed query parameter',
    },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/provider/v1/native/history/{round_id}',
    operationId: 'getNativeRoundHistory',
    tag: 'provider',
    summary: 'Native (prov_c) round history',
    description:
      'The round’s intent, its stages, the money it moved (ledger: journalled successes, the player’s side) and every wallet call as journalled. `round_id` is a recorded round id, not a transaction id.',
    auth: 'operator',
    pathParams: { round_id: { schema: Id, description: 'A recorded round id' } },
    query: c.NativeHistoryQuery,
    ok: {
      200: json('The round history', OUTPUT('NativeRoundHistoryResponse')),
    },
    errors: {
      400: 'Missing session_id, or a master key without operator_id',
      401: KEYED[401],
      403: KEYED[403],
      404: 'Unknown session or round (another operator’s session is answered exactly as an unknown one), or not a native title’s session',
      422: 'A malformed query parameter',
    },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/provider/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'provider',
    summary: 'This document (public)',
    description:
      'Public: it holds no secret and operators read it before they have a key. The readable reference is at `/docs`.',
    auth: 'public',
    ok: { 200: { description: 'The OpenAPI 3.1 document', body: { kind: 'openapi' } } },
    errors: {},
    idempotent: true,
  },

  // ── operator audit API ──────────────────────────────────────────────────────────────────────
  {
    method: 'get',
    path: '/api/operator/v1/contract',
    operationId: 'getOperatorContract',
    tag: 'operator',
    summary: 'The operator’s contract and limits',
    auth: 'operator-signed',
    extraQuery: OperatorIdParam,
    ok: { 200: json('The contract', c.OperatorContractResponse) },
    errors: { ...SCOPED },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/sessions/{session_id}',
    operationId: 'getOperatorSession',
    tag: 'operator',
    summary: 'One owned session and its round counts',
    auth: 'operator-signed',
    pathParams: { session_id: { schema: Id, description: 'The session id returned by launch' } },
    extraQuery: OperatorIdParam,
    ok: { 200: json('The session', c.OperatorSessionResponse) },
    errors: {
      ...SCOPED,
      404: 'Session not found, or another operator’s: answered exactly as an unknown id (or unknown operator)',
      422: 'A malformed path parameter',
    },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/transactions',
    operationId: 'searchOperatorTransactions',
    tag: 'operator',
    summary: 'Search the operator’s wallet-transaction journal',
    description:
      'Newest first; `next_cursor` (opaque) goes back as `cursor` and is null on the last page. Unknown parameters are 422. `from` and `to` are RFC 3339 instants between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z (any offset up to ±23:59, read in UTC); a value outside, a forged cursor, a NUL or a lone surrogate is 422 naming the parameter, never a 5xx.',
    auth: 'operator-signed',
    query: c.TransactionSearchQuery,
    extraQuery: OperatorIdParam,
    ok: {
      200: json('A page of transactions', c.TransactionSearchResponse),
    },
    errors: { ...SCOPED, 422: 'A malformed or unknown query parameter' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/transactions/{transaction_id}',
    operationId: 'getOperatorTransaction',
    tag: 'operator',
    summary: 'One owned wallet transaction',
    auth: 'operator-signed',
    pathParams: { transaction_id: { schema: Id, description: 'The transaction id (the idempotency key)' } },
    extraQuery: OperatorIdParam,
    ok: {
      200: json('The transaction', c.OperatorTransactionResponse),
    },
    errors: {
      ...SCOPED,
      404: 'Transaction not found, or another operator’s: answered exactly as an unknown id (or unknown operator)',
      422: 'A malformed path parameter',
    },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/rounds',
    operationId: 'searchOperatorRounds',
    tag: 'operator',
    summary: 'Search the operator’s rounds',
    description:
      'Stable round ids with integer `bet_minor` and `win_minor` totals; paging, `from`/`to` and their 422s as the transaction search.',
    auth: 'operator-signed',
    query: c.RoundSearchQuery,
    extraQuery: OperatorIdParam,
    ok: { 200: json('A page of rounds', c.RoundSearchResponse) },
    errors: { ...SCOPED, 422: 'A malformed or unknown query parameter' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/rounds/{round_id}',
    operationId: 'getOperatorRound',
    tag: 'operator',
    summary: 'One owned round and its transactions',
    auth: 'operator-signed',
    pathParams: { round_id: { schema: Id, description: 'A round id (a transaction id is 404)' } },
    extraQuery: OperatorIdParam,
    ok: { 200: json('The round', c.RoundDetailResponse) },
    errors: {
      ...SCOPED,
      404: 'Round not found, or another operator’s: answered exactly as an unknown id (or unknown operator)',
      422: 'A malformed path parameter',
    },
    idempotent: true,
  },
  {
    method: 'post',
    path: '/api/operator/v1/rounds/{round_id}/replay-url',
    operationId: 'createReplayUrl',
    tag: 'operator',
    summary: 'A short-lived replay link of an owned round, to give a player',
    description:
      'Issues a link to the round’s read-only replay page on the game origin (`<GAME_BASE_URL>/replay/<round_id>?k=…&iat=…&exp=…&sig=…`, signed with the replay links’ own key, whose id is `k`): the round as the player saw it, with no session and no wallet call. Time-limited, not single use: it opens as often as wanted for ten minutes (`expires_at`), then is refused (410); a revocation of the round’s or the operator’s replay links (admin API) ends it too. Each call issues a new one and nothing is stored. Nothing of the round’s result shows on the page until its debit is applied. This is the link to give a player; the round’s stable `round_details_url` (audit reads) is for staff. Another operator’s round and an unknown round are the same 404 (the answer never tells whether a round exists elsewhere). Not rate-limited beyond the key’s signed-request rules (no operator route is).',
    auth: 'operator-signed',
    pathParams: {
      round_id: { schema: c.ReplayRoundId, description: 'A round id (1 to 128 letters, digits or `_:.-`)' },
    },
    extraQuery: OperatorIdParam,
    body: { schema: c.ReplayUrlRequest, required: false },
    ok: { 201: json('The link', c.ReplayUrlResponse) },
    errors: {
      ...SCOPED,
      400: 'Malformed JSON; a provider master key that names no operator, or names several',
      404: 'Round not found, or another operator’s round (or unknown operator)',
      ...JSON_BODY,
      422: 'A malformed round id, or a body that is not an empty object',
    },
  },
  {
    method: 'get',
    path: '/api/operator/v1/reconciliation',
    operationId: 'getReconciliation',
    tag: 'operator',
    summary: 'Per-currency totals: wallet deltas against game-history deltas',
    description:
      'Over the rounds created in [from, to) and every journal row of those rounds, in one snapshot. Balanced only with a zero difference and no pending financial transaction in every currency, and every currency’s promotional payouts created in the window balanced (`promo_payouts`: the payouts’ amounts against their successful `promo_win` credits, nothing pending); `jackpots` reports the window’s jackpot contributions and hits apart; no currency conversion. `from` and `to` are RFC 3339 instants between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z (any offset up to ±23:59); the answer gives them in UTC (`2026-01-17T11:27:59+18:06` is `2026-01-16T17:21:59Z`). Outside that range: 422 at `query.from` or `query.to`.',
    auth: 'operator-signed',
    query: c.ReconciliationQuery,
    extraQuery: OperatorIdParam,
    ok: {
      200: json('The reconciliation', c.ReconciliationResponse),
    },
    errors: { ...SCOPED, 422: 'A malformed or unknown query parameter' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/reconciliation.csv',
    operationId: 'getReconciliationCsv',
    tag: 'operator',
    summary: 'The same per-currency totals as CSV',
    description: `A header row (\`${c.RECONCILIATION_CSV_HEADER.join(',')}\`), one row per currency, CRLF line ends, RFC 4180 quoting.`,
    auth: 'operator-signed',
    query: c.ReconciliationQuery,
    extraQuery: OperatorIdParam,
    ok: { 200: { description: 'The totals as CSV', body: { kind: 'csv' } } },
    errors: { ...SCOPED, 422: 'A malformed or unknown query parameter' },
    idempotent: true,
  },
  // Jackpot and promotional money (issue 25, docs/audit-and-reconciliation.md).
  {
    method: 'get',
    path: '/api/operator/v1/jackpot-contributions',
    operationId: 'searchJackpotContributions',
    tag: 'operator',
    summary: 'Search the operator’s rounds that fed a progressive jackpot',
    description:
      'Each contributing round with its stake and its contribution over every level in millionths of a minor unit (`contribution_micros`, an exact decimal string), newest first; paging, `from`/`to` and their 422s as the round search.',
    auth: 'operator-signed',
    query: c.JackpotContributionQuery,
    extraQuery: OperatorIdParam,
    ok: {
      200: json('A page of contributing rounds', c.JackpotContributionSearchResponse),
    },
    errors: { ...SCOPED, 422: 'A malformed or unknown query parameter' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/jackpot-wins',
    operationId: 'searchJackpotWins',
    tag: 'operator',
    summary: 'Search the operator’s jackpot hits',
    description:
      'One item per level a round hit: its amount, `pending` until its `jackpot_win` credit (`transaction_id`) succeeds, then `paid`, or `forfeited` when the round’s wager never stood (nothing is sent). Newest first; paging, `from`/`to` and their 422s as the round search.',
    auth: 'operator-signed',
    query: c.JackpotWinQuery,
    extraQuery: OperatorIdParam,
    ok: {
      200: json('A page of jackpot hits', c.JackpotWinSearchResponse),
    },
    errors: { ...SCOPED, 422: 'A malformed or unknown query parameter' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/promo-payouts',
    operationId: 'searchPromoPayouts',
    tag: 'operator',
    summary: 'Search the operator’s promotional payouts (tournaments, prize drops)',
    description:
      'Each payout is paid by one `credit` with `action_type: promo_win` whose `round_id` is the payout id and whose `transaction_id` is `<payout_id>:credit`. Newest first; paging, `from`/`to` and their 422s as the round search.',
    auth: 'operator-signed',
    query: c.PromoPayoutQuery,
    extraQuery: OperatorIdParam,
    ok: {
      200: json('A page of promotional payouts', c.PromoPayoutSearchResponse),
    },
    errors: { ...SCOPED, 422: 'A malformed or unknown query parameter' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/promo-payouts/{payout_id}',
    operationId: 'getPromoPayout',
    tag: 'operator',
    summary: 'One owned promotional payout',
    description:
      'Another operator’s payout is 404 exactly like an unknown one (as every read by id): a payout is one player’s prize, so a 403 would tell that another operator’s player won. Payout ids are `pp_t_<tournament>_<h>` or `pp_d_<drop>_<h>` with h 32 random hex digits (before issue 34, a hash of operator, player and currency).',
    auth: 'operator-signed',
    pathParams: {
      payout_id: { schema: Id, description: 'The payout id (the round reference of its credit)' },
    },
    extraQuery: OperatorIdParam,
    ok: { 200: json('The payout', c.PromoPayoutResponse) },
    errors: {
      ...SCOPED,
      404: 'Payout not found, or another operator’s (or unknown operator)',
      422: 'A malformed path parameter',
    },
    idempotent: true,
  },

  // ── provider admin API ──────────────────────────────────────────────────────────────────────
  {
    method: 'get',
    path: '/api/admin/v1/games',
    operationId: 'adminListGames',
    tag: 'admin',
    summary: 'Every title with its installed version, flags and family switch',
    auth: 'admin',
    ok: { 200: json('The admin catalog', c.AdminGamesResponse) },
    errors: { ...ADMIN },
  },
  {
    method: 'post',
    path: '/api/admin/v1/operators',
    operationId: 'adminCreateOperator',
    tag: 'admin',
    summary: 'Create an operator',
    description: 'Without `wallet_secret` one is generated and returned once.',
    auth: 'admin',
    body: { schema: c.CreateOperatorRequest, required: true },
    ok: { 201: json('Created', c.AdminOperatorResponse) },
    errors: {
      ...ADMIN_JSON,
      409: 'The operator exists',
      422: 'A malformed field, or a wallet URL refused (see `wallet_base_url`)',
    },
  },
  {
    method: 'get',
    path: '/api/admin/v1/operators/{operator_id}',
    operationId: 'adminGetOperator',
    tag: 'admin',
    summary: 'One operator',
    auth: 'admin',
    pathParams: { operator_id: { schema: c.OperatorId, description: 'The operator id' } },
    ok: { 200: json('The operator', c.AdminOperatorResponse) },
    errors: { ...ADMIN, 404: 'Operator not found' },
  },
  {
    method: 'patch',
    path: '/api/admin/v1/operators/{operator_id}',
    operationId: 'adminUpdateOperator',
    tag: 'admin',
    summary: 'Change an operator',
    description:
      '`rotate_wallet_secret: true` generates a new wallet secret and returns it once. `status: inactive` suspends the operator: from this answer on, in every API process, its sessions start no new round (slot spin, free round, native bet, crash bet: the game page gets 403 `operator_suspended`); rounds already recorded still settle, a native round already open can be finished and a crash bet already placed cashed out.',
    auth: 'admin',
    pathParams: { operator_id: { schema: c.OperatorId, description: 'The operator id' } },
    body: { schema: c.UpdateOperatorRequest, required: true },
    ok: { 200: json('The operator', c.AdminOperatorResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Operator not found',
      422: 'A malformed field, or a wallet URL refused (see `wallet_base_url`)',
    },
  },
  {
    method: 'post',
    path: '/api/admin/v1/operators/{operator_id}/api-keys',
    operationId: 'adminCreateOperatorKey',
    tag: 'admin',
    summary: 'Create an operator API key (shown once)',
    auth: 'admin',
    pathParams: { operator_id: { schema: c.OperatorId, description: 'The operator id' } },
    body: { schema: c.CreateApiKeyRequest, required: false },
    ok: { 201: json('Created', c.AdminApiKeyCreatedResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Operator not found',
      422: 'A malformed field',
    },
  },
  {
    method: 'post',
    path: '/api/admin/v1/master-keys',
    operationId: 'adminCreateMasterKey',
    tag: 'admin',
    summary: 'Create a provider master key (shown once; never for operators)',
    auth: 'admin',
    body: { schema: c.CreateApiKeyRequest, required: false },
    ok: { 201: json('Created', c.AdminApiKeyCreatedResponse) },
    errors: { ...ADMIN_JSON, 422: 'A malformed field' },
  },
  {
    method: 'delete',
    path: '/api/admin/v1/api-keys/{key_id}',
    operationId: 'adminRevokeKey',
    tag: 'admin',
    summary: 'Revoke a key (every API process refuses it from the next request on)',
    auth: 'admin',
    pathParams: { key_id: { schema: Id, description: 'The key id (`key_…`)' } },
    ok: { 200: json('Revoked', c.AdminApiKeyRevokedResponse) },
    errors: { ...ADMIN, 404: 'Key not found or already revoked', 409: 'A key cannot revoke itself' },
  },
  {
    method: 'get',
    path: '/api/admin/v1/operators/{operator_id}/games',
    operationId: 'adminListOperatorGames',
    tag: 'admin',
    summary: 'An operator’s assigned titles, blocked ones included',
    auth: 'admin',
    pathParams: { operator_id: { schema: c.OperatorId, description: 'The operator id' } },
    ok: {
      200: json('The assignments', c.AdminOperatorGamesResponse),
    },
    errors: { ...ADMIN, 404: 'Operator not found' },
  },
  {
    method: 'put',
    path: '/api/admin/v1/operators/{operator_id}/games/{symbol}',
    operationId: 'adminAssignGame',
    tag: 'admin',
    summary: 'Assign a title to an operator (enabled or disabled)',
    auth: 'admin',
    pathParams: {
      operator_id: { schema: c.OperatorId, description: 'The operator id' },
      symbol: { schema: GameSymbol, description: 'A game symbol or slug' },
    },
    body: { schema: c.EnabledRequest, required: true },
    ok: { 200: json('Assigned', c.AdminAssignmentResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Operator or game not found',
      422: 'A malformed field',
    },
  },
  {
    method: 'delete',
    path: '/api/admin/v1/operators/{operator_id}/games/{symbol}',
    operationId: 'adminUnassignGame',
    tag: 'admin',
    summary: 'Remove a title from an operator',
    auth: 'admin',
    pathParams: {
      operator_id: { schema: c.OperatorId, description: 'The operator id' },
      symbol: { schema: GameSymbol, description: 'A game symbol or slug' },
    },
    ok: { 200: json('Unassigned', c.AdminUnassignedResponse) },
    errors: { ...ADMIN, 404: 'Operator or game not found, or the title is not assigned' },
  },
  {
    method: 'get',
    path: '/api/admin/v1/jackpots',
    operationId: 'adminListJackpots',
    tag: 'admin',
    summary: 'Every jackpot with its operators and each pool’s running totals',
    auth: 'admin',
    ok: {
      200: json('The jackpots', c.AdminJackpotListResponse),
    },
    errors: { ...ADMIN },
    idempotent: true,
  },
  {
    method: 'put',
    path: '/api/admin/v1/jackpots/{jackpot_id}',
    operationId: 'adminDefineJackpot',
    tag: 'admin',
    summary: 'Define a progressive jackpot: its titles, levels and a pool per level and currency',
    description:
      'Levels are given mini first; each collects `contribution_rate_ppm` parts per million of every eligible paid stake and has, per currency, a seed (what a hit resets it to), an optional cap and its odds (`hit_every_minor`). Every pool starts at its seed. A definition may return, per currency, at most the configured share of every stake (`JACKPOT_MAX_SHARE_PPM`, 5 % by default): the sum of the levels’ rates plus each level’s `seed_minor` ÷ `hit_every_minor`, in parts per million; above it the answer is 422 naming the currency, the share and the ceiling. A contribution counts only once its spin’s debit stands. The same definition again answers 200 and changes nothing; another definition under the same id is 409: a live pool’s seed, odds and rate are what its contributors played for. See docs/jackpots-and-promotions.md.',
    auth: 'admin',
    pathParams: { jackpot_id: { schema: c.JackpotId, description: 'The jackpot id' } },
    body: { schema: c.JackpotDefinitionRequest, required: true },
    ok: {
      201: json('Defined', c.AdminJackpotResponse),
      200: json('The same definition again: the jackpot as it is', c.AdminJackpotResponse),
    },
    errors: {
      ...ADMIN_JSON,
      404: 'A malformed jackpot id',
      409: 'The jackpot is already defined differently',
      422: 'A malformed field; an unknown title or operator; a title that is not a prov_a/prov_b slot; levels with different currencies or repeated names; a cap not above the seed; a currency whose levels return more than JACKPOT_MAX_SHARE_PPM of every stake (Σ rate + Σ seed ÷ hit_every; `loc` ["body","levels"], the message names the currency, the share and the ceiling)',
    },
  },
  {
    method: 'get',
    path: '/api/admin/v1/jackpots/{jackpot_id}',
    operationId: 'adminGetJackpot',
    tag: 'admin',
    summary: 'One jackpot with its operators and each pool’s running totals',
    auth: 'admin',
    pathParams: { jackpot_id: { schema: c.JackpotId, description: 'The jackpot id' } },
    ok: { 200: json('The jackpot', c.AdminJackpotResponse) },
    errors: { ...ADMIN, 404: 'Jackpot not found' },
    idempotent: true,
  },
  {
    method: 'put',
    path: '/api/admin/v1/jackpots/{jackpot_id}/operators/{operator_id}',
    operationId: 'adminSetJackpotOperator',
    tag: 'admin',
    summary: 'Opt an operator in or out of a network jackpot',
    auth: 'admin',
    pathParams: {
      jackpot_id: { schema: c.JackpotId, description: 'The jackpot id' },
      operator_id: { schema: c.OperatorId, description: 'The operator id' },
    },
    body: { schema: c.EnabledRequest, required: true },
    ok: { 200: json('Set', c.AdminJackpotOperatorResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Jackpot or operator not found',
      409: 'An operator jackpot (it has its one operator)',
      422: 'A malformed field',
    },
  },
  {
    method: 'get',
    path: '/api/admin/v1/tournaments',
    operationId: 'adminListTournaments',
    tag: 'admin',
    summary: 'Every tournament with its operators and payouts',
    auth: 'admin',
    ok: {
      200: json('The tournaments', c.AdminTournamentListResponse),
    },
    errors: { ...ADMIN },
    idempotent: true,
  },
  {
    method: 'put',
    path: '/api/admin/v1/tournaments/{tournament_id}',
    operationId: 'adminDefineTournament',
    tag: 'admin',
    summary: 'Define a tournament: its titles, window, scoring, and per currency a minimum stake and prizes',
    description:
      'Prizes are listed by rank (the first is rank 1’s), 1 to 100 per currency, and never increase with rank. `ends_at` is after `starts_at`, in the future and at most 366 days ahead. The tournament’s workflow starts with the definition: a durable timer to its start, one to its end, then the leaderboard frozen and each prize paid. The same definition again answers 200 and changes nothing (and starts the workflow if an earlier start failed); another definition under the same id is 409. Operators take part once opted in. See docs/jackpots-and-promotions.md.',
    auth: 'admin',
    pathParams: { tournament_id: { schema: c.TournamentId, description: 'The tournament id' } },
    body: { schema: c.TournamentDefinitionRequest, required: true },
    ok: {
      201: json('Defined', c.AdminTournamentResponse),
      200: json('The same definition again: the tournament as it is', c.AdminTournamentResponse),
    },
    errors: {
      ...ADMIN_JSON,
      404: 'A malformed tournament id',
      409: 'The tournament is already defined differently',
      422: 'A malformed field; an unknown title; a title that is not a prov_a/prov_b slot; ends_at not after starts_at, in the past or more than 366 days ahead; no currency; an empty prize table or prizes increasing with rank',
      502: 'The definition is stored but its workflow did not start: send the same definition again',
      503: 'No settlement runtime configured (TEMPORAL_ADDRESS unset): nothing is stored',
    },
  },
  {
    method: 'get',
    path: '/api/admin/v1/tournaments/{tournament_id}',
    operationId: 'adminGetTournament',
    tag: 'admin',
    summary: 'One tournament with its operators and payouts',
    auth: 'admin',
    pathParams: { tournament_id: { schema: c.TournamentId, description: 'The tournament id' } },
    ok: { 200: json('The tournament', c.AdminTournamentResponse) },
    errors: { ...ADMIN, 404: 'Tournament not found' },
    idempotent: true,
  },
  {
    method: 'post',
    path: '/api/admin/v1/tournaments/{tournament_id}/cancel',
    operationId: 'adminCancelTournament',
    tag: 'admin',
    summary: 'Cancel a tournament before its end: it pays nothing',
    description:
      'Before its end (by the database’s clock) the tournament becomes `cancelled`: its rounds stop counting, no leaderboard is frozen and no prize is paid. Cancelling again answers 200. Once it is over it is 409: its leaderboard is frozen (or being frozen) and its prizes are paid.',
    auth: 'admin',
    pathParams: { tournament_id: { schema: c.TournamentId, description: 'The tournament id' } },
    ok: { 200: json('Cancelled', c.AdminTournamentResponse) },
    errors: { ...ADMIN, 404: 'Tournament not found', 409: 'The tournament is over' },
  },
  {
    method: 'put',
    path: '/api/admin/v1/tournaments/{tournament_id}/operators/{operator_id}',
    operationId: 'adminSetTournamentOperator',
    tag: 'admin',
    summary: 'Opt an operator in or out of a tournament',
    auth: 'admin',
    pathParams: {
      tournament_id: { schema: c.TournamentId, description: 'The tournament id' },
      operator_id: { schema: c.OperatorId, description: 'The operator id' },
    },
    body: { schema: c.EnabledRequest, required: true },
    ok: { 200: json('Set', c.AdminTournamentOperatorResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Tournament or operator not found',
      409: 'The tournament is over or cancelled',
      422: 'A malformed field',
    },
  },
  {
    method: 'get',
    path: '/api/admin/v1/prize-drops',
    operationId: 'adminListPrizeDrops',
    tag: 'admin',
    summary: 'Every prize drop with its operators and pools',
    auth: 'admin',
    ok: {
      200: json('The prize drops', c.AdminPrizeDropListResponse),
    },
    errors: { ...ADMIN },
    idempotent: true,
  },
  {
    method: 'put',
    path: '/api/admin/v1/prize-drops/{drop_id}',
    operationId: 'adminDefinePrizeDrop',
    tag: 'admin',
    summary:
      'Define a prize drop: its titles, window, and per currency a prize, a count, a minimum stake and the odds',
    description:
      'Every pool starts full. `ends_at` is after `starts_at`, in the future and at most 366 days ahead. The same definition again answers 200 and changes nothing; another definition under the same id is 409. Operators take part once opted in. See docs/jackpots-and-promotions.md.',
    auth: 'admin',
    pathParams: { drop_id: { schema: c.PrizeDropId, description: 'The prize drop id' } },
    body: { schema: c.PrizeDropDefinitionRequest, required: true },
    ok: {
      201: json('Defined', c.AdminPrizeDropResponse),
      200: json('The same definition again: the drop as it is', c.AdminPrizeDropResponse),
    },
    errors: {
      ...ADMIN_JSON,
      404: 'A malformed prize drop id',
      409: 'The prize drop is already defined differently',
      422: 'A malformed field; an unknown title; a title that is not a prov_a/prov_b slot; ends_at not after starts_at, in the past or more than 366 days ahead; no currency',
    },
  },
  {
    method: 'get',
    path: '/api/admin/v1/prize-drops/{drop_id}',
    operationId: 'adminGetPrizeDrop',
    tag: 'admin',
    summary: 'One prize drop with its operators and pools',
    auth: 'admin',
    pathParams: { drop_id: { schema: c.PrizeDropId, description: 'The prize drop id' } },
    ok: { 200: json('The prize drop', c.AdminPrizeDropResponse) },
    errors: { ...ADMIN, 404: 'Prize drop not found' },
    idempotent: true,
  },
  {
    method: 'post',
    path: '/api/admin/v1/prize-drops/{drop_id}/cancel',
    operationId: 'adminCancelPrizeDrop',
    tag: 'admin',
    summary: 'Cancel a prize drop: no spin qualifies any more',
    description:
      'From now on no spin qualifies (the spin’s statement checks the status at the pool’s lock). Awards already made stand and are paid. Cancelling again answers 200.',
    auth: 'admin',
    pathParams: { drop_id: { schema: c.PrizeDropId, description: 'The prize drop id' } },
    ok: { 200: json('Cancelled', c.AdminPrizeDropResponse) },
    errors: { ...ADMIN, 404: 'Prize drop not found' },
  },
  {
    method: 'put',
    path: '/api/admin/v1/prize-drops/{drop_id}/operators/{operator_id}',
    operationId: 'adminSetPrizeDropOperator',
    tag: 'admin',
    summary: 'Opt an operator in or out of a prize drop',
    auth: 'admin',
    pathParams: {
      drop_id: { schema: c.PrizeDropId, description: 'The prize drop id' },
      operator_id: { schema: c.OperatorId, description: 'The operator id' },
    },
    body: { schema: c.EnabledRequest, required: true },
    ok: { 200: json('Set', c.AdminPrizeDropOperatorResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Prize drop or operator not found',
      422: 'A malformed field',
    },
  },
  {
    method: 'put',
    path: '/api/admin/v1/release-registry/{symbol}',
    operationId: 'adminSetReleaseRegistry',
    tag: 'admin',
    summary: 'Record a release registry entry for an exact version',
    auth: 'admin',
    pathParams: { symbol: { schema: GameSymbol, description: 'A game symbol or slug' } },
    body: { schema: c.ReleaseRegistryRequest, required: true },
    ok: { 200: json('Recorded', c.AdminReleaseRegistryResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Game not found',
      422: 'A malformed field',
    },
  },
  {
    method: 'put',
    path: '/api/admin/v1/providers/{provider_id}/switch',
    operationId: 'adminSetProviderSwitch',
    tag: 'admin',
    summary: 'Switch a provider family on or off (prov_b is off by default)',
    auth: 'admin',
    pathParams: { provider_id: { schema: z.string(), description: 'A provider id (`prov_a` … `prov_d`)' } },
    body: { schema: c.EnabledRequest, required: true },
    ok: { 200: json('Switched', c.AdminProviderSwitchResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Provider not found',
      422: 'A malformed field',
    },
  },
  {
    method: 'put',
    path: '/api/admin/v1/games/{symbol}/operator-wallet',
    operationId: 'adminSetOperatorWalletFlag',
    tag: 'admin',
    summary: 'Opt a prov_c or prov_d title in or out of operator-wallet transport',
    auth: 'admin',
    pathParams: { symbol: { schema: GameSymbol, description: 'A game symbol or slug' } },
    body: { schema: c.EnabledRequest, required: true },
    ok: {
      200: json('Set', c.AdminOperatorWalletFlagResponse),
    },
    errors: {
      ...ADMIN_JSON,
      404: 'Game not found',
      409: 'Not a prov_c or prov_d title',
      422: 'A malformed field',
    },
  },
  {
    method: 'put',
    path: '/api/admin/v1/games/{symbol}/artwork',
    operationId: 'adminUploadArtwork',
    tag: 'admin',
    summary: 'Upload a title’s artwork (PNG, JPEG, WebP or a safe SVG; up to 5 MiB)',
    description:
      'The raw image bytes as the body; the content type is sniffed from the bytes. An SVG with scripts, event handlers or external references is refused.',
    auth: 'admin',
    pathParams: { symbol: { schema: GameSymbol, description: 'A game symbol or slug' } },
    extraQuery: {
      format: { schema: c.ThumbnailFormat.default('vertical'), description: 'The artwork format' },
    },
    body: { kind: 'image' },
    ok: { 200: json('Stored', c.AdminArtworkResponse) },
    errors: {
      ...ADMIN,
      404: 'Game not found',
      408: 'The body did not arrive within 60 s (answered with `Connection: close`)',
      413: 'The body is larger than 5 MiB (answered with `Connection: close`); the key is checked before any of the body is read',
      422: 'Not an image, an unsafe SVG, or a malformed format',
    },
  },
  {
    method: 'post',
    path: '/api/admin/v1/sessions/{session_id}/revoke',
    operationId: 'adminRevokeSession',
    tag: 'admin',
    summary: 'Revoke a session (any family): its tokens and crash authorizations stop working now',
    description:
      'From this answer on the session starts no new round, in every API process (a bet that raced the revocation is refused too); rounds already recorded still settle.',
    auth: 'admin',
    pathParams: { session_id: { schema: Id, description: 'The session id' } },
    body: { schema: INPUT('RevokeSessionRequest'), required: false },
    ok: { 200: json('Revoked', c.AdminSessionRevokedResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Session not found',
      422: 'A malformed field',
    },
  },

  // ── provider admin API: replay-link revocations (issue 34) ──────────────────────────────────
  {
    method: 'post',
    path: '/api/admin/v1/rounds/{round_id}/replay-links/revoke',
    operationId: 'adminRevokeRoundReplayLinks',
    tag: 'admin',
    summary: 'Revoke every replay link of a round issued until now',
    description:
      'The round’s stable `round_details_url` (issued with the round, also the one in its credit callback) and every share link issued until now stop opening: the replay page answers 410 (`data-reason="revoked"`), whichever key signed them. Share links issued afterwards (`POST /api/operator/v1/rounds/{round_id}/replay-url`, the player’s history) open. A repeat moves `revoked_at` forward (200 again).',
    auth: 'admin',
    pathParams: { round_id: { schema: c.ReplayRoundId, description: 'The round id' } },
    body: { schema: c.ReplayLinkRevokeRequest, required: false },
    ok: {
      200: json('Revoked', c.ReplayLinkRevocationResponse),
    },
    errors: {
      ...ADMIN_JSON,
      404: 'Round not found',
      422: 'A malformed field, or an unknown one',
    },
  },
  {
    method: 'post',
    path: '/api/admin/v1/operators/{operator_id}/replay-links/revoke',
    operationId: 'adminRevokeOperatorReplayLinks',
    tag: 'admin',
    summary: 'Revoke every replay link of an operator’s rounds issued until now',
    description:
      'For every round of the operator: the stable `round_details_url` of the rounds made until now and every share link issued until now stop opening (410, `data-reason="revoked"`). Rounds made afterwards, and share links issued afterwards, open. A repeat moves `revoked_at` forward (200 again).',
    auth: 'admin',
    pathParams: { operator_id: { schema: c.OperatorId, description: 'The operator id' } },
    body: { schema: c.ReplayLinkRevokeRequest, required: false },
    ok: {
      200: json('Revoked', c.ReplayLinkRevocationResponse),
    },
    errors: {
      ...ADMIN_JSON,
      404: 'Operator not found',
      422: 'A malformed field, or an unknown one',
    },
  },

  // ── provider admin API: exchange rates (issue 38; issue 39's stake ladders read them) ─────
  {
    method: 'post',
    path: '/api/admin/v1/exchange-rates',
    operationId: 'adminLoadExchangeRates',
    tag: 'admin',
    summary: 'Load exchange rates (up to 300, all or none)',
    description:
      'Each rate is one published fact: on `rate_date`, one unit of `base_currency` was worth `rate` units of `quote_currency` (major units, as published: EUR/USD `1.0823`), according to `source`. The rate is an exact decimal string, never a float. A loaded rate never changes: invoices copy it (value, date and source) into their lines. Loading the same rate again is a no-op (200, `unchanged`); the same pair, date and source with another value is 409 and nothing of the request is loaded (a correction is loaded under another source). 201 when at least one rate is new.',
    auth: 'admin',
    body: { schema: c.LoadExchangeRatesRequest, required: true },
    ok: {
      201: json('Loaded (some rates new)', c.LoadExchangeRatesResponse),
      200: json('Every rate was already loaded with the same value', c.LoadExchangeRatesResponse),
    },
    errors: {
      ...ADMIN_JSON,
      409: 'A rate already loaded with another value (nothing loaded)',
      422: 'A malformed field or an unknown one, a rate dated after tomorrow (UTC), base equal to quote, or one pair, date and source twice with two values',
    },
  },
  {
    method: 'get',
    path: '/api/admin/v1/exchange-rates',
    operationId: 'adminListExchangeRates',
    tag: 'admin',
    summary: 'The loaded exchange rates, newest date first',
    auth: 'admin',
    query: c.ExchangeRatesQuery,
    ok: { 200: json('A page of rates', c.ExchangeRatesResponse) },
    errors: { ...ADMIN, 422: 'A malformed or unknown parameter, or a cursor this API did not return' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/admin/v1/exchange-rates/lookup',
    operationId: 'adminLookupExchangeRate',
    tag: 'admin',
    summary: 'The rate of a pair in force on a day',
    description:
      'The latest rate of the pair dated on or before `date`, loaded either way round (`direction` `direct` or `inverse`; on one date the direct one, then the source first in byte order). An invoice converts at the rate this returns for its period’s last day and freezes it.',
    auth: 'admin',
    query: c.ExchangeRateLookupQuery,
    ok: {
      200: json('The rate in force', c.ExchangeRateLookupResponse),
    },
    errors: {
      ...ADMIN,
      404: 'No rate of the pair dated on or before the day',
      422: 'A malformed or unknown parameter',
    },
    idempotent: true,
  },

  // ── reports (issue 38, docs/reports-and-invoices.md) ──────────────────────────────────────
  {
    method: 'get',
    path: '/api/operator/v1/reports/revenue',
    operationId: 'getRevenueReport',
    tag: 'operator',
    summary: 'Daily figures, GGR and GGY of the operator’s rounds, by day, title or currency',
    description: REVENUE_DESCRIPTION,
    auth: 'operator-signed',
    query: c.RevenueReportQuery,
    extraQuery: OperatorIdParam,
    ok: { 200: json('The report', c.RevenueReportResponse) },
    errors: {
      ...SCOPED,
      422: 'A malformed or unknown parameter, `to` before `from`, or a period over 366 days',
    },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/reports/revenue.csv',
    operationId: 'getRevenueReportCsv',
    tag: 'operator',
    summary: 'The same report as CSV',
    description: `A header row (\`${c.REVENUE_REPORT_CSV_HEADER.join(',')}\`), one row per report row (a no-activity day included, its title and currency empty), CRLF line ends, RFC 4180 quoting.`,
    auth: 'operator-signed',
    query: c.RevenueReportQuery,
    extraQuery: OperatorIdParam,
    ok: { 200: { description: 'The report as CSV', body: { kind: 'csv' } } },
    errors: {
      ...SCOPED,
      422: 'A malformed or unknown parameter, `to` before `from`, or a period over 366 days',
    },
    idempotent: true,
  },
  {
    method: 'post',
    path: '/api/operator/v1/reconciliation/diff',
    operationId: 'diffReconciliation',
    tag: 'operator',
    summary: 'Compare the operator’s ledger totals with the journal, and narrow to what differs',
    description:
      'The operator sends its totals of the wallet transactions it applied (debits, credits, cancels and rollbacks: count, Σ amount per type, optionally an order-free hash), bucketed at one `level`, and gets back every bucket of ours in the scope and those that differ. The walk: `day` (over `from`–`to`), then `prefix` over the period of the differing days (`from`–`to`; `digits` 2: the SHA-256 of the transaction id’s next two hex digits, 256 buckets, while a bucket holds more than 400 transactions), and `transaction` (the operator’s transactions of the scope; answered with those only we have, only it has, or that differ). A transaction the operator booked across a day boundary makes both days differ, but not a period holding both, so a month with one missing transaction narrows in four requests. By hand, `hour` of a day and `title` of a day or hour, and `prefix` or `transaction` of a day (and hour), narrow as well. Days and hours are the operator’s reporting time zone; a transaction is bucketed by when the platform journalled it (before its first send). At most 400 buckets or transactions a request (and the 64 KiB body). A read: nothing is written, safe to retry. The SDK’s `findLedgerDifferences` runs the walk from the operator’s ledger rows (docs/reports-and-invoices.md has an example).',
    auth: 'operator-signed',
    extraQuery: OperatorIdParam,
    body: { schema: c.ReconciliationDiffRequest, required: true },
    ok: {
      200: json('The comparison', c.ReconciliationDiffResponse),
    },
    errors: {
      ...SCOPED,
      400: 'Malformed JSON; a provider master key that names no operator, or names several',
      ...JSON_BODY,
      422: 'A malformed or unknown field, a field the level does not take or lacks, both a `day` and a period (or neither) at levels `prefix` and `transaction`, a period over 366 days, one bucket twice, or more than 400 transactions of ours in a transaction-level scope (narrow with `prefix`)',
    },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/admin/v1/reports/revenue',
    operationId: 'adminGetRevenueReport',
    tag: 'admin',
    summary: 'Daily figures, GGR and GGY across operators (or of one)',
    description: `${REVENUE_DESCRIPTION} Every operator’s rows are in its own reporting time zone (\`time_zone\` is null in the answer).`,
    auth: 'admin',
    query: c.AdminRevenueReportQuery,
    ok: { 200: json('The report', c.RevenueReportResponse) },
    errors: {
      ...ADMIN,
      404: 'The operator named by `operator_id` does not exist',
      422: 'A malformed or unknown parameter, `to` before `from`, or a period over 366 days',
    },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/admin/v1/reports/revenue.csv',
    operationId: 'adminGetRevenueReportCsv',
    tag: 'admin',
    summary: 'The same report across operators as CSV',
    auth: 'admin',
    query: c.AdminRevenueReportQuery,
    ok: { 200: { description: 'The report as CSV', body: { kind: 'csv' } } },
    errors: {
      ...ADMIN,
      404: 'The operator named by `operator_id` does not exist',
      422: 'A malformed or unknown parameter, `to` before `from`, or a period over 366 days',
    },
    idempotent: true,
  },
  {
    method: 'put',
    path: '/api/admin/v1/operators/{operator_id}/reporting-time-zone',
    operationId: 'adminSetReportingTimeZone',
    tag: 'admin',
    summary: 'Set the time zone of an operator’s reporting days',
    description:
      'Reports and invoices count a round in the day (and month) it was created on in this zone; `UTC` unless set. Changing it changes how every later report groups past rounds (the figures are computed on read).',
    auth: 'admin',
    pathParams: { operator_id: { schema: z.string(), description: 'The operator' } },
    body: { schema: c.ReportingTimeZoneRequest, required: true },
    ok: {
      200: json('Set', c.ReportingTimeZoneResponse),
    },
    errors: {
      ...ADMIN_JSON,
      404: 'Operator not found',
      422: 'Not a time zone name PostgreSQL knows, or an unknown field',
    },
  },

  // ── invoices (issue 38, docs/reports-and-invoices.md "Invoices") ──────────────────────────
  {
    method: 'put',
    path: '/api/admin/v1/operators/{operator_id}/billing-contract',
    operationId: 'adminSetBillingContract',
    tag: 'admin',
    summary: 'Set an operator’s billing contract (revenue share, minimum fee, billing currency)',
    description:
      'A flat rate is one tier from 0; more tiers share the month’s GGR (in the billing currency) marginally: each rate on the part of the GGR inside its tier. The first tier starts at 0, tiers strictly increase. Invoices copy the terms they used; changing the contract changes no issued invoice.',
    auth: 'admin',
    pathParams: { operator_id: { schema: z.string(), description: 'The operator' } },
    body: { schema: c.BillingContractRequest, required: true },
    ok: { 200: json('Set', c.BillingContractResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Operator not found',
      422: 'A malformed or unknown field, a first tier not from 0, or tiers not increasing',
    },
  },
  {
    method: 'get',
    path: '/api/admin/v1/operators/{operator_id}/billing-contract',
    operationId: 'adminGetBillingContract',
    tag: 'admin',
    summary: 'An operator’s billing contract',
    auth: 'admin',
    pathParams: { operator_id: { schema: z.string(), description: 'The operator' } },
    ok: { 200: json('The contract', c.BillingContractResponse) },
    errors: { ...ADMIN, 404: 'No contract (or no such operator)' },
    idempotent: true,
  },
  {
    method: 'post',
    path: '/api/admin/v1/invoices',
    operationId: 'adminIssueInvoice',
    tag: 'admin',
    summary: 'Issue (or preview) an operator’s invoice for a month that is over',
    description:
      'Lines per currency and title group (the titles’ provider family): the month’s GGR (report definition opi-revenue/1, in the operator’s reporting time zone), converted into the billing currency at the rate in force on the month’s last day (the latest loaded on or before it, either way round), each line recording the rate, its date, source and direction and the SHA-256 of its round ids (sorted, joined by newlines). The share follows the contract’s tiers (nothing on a negative GGR), at least the minimum fee. 201: issued and immutable (`invoice_hash`: SHA-256 of its canonical JSON); `preview: true` answers 200 and stores nothing (and may be of the month under way: the month to date). One live invoice per operator and month: another is 409 until a credit note reverses it.',
    auth: 'admin',
    body: { schema: c.IssueInvoiceRequest, required: true },
    ok: {
      201: json('Issued', c.InvoiceResponse),
      200: json('A preview (nothing stored)', c.InvoiceResponse),
    },
    errors: {
      ...ADMIN_JSON,
      404: 'Operator not found',
      409: 'No billing contract, no exchange rate for a currency by the month’s last day, or the month already has a live invoice',
      422: 'A malformed or unknown field, or a month that is not over (a preview: a month that has not begun)',
    },
  },
  {
    method: 'get',
    path: '/api/admin/v1/invoices',
    operationId: 'adminListInvoices',
    tag: 'admin',
    summary: 'Invoices and credit notes, newest month first (at most 500)',
    auth: 'admin',
    query: c.AdminInvoiceListQuery,
    ok: { 200: json('The invoices', c.InvoiceListResponse) },
    errors: { ...ADMIN, 422: 'A malformed or unknown parameter' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/admin/v1/invoices/{invoice_id}',
    operationId: 'adminGetInvoice',
    tag: 'admin',
    summary: 'One invoice or credit note',
    auth: 'admin',
    pathParams: { invoice_id: { schema: z.string(), description: 'The invoice or credit note' } },
    ok: { 200: json('The invoice', c.InvoiceResponse) },
    errors: { ...ADMIN, 404: 'Invoice not found' },
    idempotent: true,
  },
  {
    method: 'post',
    path: '/api/admin/v1/invoices/{invoice_id}/credit-note',
    operationId: 'adminCreditInvoice',
    tag: 'admin',
    summary: 'Reverse an invoice with a credit note',
    description:
      'The credit note is the invoice negated line by line, with its reason; one per invoice. The month can then be invoiced again (with the figures and rates as they are then).',
    auth: 'admin',
    pathParams: { invoice_id: { schema: z.string(), description: 'The invoice to reverse' } },
    body: { schema: c.CreditNoteRequest, required: true },
    ok: { 201: json('The credit note', c.InvoiceResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Invoice not found',
      409: 'Already reversed, or a credit note (only an invoice is reversed)',
      422: 'A malformed or unknown field',
    },
  },
  {
    method: 'get',
    path: '/api/operator/v1/invoices',
    operationId: 'listInvoices',
    tag: 'operator',
    summary: 'The operator’s invoices and credit notes, newest month first',
    auth: 'operator-signed',
    query: c.InvoiceListQuery,
    extraQuery: OperatorIdParam,
    ok: { 200: json('The invoices', c.InvoiceListResponse) },
    errors: { ...SCOPED, 422: 'A malformed or unknown parameter' },
    idempotent: true,
  },
  {
    method: 'get',
    path: '/api/operator/v1/invoices/{invoice_id}',
    operationId: 'getInvoice',
    tag: 'operator',
    summary: 'One of the operator’s invoices or credit notes',
    description: 'Another operator’s invoice is 404, exactly as an unknown one.',
    auth: 'operator-signed',
    pathParams: { invoice_id: { schema: z.string(), description: 'The invoice or credit note' } },
    extraQuery: OperatorIdParam,
    ok: { 200: json('The invoice', c.InvoiceResponse) },
    errors: { ...SCOPED, 404: 'Invoice not found (or another operator’s)' },
    idempotent: true,
  },

  // ── provider admin API: staff accounts of the staff portal ────────────────────────────────
  {
    method: 'get',
    path: '/api/admin/v1/staff',
    operationId: 'adminListStaff',
    tag: 'admin',
    summary: 'Every staff account of the staff portal, by username',
    auth: 'admin',
    ok: {
      200: json('The staff accounts', c.StaffAccountsResponse),
    },
    errors: { ...ADMIN },
  },
  {
    method: 'post',
    path: '/api/admin/v1/staff',
    operationId: 'adminCreateStaff',
    tag: 'admin',
    summary: 'Create a staff account',
    description:
      'Either provider staff (`provider_role`: that role on every operator) or operator staff (`roles`: a role per operator), not both. Without `password` one is generated and returned once (`password` in the answer).',
    auth: 'admin',
    body: { schema: c.CreateStaffRequest, required: true },
    ok: { 201: json('Created', c.StaffAccountResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'An operator named in `roles` does not exist',
      409: 'The username is taken',
      422: 'A malformed field, or both `provider_role` and `roles`',
    },
  },
  {
    method: 'get',
    path: '/api/admin/v1/staff/{username}',
    operationId: 'adminGetStaff',
    tag: 'admin',
    summary: 'One staff account',
    auth: 'admin',
    pathParams: { username: { schema: c.StaffUsername, description: 'The login name' } },
    ok: { 200: json('The account', c.StaffAccountResponse) },
    errors: { ...ADMIN, 404: 'Staff account not found' },
  },
  {
    method: 'patch',
    path: '/api/admin/v1/staff/{username}',
    operationId: 'adminUpdateStaff',
    tag: 'admin',
    summary: 'Change a staff account',
    description:
      '`reset_password: true` generates a new password and returns it once. A new password, `disabled: true` or a `provider_role` change ends the account’s sessions at once.',
    auth: 'admin',
    pathParams: { username: { schema: c.StaffUsername, description: 'The login name' } },
    body: { schema: c.UpdateStaffRequest, required: true },
    ok: { 200: json('The account', c.StaffAccountResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Staff account not found',
      409: 'A `provider_role` for an account that holds operator roles (remove them first)',
      422: 'A malformed field, nothing to change, or both `password` and `reset_password`',
    },
  },
  {
    method: 'put',
    path: '/api/admin/v1/staff/{username}/roles/{operator_id}',
    operationId: 'adminGrantStaffRole',
    tag: 'admin',
    summary: 'Grant (or change) an operator staff member’s role on one operator',
    auth: 'admin',
    pathParams: {
      username: { schema: c.StaffUsername, description: 'The login name' },
      operator_id: { schema: c.OperatorId, description: 'The operator id' },
    },
    body: { schema: c.StaffRoleRequest, required: true },
    ok: { 200: json('The account', c.StaffAccountResponse) },
    errors: {
      ...ADMIN_JSON,
      404: 'Staff account or operator not found',
      409: 'Provider staff already hold a role on every operator',
      422: 'A malformed field',
    },
  },
  {
    method: 'delete',
    path: '/api/admin/v1/staff/{username}/roles/{operator_id}',
    operationId: 'adminRevokeStaffRole',
    tag: 'admin',
    summary: 'Remove an operator staff member’s role on one operator',
    auth: 'admin',
    pathParams: {
      username: { schema: c.StaffUsername, description: 'The login name' },
      operator_id: { schema: c.OperatorId, description: 'The operator id' },
    },
    ok: { 200: json('The account', c.StaffAccountResponse) },
    errors: { ...ADMIN, 404: 'Staff account not found, or it holds no role on that operator' },
  },

  // ── operations ──────────────────────────────────────────────────────────────────────────────
  {
    method: 'get',
    path: '/health',
    operationId: 'health',
    tag: 'ops',
    summary: 'Liveness: 200 whenever the process answers',
    auth: 'public',
    ok: { 200: json('Alive', OUTPUT('HealthResponse')) },
    errors: {},
    idempotent: true,
  },
  {
    method: 'get',
    path: '/ready',
    operationId: 'ready',
    tag: 'ops',
    summary: 'Readiness: PostgreSQL, Temporal and a settlement worker',
    description:
      '200 when PostgreSQL answers, Temporal answers and a settlement worker has polled the task queue within 90 s; otherwise 503 with the same body saying which check failed (never why: the reasons are logged and served on the metrics port). Answers are shared for 1 s.',
    auth: 'public',
    ok: {
      200: json('Ready', OUTPUT('ReadinessResponse')),
      503: json('Not ready', OUTPUT('ReadinessResponse')),
    },
    errors: {},
    idempotent: true,
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'reference',
    tag: 'ops',
    summary: 'This reference as a readable page (public, self-contained HTML)',
    auth: 'public',
    ok: { 200: { description: 'The reference page', body: { kind: 'html' } } },
    errors: {},
    idempotent: true,
  },
];

function OUTPUT(name: string): z.ZodType {
  const s = OUTPUT_SCHEMAS[name];
  if (!s) throw new Error(`no output schema ${name}`);
  return s;
}
function INPUT(name: string): z.ZodType {
  const s = INPUT_SCHEMAS[name];
  if (!s) throw new Error(`no input schema ${name}`);
  return s;
}
