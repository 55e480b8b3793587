import {
  type AuditTransaction,
  CONTRACT_VERSION,
  type OperatorRound,
  type OperatorSession,
  type OperatorTransaction,
  type RoundSearchQuery,
  type TransactionSearchQuery,
} from '@opi/contract';
import type { Pool } from '@opi/db';
import { type BetsBlockedRow, presentBetsBlocked } from '@opi/play/sessions/bets-blocked';
import { wagerStandsSql } from '@opi/play/settlement/wager-stands';
import { notFound } from '@opi/service-kit/http/named-errors';
import { pick } from '@opi/service-kit/http/present';
import { type ReplayKeys, roundDetailsUrl } from '@opi/signing';
import { type Cursor, decodeCursor, encodeCursor } from './cursor.js';

/*
 * Set-based reads of the operator's own records. Every query names the operator. A read by id
 * answers another operator's record exactly as an id that does not exist: 404 with the same body,
 * from the same single statement (issue 34 point 4; docs/audit-and-reconciliation.md). A 403 would
 * tell that the id exists elsewhere, and some ids name a player's prize.
 */

/** Where replay links point (GAME_BASE_URL) and the keys that sign them (issues 26 and 34). */
export interface ReplayLinks {
  baseUrl: string;
  key: ReplayKeys;
}

export function replayLinksOf(deps: { gameBaseUrl: string; replayKey: ReplayKeys }): ReplayLinks {
  return { baseUrl: deps.gameBaseUrl, key: deps.replayKey };
}

/**
 * A journal row as the reads select it: the answer's fields (amount_minor an int8, read as a
 * bigint), its time for the cursor, and whether its round reference names a game round (a
 * promo_win credit's names a payout).
 */
type TransactionRow = Omit<OperatorTransaction, 'contract_version' | 'amount_minor'> & {
  amount_minor: bigint;
  micros: bigint;
  game_round: boolean;
};

const TRANSACTION_COLUMNS = `transaction_id, operator_id, session_id, round_id, player_id, game_symbol,
  transaction_type, amount_minor, trim(currency) AS currency, status, error_code, request_hash,
  (extract(epoch FROM created_at) * 1000000)::bigint AS micros,
  EXISTS (SELECT 1 FROM rounds g WHERE g.round_id = wallet_transactions.round_id) AS game_round`;

export function presentTransaction(r: TransactionRow, links: ReplayLinks): AuditTransaction {
  return {
    ...operatorTransaction(r),
    round_details_url: r.game_round ? roundDetailsUrl(links.baseUrl, links.key, r.round_id) : null,
  };
}

function operatorTransaction(r: TransactionRow): OperatorTransaction {
  return {
    ...pick(r, [
      'transaction_id',
      'operator_id',
      'session_id',
      'round_id',
      'player_id',
      'game_symbol',
      'transaction_type',
      'amount_minor',
      'currency',
      'status',
      'error_code',
    ]),
    contract_version: CONTRACT_VERSION,
    request_hash: r.request_hash,
  };
}

/** Filters as SQL conditions with numbered parameters, the operator always first. */
export class Where {
  readonly params: unknown[];
  private readonly parts: string[] = [];
  constructor(operatorId: string) {
    this.params = [operatorId];
    this.parts.push('operator_id = $1');
  }
  add(sql: (p: string) => string, value: unknown): void {
    if (value === undefined) return;
    this.params.push(value);
    this.parts.push(sql(`$${this.params.length}`));
  }
  /** `column = value` for each column whose value is given, in order. */
  equal(columns: Record<string, unknown>): void {
    for (const [column, value] of Object.entries(columns)) this.add((p) => `${column} = ${p}`, value);
  }
  /** A condition without a parameter (a partial index's predicate). */
  also(sql: string): void {
    this.parts.push(sql);
  }
  keyset(cursor: Cursor | null, idColumn: string): void {
    if (!cursor) return;
    this.params.push(cursor.micros.toString(), cursor.id);
    const m = `$${this.params.length - 1}`;
    const id = `$${this.params.length}`;
    // Newest first: strictly before the last item of the previous page.
    this.parts.push(
      `(created_at, ${idColumn}) < (timestamptz 'epoch' + ${m}::bigint * interval '1 microsecond', ${id})`,
    );
  }
  /**
   * The operator's external player id, on a table that references our internal player (rounds):
   * resolved through players.
   */
  externalPlayer(externalId: unknown): void {
    this.add(
      (p) =>
        `player_id IN (SELECT player_id FROM players WHERE operator_id = $1 AND external_player_id = ${p})`,
      externalId,
    );
  }
  /** Created in [from, to), each bound when given. */
  period(from: unknown, to: unknown): void {
    this.add((p) => `created_at >= ${p}`, from);
    this.add((p) => `created_at < ${p}`, to);
  }
  /**
   * A page newest first from `cursor` on (strictly before the previous page's last item), one row
   * more than `limit` so that page() can tell whether another follows: the ORDER BY and LIMIT of
   * the filtered SELECT. Call it last: it adds the cursor's condition.
   */
  newestFirst(cursor: string | undefined, idColumn: string, limit: number): string {
    this.keyset(decodeCursor(cursor), idColumn);
    this.params.push(limit + 1);
    return `ORDER BY created_at DESC, ${idColumn} DESC LIMIT $${this.params.length}`;
  }
  get sql(): string {
    return this.parts.join(' AND ');
  }
}

/**
 * The rounds `w` keeps, a page newest first (the filtered SELECT of rounds alone, then each joined
 * to its player): the SELECT of `columns` of `r` (the round) and `p` (its player).
 */
export function roundsPageSql(columns: string, w: Where, cursor: string | undefined, limit: number): string {
  const order = w.newestFirst(cursor, 'round_id', limit);
  return `SELECT ${columns}
     FROM (SELECT * FROM rounds WHERE ${w.sql} ${order}) r
     JOIN players p ON p.player_id = r.player_id
     ORDER BY r.created_at DESC, r.round_id DESC`;
}

/** The answer of a search: the first `limit` rows presented, and the cursor after the last (its `id` column) when more follow. */
export function page<Row extends { micros: bigint }, Item>(
  rows: Row[],
  limit: number,
  id: { [K in keyof Row]: Row[K] extends string ? K : never }[keyof Row],
  present: (r: Row) => Item,
) {
  const more = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(present),
    limit,
    next_cursor: more && last ? encodeCursor({ micros: last.micros, id: last[id] as string }) : null,
  };
}

export async function searchTransactions(
  pool: Pool,
  links: ReplayLinks,
  operatorId: string,
  q: TransactionSearchQuery,
) {
  const w = new Where(operatorId);
  w.equal({
    round_id: q.round_id,
    session_id: q.session_id,
    player_id: q.player_id,
    currency: q.currency,
    status: q.status,
    transaction_type: q.type,
  });
  w.period(q.from, q.to);
  const order = w.newestFirst(q.cursor, 'transaction_id', q.limit);
  const { rows } = await pool.query<TransactionRow>(
    `SELECT ${TRANSACTION_COLUMNS} FROM wallet_transactions WHERE ${w.sql} ${order}`,
    w.params,
  );
  return page(rows, q.limit, 'transaction_id', (r) => presentTransaction(r, links));
}

/**
 * The answer to a read by id that found none of the operator's records: the same whether the id
 * is unknown or another operator's (no second statement looks elsewhere, so the time is the same).
 */
export function notOwned(): never {
  throw notFound();
}

export async function getTransaction(pool: Pool, links: ReplayLinks, operatorId: string, id: string) {
  const { rows } = await pool.query<TransactionRow>(
    `SELECT ${TRANSACTION_COLUMNS} FROM wallet_transactions WHERE transaction_id = $1 AND operator_id = $2`,
    [id, operatorId],
  );
  if (!rows[0]) return notOwned();
  return presentTransaction(rows[0], links);
}

interface RoundRow {
  round_id: string;
  operator_id: string;
  session_id: string;
  player_id: string;
  game_symbol: string;
  provider_id: OperatorRound['provider_id'];
  currency: string;
  status: OperatorRound['status'];
  rejection_code: string | null;
  stuck: boolean;
  bet_minor: bigint;
  win_minor: bigint;
  created_at: Date;
  settled_at: Date | null;
  jackpot_id: string | null;
  jackpot_contribution_micros: string | null;
  jackpot_win_minor: bigint;
  /** Whether the round's wager stands (issue 34: no result of the round is shown before). */
  wager_stands: boolean;
  /** Issue 39: the round's stake ladder (a primary-key read when the round has one), or null. */
  stake_ladder: NonNullable<OperatorRound['stake_ladder']> | null;
  micros: bigint;
}

const ROUND_COLUMNS = `r.round_id, r.operator_id, r.session_id, p.external_player_id AS player_id,
  r.symbol AS game_symbol, r.provider_id, trim(r.currency) AS currency, r.status,
  CASE WHEN r.status = 'rejected' THEN (SELECT w.error_code FROM wallet_transactions w
    WHERE w.transaction_id = r.round_id || ':debit') END AS rejection_code, r.stuck, r.bet_minor,
  r.win_minor, r.created_at, r.settled_at, r.jackpot_id, r.jackpot_contribution_micros::text,
  r.jackpot_win_minor, ${wagerStandsSql('r')} AS wager_stands,
  (SELECT json_build_object('ladder_id', l.ladder_id, 'version', l.version, 'rate', json_build_object(
     'base', trim(l.rate_base), 'quote', trim(l.rate_quote), 'date', to_char(l.rate_date, 'YYYY-MM-DD'),
     'source', l.rate_source, 'value', trim_scale(l.rate)::text, 'direction', l.direction))
     FROM stake_ladders l WHERE l.ladder_id = r.stake_ladder_id) AS stake_ladder,
  (extract(epoch FROM r.created_at) * 1000000)::bigint AS micros`;

function presentRound(r: RoundRow, links: ReplayLinks): OperatorRound {
  return {
    round_id: r.round_id,
    operator_id: r.operator_id,
    session_id: r.session_id,
    player_id: r.player_id,
    game_symbol: r.game_symbol,
    provider_id: r.provider_id,
    currency: r.currency,
    status: r.status,
    rejection_code: r.rejection_code,
    stuck: r.stuck,
    bet_minor: r.bet_minor,
    win_minor: r.win_minor,
    created_at: r.created_at.toISOString(),
    settled_at: r.settled_at?.toISOString() ?? null,
    // A round that fed a jackpot shows it (issue 25); any other round's shape is unchanged.
    ...(r.jackpot_id === null
      ? {}
      : {
          jackpot_id: r.jackpot_id,
          jackpot_contribution_micros: r.jackpot_contribution_micros ?? '0',
          // The hit is decided with the round, before its debit: 0 until the wager stands (issue 34).
          jackpot_win_minor: r.wager_stands ? r.jackpot_win_minor : 0n,
        }),
    // A round played at a stake ladder (issue 39) names it, its version and rate.
    ...(r.stake_ladder ? { stake_ladder: r.stake_ladder } : {}),
    round_details_url: roundDetailsUrl(links.baseUrl, links.key, r.round_id),
  };
}

export async function searchRounds(pool: Pool, links: ReplayLinks, operatorId: string, q: RoundSearchQuery) {
  const w = new Where(operatorId);
  w.add((p) => `session_id = ${p}`, q.session_id);
  w.externalPlayer(q.player_id);
  w.equal({ currency: q.currency, status: q.status, symbol: q.game_symbol });
  w.add((p) => `stuck = ${p}::boolean`, q.stuck);
  w.period(q.from, q.to);
  const { rows } = await pool.query<RoundRow>(roundsPageSql(ROUND_COLUMNS, w, q.cursor, q.limit), w.params);
  return page(rows, q.limit, 'round_id', (r) => presentRound(r, links));
}

export async function getRound(pool: Pool, links: ReplayLinks, operatorId: string, roundId: string) {
  const { rows } = await pool.query<RoundRow>(
    `SELECT ${ROUND_COLUMNS} FROM rounds r JOIN players p ON p.player_id = r.player_id
     WHERE r.round_id = $1 AND r.operator_id = $2`,
    [roundId, operatorId],
  );
  if (!rows[0]) return notOwned();
  const tx = await pool.query<TransactionRow>(
    `SELECT ${TRANSACTION_COLUMNS} FROM wallet_transactions
     WHERE round_id = $1 AND operator_id = $2 ORDER BY created_at, transaction_id`,
    [roundId, operatorId],
  );
  return {
    ...presentRound(rows[0], links),
    transactions: tx.rows.map((r) => presentTransaction(r, links)),
  };
}

export async function getSession(
  pool: Pool,
  operatorId: string,
  sessionId: string,
): Promise<OperatorSession> {
  const { rows } = await pool.query<
    BetsBlockedRow & {
      session_id: string;
      operator_id: string;
      player_id: string;
      game_symbol: string;
      provider_id: OperatorSession['provider_id'];
      currency: string;
      status: OperatorSession['status'];
      device: string | null;
      lang: string | null;
      return_url: string | null;
      created_at: Date;
      last_activity_at: Date;
      expires_at: Date | null;
      total: number;
      open: number;
      stuck: number;
    }
  >(
    `SELECT s.session_id, s.operator_id, p.external_player_id AS player_id, s.symbol AS game_symbol,
            s.provider_id, trim(s.currency) AS currency, s.status, s.device, s.lang, s.return_url,
            s.created_at, s.last_activity_at, s.expires_at,
            s.bets_blocked_code, s.bets_blocked_at, s.bets_blocked_round_id,
            (SELECT count(*)::int FROM rounds r WHERE r.operator_id = s.operator_id AND r.session_id = s.session_id) AS total,
            (SELECT count(*)::int FROM rounds r WHERE r.session_id = s.session_id AND r.status = 'open') AS open,
            (SELECT count(*)::int FROM rounds r WHERE r.operator_id = s.operator_id AND r.session_id = s.session_id AND r.stuck) AS stuck
     FROM sessions s JOIN players p ON p.player_id = s.player_id
     WHERE s.session_id = $1 AND s.operator_id = $2`,
    [sessionId, operatorId],
  );
  const s = rows[0];
  if (!s) return notOwned();
  return {
    session_id: s.session_id,
    operator_id: s.operator_id,
    player_id: s.player_id,
    game_symbol: s.game_symbol,
    provider_id: s.provider_id,
    currency: s.currency,
    status: s.status,
    device: s.device,
    lang: s.lang,
    return_url: s.return_url,
    created_at: s.created_at.toISOString(),
    last_activity_at: s.last_activity_at.toISOString(),
    expires_at: s.expires_at?.toISOString() ?? null,
    rounds: { total: s.total, open: s.open, stuck: s.stuck },
    bets_blocked: presentBetsBlocked(s),
  };
}
