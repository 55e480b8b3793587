import { randomUUID } from 'node:crypto';
import { OperatorApiError } from './errors.js';
import { operatorSignatureHeaders } from './signing.js';
import type {
  AuditTransaction,
  BalanceRefreshRequest,
  BalanceRefreshResponse,
  Campaign,
  CampaignListQuery,
  CampaignListResponse,
  CampaignResponse,
  CreateCampaignRequest,
  GameArtQuery,
  GameResponse,
  GamesListQuery,
  GamesListResponse,
  InvoiceListResponse,
  InvoiceResponse,
  JackpotContributionQuery,
  JackpotContributionSearchResponse,
  JackpotListResponse,
  JackpotWinQuery,
  JackpotWinSearchResponse,
  LaunchUrlRequest,
  LaunchUrlResponse,
  LeaderboardQuery,
  NativeRoundHistoryResponse,
  NativeSessionHistory,
  OperatorContractResponse,
  OperatorJackpotContribution,
  OperatorJackpotWin,
  OperatorPromoPayout,
  OperatorRound,
  OperatorSessionResponse,
  OperatorTransactionResponse,
  PrizeDropListResponse,
  PromoPayoutQuery,
  PromoPayoutResponse,
  PromoPayoutSearchResponse,
  ReconciliationDiffRequest,
  ReconciliationDiffResponse,
  ReconciliationQuery,
  ReconciliationResponse,
  ReplayUrlResponse,
  RevenueReportQuery,
  RevenueReportResponse,
  RoundDetailResponse,
  RoundSearchQuery,
  RoundSearchResponse,
  TournamentLeaderboardResponse,
  TournamentListResponse,
  TransactionSearchQuery,
  TransactionSearchResponse,
} from './types.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 3; 1 turns retries off). */
  attempts?: number;
  /** Delay before the second attempt, doubled each time up to maxDelayMs, with jitter (default 200). */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface OperatorClientOptions {
  /** The service base address, e.g. `https://games.provider.example`. */
  baseUrl: string;
  /** Your operator API key (it is also the HMAC key of the request signature). */
  apiKey: string;
  /** Sign every request (pp-operator-v1). Default true; production requires it. */
  sign?: boolean;
  /**
   * Provider master keys only: the operator to act for, sent as `operator_id` in the (signed)
   * query and as `x-operator-id` (the service refuses the header alone on a signed request).
   */
  operatorId?: string;
  /** Per-attempt timeout, milliseconds (default 10 000). */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Another fetch (tests, instrumentation). */
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** Your correlation id, sent as `x-request-id` on every attempt of this call (default: a new UUID). */
  requestId?: string;
  /** W3C trace context to join: the wallet callbacks this call causes carry its trace id. */
  traceparent?: string;
  signal?: AbortSignal;
}

/**
 * How a call may be retried.
 * - `idempotent`: reads, and the balance-refresh signal (a repeat only causes one more balance
 *   read). Retried after a network error, a timeout, or 502/503/504.
 * - `not-sent-only`: the launch. A relaunch of the same player, game and currency resumes the
 *   session with a fresh token and the previous launch URL stops working, so a launch whose answer
 *   was lost is not repeated blindly (two racing attempts could leave the player with the URL that
 *   was superseded). Retried only when the connection was never made (the service cannot have seen
 *   it); otherwise the error goes to you: launch again when the player asks again.
 */
export type RetrySafety = 'idempotent' | 'not-sent-only';

/** Network errors that mean the request never left this machine. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const RETRY_STATUS = new Set([502, 503, 504]);

/** The error code of a fetch failure (`ECONNREFUSED` ...), if any. */
function networkCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string; cause?: { code?: string } } };
  return e?.cause?.code ?? e?.cause?.cause?.code ?? e?.code;
}

/**
 * JSON with int64 amounts checked: an integer beyond 2^53 cannot be represented exactly by a JS
 * number, so it fails the call rather than being silently rounded.
 */
function parseJson(text: string): unknown {
  return JSON.parse(text, (_key, value) => {
    if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw new RangeError(`an integer beyond 2^53 (${value}) cannot be read exactly`);
    }
    return value;
  });
}

type QueryValue = string | number | boolean | undefined | null;
function withQuery(path: string, query?: Record<string, QueryValue>): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) params.append(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}
const seg = encodeURIComponent;

/**
 * The operator client: every provider and operator audit call, signed (a fresh timestamp and nonce
 * on every attempt: a nonce is never sent twice), retried where that is safe, typed from the
 * service's OpenAPI document. Errors are OperatorApiError.
 */
export class OperatorClient {
  private readonly base: string;
  private readonly fetchFn: typeof fetch;
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(private readonly options: OperatorClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.fetchFn = options.fetch ?? fetch;
    this.attempts = Math.max(1, options.retry?.attempts ?? 3);
    this.baseDelayMs = options.retry?.baseDelayMs ?? 200;
    this.maxDelayMs = options.retry?.maxDelayMs ?? 2_000;
  }

  // ── provider API ──────────────────────────────────────────────────────────────────────────
  /** The operator catalog (launch-available titles). */
  listGames(query: GamesListQuery = {}, opts?: CallOptions): Promise<GamesListResponse> {
    return this.json('GET', withQuery('/api/provider/v1/games', query), 'idempotent', opts);
  }
  /** One catalog game by symbol or slug (404 when not in the operator catalog). */
  getGame(symbol: string, opts?: CallOptions): Promise<GameResponse> {
    return this.json('GET', `/api/provider/v1/games/${seg(symbol)}`, 'idempotent', opts);
  }
  /** The public artwork URL of a title (no call is made; the endpoint needs no key). */
  gameArtUrl(symbol: string, query: GameArtQuery = {}): string {
    return this.base + withQuery(`/api/provider/v1/game-art/${seg(symbol)}`, query);
  }
  /**
   * Creates or resumes the player's session and answers its launch URL, a bearer secret: open it
   * unchanged in the player's browser. Not retried once the request may have been sent (see
   * RetrySafety).
   */
  createLaunchUrl(body: LaunchUrlRequest, opts?: CallOptions): Promise<LaunchUrlResponse> {
    return this.json('POST', '/api/provider/v1/launch-url', 'not-sent-only', opts, body);
  }
  /** Signals the player's open game pages to read their balance again (after a deposit, say). */
  refreshPlayerBalance(body: BalanceRefreshRequest, opts?: CallOptions): Promise<BalanceRefreshResponse> {
    return this.json('POST', '/api/provider/v1/player-balance-refresh', 'idempotent', opts, body);
  }
  /** Native (prov_c) session history: every stage of every round of the session. */
  getNativeSessionHistory(sessionId: string, opts?: CallOptions): Promise<NativeSessionHistory> {
    return this.json(
      'GET',
      withQuery('/api/provider/v1/native/history', { session_id: sessionId }),
      'idempotent',
      opts,
    );
  }
  /** Native (prov_c) round history: intent, stages, ledger and wallet calls. */
  getNativeRoundHistory(
    roundId: string,
    sessionId: string,
    opts?: CallOptions,
  ): Promise<NativeRoundHistoryResponse> {
    return this.json(
      'GET',
      withQuery(`/api/provider/v1/native/history/${seg(roundId)}`, { session_id: sessionId }),
      'idempotent',
      opts,
    );
  }

  // ── free-round campaigns (docs/free-rounds.md) ─────────────────────────────────────────────
  /**
   * Creates a free-round campaign. `campaign_id` is the idempotency key: the same request again
   * answers the campaign as it is now, so it is safe to retry; another body under the id is 409.
   */
  createCampaign(body: CreateCampaignRequest, opts?: CallOptions): Promise<CampaignResponse> {
    return this.json('POST', '/api/provider/v1/free-rounds', 'idempotent', opts, body);
  }
  /** One page of the operator's campaigns (campaign id order; `next_cursor` for the next). */
  listCampaigns(query: CampaignListQuery = {}, opts?: CallOptions): Promise<CampaignListResponse> {
    return this.json('GET', withQuery('/api/provider/v1/free-rounds', query), 'idempotent', opts);
  }
  /** Every campaign of the operator, page after page. */
  async *campaigns(query: CampaignListQuery = {}, opts?: CallOptions): AsyncGenerator<Campaign> {
    let cursor: string | undefined = query.cursor;
    do {
      const page = await this.listCampaigns({ ...query, ...(cursor ? { cursor } : {}) }, opts);
      yield* page.data.items;
      cursor = page.data.next_cursor ?? undefined;
    } while (cursor);
  }
  /** One campaign with its players' remaining rounds and won totals (404 when unknown). */
  getCampaign(campaignId: string, opts?: CallOptions): Promise<CampaignResponse> {
    return this.json('GET', `/api/provider/v1/free-rounds/${seg(campaignId)}`, 'idempotent', opts);
  }
  /** Grants the campaign's rounds to more players (idempotent per player). */
  addPlayers(campaignId: string, players: string[], opts?: CallOptions): Promise<CampaignResponse> {
    return this.json('POST', `/api/provider/v1/free-rounds/${seg(campaignId)}/players`, 'idempotent', opts, {
      players,
    });
  }
  /** Cancels the campaign (idempotent): unplayed rounds are void, rounds in flight settle. */
  cancelCampaign(campaignId: string, opts?: CallOptions): Promise<CampaignResponse> {
    return this.json('DELETE', `/api/provider/v1/free-rounds/${seg(campaignId)}`, 'idempotent', opts);
  }

  // ── jackpots (docs/jackpots-and-promotions.md) ─────────────────────────────────────────────
  /** The operator's progressive jackpots for its lobby ticker: levels and each pool's whole minor units per currency. */
  listJackpots(opts?: CallOptions): Promise<JackpotListResponse> {
    return this.json('GET', '/api/provider/v1/jackpots', 'idempotent', opts);
  }
  /** The tournaments the operator is opted in to: window, scoring, status, titles and prizes per currency. */
  listTournaments(opts?: CallOptions): Promise<TournamentListResponse> {
    return this.json('GET', '/api/provider/v1/tournaments', 'idempotent', opts);
  }
  /**
   * A tournament's leaderboard (live until its end, then frozen): the top `limit` of each currency,
   * the operator's own players in full, other operators' by a display id.
   */
  getTournamentLeaderboard(
    tournamentId: string,
    query: LeaderboardQuery = {},
    opts?: CallOptions,
  ): Promise<TournamentLeaderboardResponse> {
    return this.json(
      'GET',
      withQuery(`/api/provider/v1/tournaments/${seg(tournamentId)}/leaderboard`, query),
      'idempotent',
      opts,
    );
  }
  /** The prize drops the operator is opted in to, with the prizes left per currency. */
  listPrizeDrops(opts?: CallOptions): Promise<PrizeDropListResponse> {
    return this.json('GET', '/api/provider/v1/prize-drops', 'idempotent', opts);
  }

  // ── operator audit API (always signed) ────────────────────────────────────────────────────
  getContract(opts?: CallOptions): Promise<OperatorContractResponse> {
    return this.json('GET', '/api/operator/v1/contract', 'idempotent', opts);
  }
  getSession(sessionId: string, opts?: CallOptions): Promise<OperatorSessionResponse> {
    return this.json('GET', `/api/operator/v1/sessions/${seg(sessionId)}`, 'idempotent', opts);
  }
  searchTransactions(
    query: TransactionSearchQuery = {},
    opts?: CallOptions,
  ): Promise<TransactionSearchResponse> {
    return this.json('GET', withQuery('/api/operator/v1/transactions', query), 'idempotent', opts);
  }
  /** Every transaction matching `query`, page after page (newest first). */
  async *transactions(
    query: TransactionSearchQuery = {},
    opts?: CallOptions,
  ): AsyncGenerator<AuditTransaction> {
    let cursor: string | undefined = query.cursor;
    do {
      const page = await this.searchTransactions({ ...query, ...(cursor ? { cursor } : {}) }, opts);
      yield* page.data.items;
      cursor = page.data.next_cursor ?? undefined;
    } while (cursor);
  }
  getTransaction(transactionId: string, opts?: CallOptions): Promise<OperatorTransactionResponse> {
    return this.json('GET', `/api/operator/v1/transactions/${seg(transactionId)}`, 'idempotent', opts);
  }
  searchRounds(query: RoundSearchQuery = {}, opts?: CallOptions): Promise<RoundSearchResponse> {
    return this.json('GET', withQuery('/api/operator/v1/rounds', query), 'idempotent', opts);
  }
  /** Every round matching `query`, page after page (newest first). */
  async *rounds(query: RoundSearchQuery = {}, opts?: CallOptions): AsyncGenerator<OperatorRound> {
    let cursor: string | undefined = query.cursor;
    do {
      const page = await this.searchRounds({ ...query, ...(cursor ? { cursor } : {}) }, opts);
      yield* page.data.items;
      cursor = page.data.next_cursor ?? undefined;
    } while (cursor);
  }
  getRound(roundId: string, opts?: CallOptions): Promise<RoundDetailResponse> {
    return this.json('GET', `/api/operator/v1/rounds/${seg(roundId)}`, 'idempotent', opts);
  }
  /**
   * A link to the round's replay page to give a player: time-limited (ten minutes, `expires_at`),
   * reusable until then. Each call issues a new one (safe to retry). Another operator's round and
   * an unknown one are 404. Staff use the round's stable `round_details_url` instead.
   */
  createReplayUrl(roundId: string, opts?: CallOptions): Promise<ReplayUrlResponse> {
    return this.json('POST', `/api/operator/v1/rounds/${seg(roundId)}/replay-url`, 'idempotent', opts);
  }
  /** The operator's rounds that fed a jackpot (contribution in micros, an exact decimal string), newest first. */
  searchJackpotContributions(
    query: JackpotContributionQuery = {},
    opts?: CallOptions,
  ): Promise<JackpotContributionSearchResponse> {
    return this.json('GET', withQuery('/api/operator/v1/jackpot-contributions', query), 'idempotent', opts);
  }
  /** Every contributing round matching `query`, page after page (newest first). */
  async *jackpotContributions(
    query: JackpotContributionQuery = {},
    opts?: CallOptions,
  ): AsyncGenerator<OperatorJackpotContribution> {
    let cursor: string | undefined = query.cursor;
    do {
      const page = await this.searchJackpotContributions({ ...query, ...(cursor ? { cursor } : {}) }, opts);
      yield* page.data.items;
      cursor = page.data.next_cursor ?? undefined;
    } while (cursor);
  }
  /** The operator's jackpot hits (pending, paid or forfeited), newest first. */
  searchJackpotWins(query: JackpotWinQuery = {}, opts?: CallOptions): Promise<JackpotWinSearchResponse> {
    return this.json('GET', withQuery('/api/operator/v1/jackpot-wins', query), 'idempotent', opts);
  }
  /** Every jackpot hit matching `query`, page after page (newest first). */
  async *jackpotWins(query: JackpotWinQuery = {}, opts?: CallOptions): AsyncGenerator<OperatorJackpotWin> {
    let cursor: string | undefined = query.cursor;
    do {
      const page = await this.searchJackpotWins({ ...query, ...(cursor ? { cursor } : {}) }, opts);
      yield* page.data.items;
      cursor = page.data.next_cursor ?? undefined;
    } while (cursor);
  }
  /** The operator's promotional payouts (tournaments, prize drops), newest first. */
  searchPromoPayouts(query: PromoPayoutQuery = {}, opts?: CallOptions): Promise<PromoPayoutSearchResponse> {
    return this.json('GET', withQuery('/api/operator/v1/promo-payouts', query), 'idempotent', opts);
  }
  /** Every promotional payout matching `query`, page after page (newest first). */
  async *promoPayouts(query: PromoPayoutQuery = {}, opts?: CallOptions): AsyncGenerator<OperatorPromoPayout> {
    let cursor: string | undefined = query.cursor;
    do {
      const page = await this.searchPromoPayouts({ ...query, ...(cursor ? { cursor } : {}) }, opts);
      yield* page.data.items;
      cursor = page.data.next_cursor ?? undefined;
    } while (cursor);
  }
  /** One of the operator's promotional payouts (404 when unknown or another operator's). */
  getPromoPayout(payoutId: string, opts?: CallOptions): Promise<PromoPayoutResponse> {
    return this.json('GET', `/api/operator/v1/promo-payouts/${seg(payoutId)}`, 'idempotent', opts);
  }
  getReconciliation(query: ReconciliationQuery = {}, opts?: CallOptions): Promise<ReconciliationResponse> {
    return this.json('GET', withQuery('/api/operator/v1/reconciliation', query), 'idempotent', opts);
  }
  /** The reconciliation totals as CSV text (header row, one row per currency, CRLF). */
  async getReconciliationCsv(query: ReconciliationQuery = {}, opts?: CallOptions): Promise<string> {
    const res = await this.request(
      'GET',
      withQuery('/api/operator/v1/reconciliation.csv', query),
      'idempotent',
      opts,
    );
    return res.text;
  }

  /** Issue 38: the daily figures, GGR and GGY of the operator's rounds (by day, title or currency). */
  getRevenueReport(query: RevenueReportQuery, opts?: CallOptions): Promise<RevenueReportResponse> {
    return this.json('GET', withQuery('/api/operator/v1/reports/revenue', query), 'idempotent', opts);
  }
  /** The same report as CSV text. */
  async getRevenueReportCsv(query: RevenueReportQuery, opts?: CallOptions): Promise<string> {
    const res = await this.request(
      'GET',
      withQuery('/api/operator/v1/reports/revenue.csv', query),
      'idempotent',
      opts,
    );
    return res.text;
  }
  /**
   * Issue 38: one step of the reconciliation diff (a read: safe to retry). `findLedgerDifferences`
   * (reconciliation-diff.ts) runs the whole walk from your ledger rows.
   */
  diffReconciliation(
    body: ReconciliationDiffRequest,
    opts?: CallOptions,
  ): Promise<ReconciliationDiffResponse> {
    return this.json('POST', '/api/operator/v1/reconciliation/diff', 'idempotent', opts, body);
  }
  /** Issue 38: your invoices and credit notes (newest month first), optionally of one month (`YYYY-MM`). */
  listInvoices(query: { period?: string } = {}, opts?: CallOptions): Promise<InvoiceListResponse> {
    return this.json('GET', withQuery('/api/operator/v1/invoices', query), 'idempotent', opts);
  }
  /** One of your invoices or credit notes (404 when unknown or another operator's). */
  getInvoice(invoiceId: string, opts?: CallOptions): Promise<InvoiceResponse> {
    return this.json('GET', `/api/operator/v1/invoices/${seg(invoiceId)}`, 'idempotent', opts);
  }

  // ── transport ─────────────────────────────────────────────────────────────────────────────
  private async json<T>(
    method: string,
    pathAndQuery: string,
    safety: RetrySafety,
    opts?: CallOptions,
    body?: unknown,
  ): Promise<T> {
    const res = await this.request(method, pathAndQuery, safety, opts, body);
    try {
      return parseJson(res.text) as T;
    } catch (err) {
      throw new OperatorApiError(`${method} ${pathAndQuery}: ${(err as Error).message}`, {
        method,
        path: pathAndQuery,
        status: res.status,
        requestId: res.requestId,
        attempts: res.attempts,
        cause: err,
      });
    }
  }

  /** One logical call: attempts with a fresh signature each, retried as `safety` allows. */
  async request(
    method: string,
    requested: string,
    safety: RetrySafety,
    opts: CallOptions = {},
    body?: unknown,
  ): Promise<{ status: number; text: string; headers: Headers; requestId: string; attempts: number }> {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const requestId = opts.requestId ?? randomUUID();
    // A master key's operator goes where the signature covers it (the query), not only in a header.
    const pathAndQuery =
      this.options.operatorId && !/[?&]operator_id=/.test(requested)
        ? `${requested}${requested.includes('?') ? '&' : '?'}operator_id=${encodeURIComponent(this.options.operatorId)}`
        : requested;
    let attempt = 0;
    for (;;) {
      attempt++;
      const headers: Record<string, string> = {
        accept: 'application/json',
        'x-provider-api-key': this.options.apiKey,
        'x-request-id': requestId,
        ...(raw ? { 'content-type': 'application/json' } : {}),
        ...(this.options.operatorId ? { 'x-operator-id': this.options.operatorId } : {}),
        ...(opts.traceparent ? { traceparent: opts.traceparent } : {}),
        // A fresh timestamp and nonce on every attempt: the service refuses a nonce it has seen.
        ...(this.options.sign === false
          ? {}
          : operatorSignatureHeaders(this.options.apiKey, { method, pathAndQuery, body: raw })),
      };
      const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 10_000);
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
      let retryable = false;
      let failure: OperatorApiError;
      try {
        const res = await this.fetchFn(this.base + pathAndQuery, {
          method,
          headers,
          ...(raw ? { body: raw } : {}),
          signal,
          redirect: 'manual',
        });
        const text = await res.text();
        if (res.status >= 200 && res.status < 300) {
          return { status: res.status, text, headers: res.headers, requestId, attempts: attempt };
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        const detail = (parsed as { detail?: unknown } | undefined)?.detail;
        failure = new OperatorApiError(
          `${method} ${pathAndQuery}: ${res.status}${typeof detail === 'string' ? ` ${detail}` : ''}`,
          {
            method,
            path: pathAndQuery,
            status: res.status,
            detail,
            body: parsed,
            requestId,
            attempts: attempt,
          },
        );
        retryable = safety === 'idempotent' && RETRY_STATUS.has(res.status);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const code = networkCode(err);
        const timedOut = (err as { name?: string }).name === 'TimeoutError';
        failure = new OperatorApiError(
          `${method} ${pathAndQuery}: no answer (${timedOut ? `timeout after ${this.options.timeoutMs ?? 10_000} ms` : (code ?? String(err))})`,
          { method, path: pathAndQuery, requestId, attempts: attempt, cause: err },
        );
        retryable = safety === 'idempotent' || (code !== undefined && NOT_SENT.has(code));
      }
      if (!retryable || attempt >= this.attempts) throw failure;
      const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
      await new Promise((r) => setTimeout(r, delay / 2 + Math.random() * (delay / 2)));
    }
  }
}

/** `new OperatorClient(options)`. */
export function createOperatorClient(options: OperatorClientOptions): OperatorClient {
  return new OperatorClient(options);
}
