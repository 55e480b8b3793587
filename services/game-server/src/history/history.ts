import type { Pool } from '@opi/db';
import { formatMinor, minorToDecimalString } from '@opi/money';
import { displayFacts } from '@opi/play/sessions/display';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { wagerStandsSql } from '@opi/play/settlement/wager-stands';
import type { HttpError } from '@opi/service-kit/http/errors';
import { badRequest } from '@opi/service-kit/http/named-errors';
import { type ReplayKeys, SHARE_LINK_TTL_SECONDS, shareReplayUrl } from '@opi/signing';
import type { Context } from 'koa';

/*
 * The player's own history (issue 26, docs/game-pages.md "History panel"): `GET
 * /api/runtime/history`, called by every game page (slot, native, crash) with its own runtime
 * token. The session's player's rounds with the session's operator, newest first, over the last
 * HISTORY_WINDOW_DAYS days: for the session's title (`scope=title`, the default) or for all titles
 * (`scope=all`). Keyset pages: `limit` (1..50, default 20) and `before` (the previous page's
 * `next_before`). Each round links to its replay page by a share link made for this read
 * (issue 34: ten minutes, SHARE_LINK_TTL_SECONDS; never the round's permanent details link, which
 * is for the operator's staff), and shows nothing of its result (win, jackpot win) until the
 * round's wager stands (its debit applied: @opi/play/settlement/wager-stands).
 *
 * The query is a range of one index read backwards: rounds_player_title_history (migration 24:
 * operator_id, player_id, symbol, created_at, round_id) for one title, rounds_operator_player
 * (migration 7: operator_id, player_id, created_at, round_id) for all titles.
 */

/** How far back the panel reads (UKGC RTS 1B: three months of the player's history). */
export const HISTORY_WINDOW_DAYS = 90;
export const HISTORY_MAX_LIMIT = 50;
export const HISTORY_DEFAULT_LIMIT = 20;

/** What the history route needs (a narrow slice of GameDeps: no import cycle through deps.ts). */
export interface HistoryDeps {
  pool: Pool;
  gameBaseUrl: string;
  replayKey: ReplayKeys;
}

export interface HistoryQuery {
  scope: 'title' | 'all';
  limit: number;
  before: { at: string; roundId: string } | null;
}

export interface HistoryItem {
  round_id: string;
  symbol: string;
  title: string;
  created_at: string;
  status: string;
  currency: string;
  /** What the player staked (0 for a free round: the operator's campaign paid it). */
  stake_minor: string;
  stake: string;
  /**
   * Everything the round paid: the game's win and any jackpot win; "0" until the round's wager
   * stands (the round is then `open`: its result is not told before its debit is applied).
   */
  win_minor: string;
  win: string;
  jackpot_win_minor: string;
  free_round: boolean;
  /** The free round's stake (the campaign's), or null. */
  free_round_stake_minor: string | null;
  /** A time-limited share link to the round's replay page, made for this read (replay_expires_at). */
  replay_url: string;
  /**
   * Issue 39: the amounts as the page shows them when the round's currency is a crypto currency
   * or the session shows a display unit (`mBTC 1.00`, `USDT 0.50`), formatted exactly on the
   * server; null for a fiat currency in its own unit (the page formats it in its language).
   */
  shown: { stake: string; win: string; free_round_stake: string | null } | null;
}

export interface HistoryPage {
  scope: 'title' | 'all';
  symbol: string;
  window_days: number;
  rounds: HistoryItem[];
  /** Pass as `before` for the next (older) page; null: no more rounds in the window. */
  next_before: string | null;
  /** When this read's replay links expire (read again for new ones). */
  replay_expires_at: string;
}

const CURSOR_AT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const ROUND_ID = /^[A-Za-z0-9_:.-]{1,128}$/;

function badQuery(loc: string, msg: string): HttpError {
  return badRequest([{ loc: ['query', loc], msg, type: 'value_error' }]);
}

function one(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw badQuery(name, `${name} may be given once`);
  return value;
}

/** A page's cursor: the last round's creation time (microseconds, UTC) and id, base64url. */
export function encodeCursor(at: string, roundId: string): string {
  return Buffer.from(`${at} ${roundId}`, 'utf8').toString('base64url');
}

function decodeCursor(value: string): { at: string; roundId: string } {
  if (!/^[A-Za-z0-9_-]{1,256}$/.test(value)) throw badQuery('before', 'not a cursor of this list');
  const [at, roundId, ...rest] = Buffer.from(value, 'base64url').toString('utf8').split(' ');
  if (rest.length || !at || !roundId || !CURSOR_AT.test(at) || !ROUND_ID.test(roundId))
    throw badQuery('before', 'not a cursor of this list');
  if (Number.isNaN(Date.parse(at))) throw badQuery('before', 'not a cursor of this list');
  return { at, roundId };
}

/** The query string: unknown parameters are refused too (a typo is no silent default). */
export function parseHistoryQuery(ctx: Context): HistoryQuery {
  for (const name of Object.keys(ctx.query)) {
    if (!['scope', 'limit', 'before'].includes(name)) throw badQuery(name, 'unknown parameter');
  }
  const scope = one(ctx, 'scope') ?? 'title';
  if (scope !== 'title' && scope !== 'all') throw badQuery('scope', "scope is 'title' or 'all'");
  const rawLimit = one(ctx, 'limit');
  let limit = HISTORY_DEFAULT_LIMIT;
  if (rawLimit !== undefined) {
    if (!/^[1-9][0-9]{0,2}$/.test(rawLimit) || Number(rawLimit) > HISTORY_MAX_LIMIT)
      throw badQuery('limit', `limit is a whole number from 1 to ${HISTORY_MAX_LIMIT}`);
    limit = Number(rawLimit);
  }
  const rawBefore = one(ctx, 'before');
  return { scope, limit, before: rawBefore === undefined ? null : decodeCursor(rawBefore) };
}

interface Row {
  round_id: string;
  symbol: string;
  title: string;
  cursor_at: string;
  status: string;
  currency: string;
  bet_minor: string;
  win_minor: string;
  jackpot_win_minor: string;
  free_round_bet_minor: string | null;
  free_round: boolean;
  wager_stands: boolean;
}

/** The statement (exported for the plan test): $1 operator, $2 player, $3 symbol or null, $4/$5 cursor, $6 limit. */
export function historySql(scope: 'title' | 'all', paged: boolean): string {
  return `SELECT r.round_id, r.symbol, g.title,
            to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at,
            r.status, trim(r.currency) AS currency, r.bet_minor::text, r.win_minor::text,
            r.jackpot_win_minor::text, r.free_round_bet_minor::text,
            r.free_round_campaign_id IS NOT NULL AS free_round, ${wagerStandsSql('r')} AS wager_stands
     FROM rounds r JOIN games g ON g.symbol = r.symbol
     WHERE r.operator_id = $1 AND r.player_id = $2
       ${scope === 'title' ? 'AND r.symbol = $3' : 'AND $3::text IS NULL'}
       AND r.created_at >= now() - make_interval(days => ${HISTORY_WINDOW_DAYS})
       ${paged ? 'AND (r.created_at, r.round_id) < ($4::timestamptz, $5::text)' : 'AND $4::text IS NULL AND $5::text IS NULL'}
     ORDER BY r.created_at DESC, r.round_id DESC
     LIMIT $6`;
}

export async function readHistory(
  deps: HistoryDeps,
  session: Pick<RuntimeSession, 'operator_id' | 'player_id' | 'symbol'> &
    Partial<Pick<RuntimeSession, 'currency' | 'display_unit'>>,
  query: HistoryQuery,
): Promise<HistoryPage> {
  const { rows } = await deps.pool.query<Row>(historySql(query.scope, query.before !== null), [
    session.operator_id,
    session.player_id,
    query.scope === 'title' ? session.symbol : null,
    query.before?.at ?? null,
    query.before?.roundId ?? null,
    query.limit + 1,
  ]);
  const more = rows.length > query.limit;
  const page = more ? rows.slice(0, query.limit) : rows;
  const last = page.at(-1);
  const now = Date.now();
  return {
    scope: query.scope,
    symbol: session.symbol,
    window_days: HISTORY_WINDOW_DAYS,
    rounds: page.map((r) => {
      // The jackpot win is written with the round, before its debit: told once the wager stands.
      const jackpot = r.wager_stands ? r.jackpot_win_minor : '0';
      const win = BigInt(r.win_minor) + BigInt(jackpot);
      const share = shareReplayUrl(deps.gameBaseUrl, deps.replayKey, r.round_id, now);
      // The session's unit for rounds in its currency; another currency's rounds in their first unit.
      const display = displayFacts(
        r.currency === session.currency
          ? { currency: r.currency, display_unit: session.display_unit ?? null }
          : { currency: r.currency },
      );
      const inUnit = display.crypto || display.unit !== r.currency || display.label !== r.currency;
      const fmt = (minor: string | bigint) => formatMinor(minor, r.currency, display.unit);
      return {
        round_id: r.round_id,
        symbol: r.symbol,
        title: r.title,
        created_at: r.cursor_at,
        status: r.status,
        currency: r.currency,
        stake_minor: r.bet_minor,
        stake: minorToDecimalString(BigInt(r.bet_minor), r.currency),
        win_minor: win.toString(),
        win: minorToDecimalString(win, r.currency),
        jackpot_win_minor: jackpot,
        free_round: r.free_round,
        free_round_stake_minor: r.free_round_bet_minor,
        replay_url: share.url,
        shown: inUnit
          ? {
              stake: fmt(r.bet_minor),
              win: fmt(win),
              free_round_stake: r.free_round_bet_minor === null ? null : fmt(r.free_round_bet_minor),
            }
          : null,
      };
    }),
    next_before: more && last ? encodeCursor(last.cursor_at, last.round_id) : null,
    // shareReplayUrl's expiry for links made now (whole seconds).
    replay_expires_at: new Date((Math.floor(now / 1000) + SHARE_LINK_TTL_SECONDS) * 1000).toISOString(),
  };
}

/** The route's handler: the runtime guard has authenticated the session (any family's token). */
export function playerHistory(deps: HistoryDeps) {
  return async (ctx: Context) => {
    const query = parseHistoryQuery(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await readHistory(deps, ctx.state.session as RuntimeSession, query);
  };
}
