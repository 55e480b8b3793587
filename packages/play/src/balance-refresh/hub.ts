import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { PassThrough } from 'node:stream';
import { ADVISORY_LOCK_CLASS, type Pool, type PoolClient, withTransaction } from '@opi/db';
import type { PgListener } from '@opi/service-kit/cache/pg-listener';
import type { Logger } from '@opi/service-kit/http/logger';
import { z } from 'zod';

/** The one family whose pages take balance refresh signals (the contract's prov_a). */
export const REFRESH_FAMILY = 'prov_a' as const;

/** The NOTIFY channel every API and game-server process listens on. */
export const REFRESH_CHANNEL = 'opi_balance_refresh';
/** A presence row counts while its last_seen_at is at most this old. */
export const PRESENCE_FRESH_SECONDS = 45;
/** Keep-alive comments and the presence refresh, per process. */
export const HEARTBEAT_MS = 15_000;
/** Rows of dead processes are deleted (by any live process) once this old. */
const PURGE_AFTER_SECONDS = 300;
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; session ids are split across payloads. */
const NOTIFY_PAYLOAD_MAX_BYTES = 7000;
/** A page that stops reading is dropped rather than buffered without bound. */
const MAX_BUFFERED_BYTES = 64 * 1024;

/**
 * Streams one session may hold, counted over every game-server process: a page and a reload or two
 * (a reload's old stream may linger until its socket is found closed). Past it the oldest are
 * closed, told `closed` `{reason: 'superseded'}` so those pages stop reconnecting. Counted in
 * `subscriber_presence` (the session's fresh rows, whichever process holds them): each open inserts
 * its row and deletes the session's fresh rows beyond the newest 3 in one transaction under the
 * session's advisory lock (PRESENCE_LOCK_CLASS), so two processes opening at once cannot both
 * keep a 4th. This process ends its own superseded streams at once and NOTIFYs the others'
 * (`superseded` on REFRESH_CHANNEL). A NOTIFY that is lost (the holder's LISTEN connection was
 * down) is made up at the holder's next heartbeat (15 s): its upsert finds the row gone or stale,
 * puts it back with its first connected_at and trims the session again, which supersedes it.
 */
export const MAX_STREAMS_PER_SESSION = 3;
/**
 * The advisory lock class of a session's presence rows: `pg_advisory_xact_lock(3, hashtext(session_id))`
 * serialises the stream opens (and heartbeat trims) of one session across processes. Two-key locks
 * are their own key space beside the one-bigint ones (node-pg-migrate, crash demo, hashtext keys);
 * every class is named in @opi/db (ADVISORY_LOCK_CLASS); 3 is this table's migration.
 */
export const PRESENCE_LOCK_CLASS = ADVISORY_LOCK_CLASS.presence;
/** Sessions trimmed per transaction by a heartbeat (each takes one advisory lock). */
const TRIM_BATCH = 50;
/**
 * Streams one game-server process holds at most; a new one past it is refused (503, Retry-After). An open
 * page is one stream, and one process serves a few hundred playing pages (docs/benchmarks.md: 55
 * to 114 rounds/s per process, a player spinning every few seconds): 2,000 leaves room for idle
 * pages and reloads, while a stream costs a socket, a small buffer and a presence row, far below
 * what the process and the heartbeat's one upsert of every row can carry.
 */
export const MAX_STREAMS_PER_PROCESS = 2000;

/** What the page is told (and what the operator sent): echoed, never interpreted. */
export interface RefreshSignal {
  request_id: string | null;
  reason: string | null;
}

/** One open event stream of a game page, held by this process. */
export interface Subscriber {
  readonly id: string;
  readonly sessionId: string;
  /** The SSE bytes; the route hands it to Koa as the response body. */
  readonly stream: PassThrough;
  /** Resolves once the presence row is written and `ready` is queued on the stream. */
  readonly ready: Promise<void>;
  /** Ends the stream and deletes the presence row (idempotent). */
  close(): void;
}

interface Local {
  id: string;
  sessionId: string;
  /** The launch token's hash the stream was opened with: a relaunch (new token) ends it. */
  tokenHash: string | null;
  stream: PassThrough;
  /**
   * The presence row's connected_at once written (as PostgreSQL prints it, so exact to the
   * microsecond): a row the heartbeat puts back keeps its age.
   */
  connectedAt: string | null;
}

/** A presence row deleted past its session's limit, and the process holding its stream. */
interface Superseded {
  subscriber_id: string;
  api_instance: string;
}

/** Why the server ended a stream (`event: closed`); the page does not reconnect after it. */
export type ClosedReason = 'superseded' | 'session_ended';

/** One server-sent event; JSON.stringify escapes CR and LF, so `data` is one line. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Every id once, split into payloads of `encode` each under the size limit. */
function splitPayloads(ids: readonly string[], encode: (batch: string[]) => string): string[] {
  const payloads: string[] = [];
  let batch: string[] = [];
  for (const id of ids) {
    if (batch.length > 0 && Buffer.byteLength(encode([...batch, id])) > NOTIFY_PAYLOAD_MAX_BYTES) {
      payloads.push(encode(batch));
      batch = [];
    }
    batch.push(id);
  }
  if (batch.length > 0) payloads.push(encode(batch));
  return payloads;
}

/** The NOTIFY payloads for one signal: every session id once, each payload under the size limit. */
export function notifyPayloads(
  sessionIds: readonly string[],
  signal: RefreshSignal,
  ended = false,
): string[] {
  return splitPayloads(sessionIds, (ids) =>
    JSON.stringify({
      session_ids: ids,
      request_id: signal.request_id,
      reason: signal.reason,
      ...(ended ? { ended: true } : {}),
    }),
  );
}

/**
 * The NOTIFY payloads telling the holding processes to end these streams (their presence rows were
 * deleted past their session's limit). `session_ids` is empty, so a process that does not know
 * `superseded` (an older version during a rolling deploy) does nothing with it.
 */
export function supersededPayloads(subscriberIds: readonly string[]): string[] {
  return splitPayloads(subscriberIds, (ids) =>
    JSON.stringify({ session_ids: [], request_id: null, reason: null, superseded: ids }),
  );
}

/** A NOTIFY payload of REFRESH_CHANNEL, as `notifyPayloads` or `supersededPayloads` writes it. */
const Payload = z
  .object({
    session_ids: z.array(z.string()),
    request_id: z.string().nullable(),
    reason: z.string().nullable(),
    /** The sessions are over (revoked): their streams end, told `closed` `{reason: 'session_ended'}`. */
    ended: z.literal(true).optional(),
    /**
     * Streams whose presence rows another process deleted past their session's limit: the holder
     * ends them, told `closed` `{reason: 'superseded'}`. Only with no session ids and no signal.
     */
    superseded: z
      .array(z.string().regex(/^sub_[\w-]{1,64}$/))
      .min(1)
      .optional(),
  })
  .refine(
    (p) =>
      p.superseded === undefined ||
      (p.session_ids.length === 0 && p.ended === undefined && p.request_id === null && p.reason === null),
    'superseded comes alone',
  );

function parsePayload(payload: string): z.infer<typeof Payload> | undefined {
  try {
    return Payload.parse(JSON.parse(payload));
  } catch {
    return undefined;
  }
}

export interface RefreshHubOptions {
  /** Keep-alive and presence refresh period (default 15 s). */
  heartbeatMs?: number;
  /** This process's name in the presence table (default host:pid:random). */
  instance?: string;
}

/**
 * Balance refresh signalling for one process (the game server's hold the streams; the operator
 * API's publishes). Game pages hold an event stream here
 * (`open`), recorded in `subscriber_presence` so any process can count them; a refresh request
 * anywhere NOTIFYs the session ids (`publish`), and every process pushes `balance-refresh` to its
 * own streams of those sessions. Presence writes go through one queue, so a stream's row is never
 * re-inserted after its delete.
 */
export class RefreshHub {
  readonly instance: string;
  private readonly subscribers = new Map<string, Local>();
  private readonly bySession = new Map<string, Set<string>>();
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private readonly heartbeatMs: number;
  /** Sessions whose trim after a heartbeat failed: tried again at the next one. */
  private readonly retrim = new Set<string>();
  /** The stream limits (tests lower them to reach them). */
  readonly limits = { perSession: MAX_STREAMS_PER_SESSION, perProcess: MAX_STREAMS_PER_PROCESS };

  constructor(
    private readonly pool: Pool,
    private readonly listener: PgListener,
    private readonly logger: Logger,
    options: RefreshHubOptions = {},
  ) {
    this.instance = options.instance ?? `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
    listener.on(REFRESH_CHANNEL, (payload) => this.deliver(payload));
  }

  /** Starts the heartbeat (keep-alive comments and the presence refresh). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.heartbeat(), this.heartbeatMs);
    this.timer.unref();
  }

  /** Local subscribers (all sessions, or one). */
  localCount(sessionId?: string): number {
    return sessionId === undefined ? this.subscribers.size : (this.bySession.get(sessionId)?.size ?? 0);
  }

  /**
   * Opens a stream for a game page of `sessionId` (opened with the launch token hashing to
   * `tokenHash`). The session's oldest streams past `limits.perSession`, in this process and in
   * every other (the presence rows, `supersede`), are closed; undefined when this process already
   * holds `limits.perProcess` streams (the caller answers 503). `ready` resolves once the row is
   * written and the surplus superseded.
   */
  open(sessionId: string, tokenHash: string | null = null): Subscriber | undefined {
    const mine = this.bySession.get(sessionId);
    if (mine && mine.size >= this.limits.perSession) {
      // Oldest first (a Set keeps insertion order): the new stream takes its place.
      for (const old of [...mine].slice(0, mine.size - this.limits.perSession + 1)) {
        this.end(old, 'superseded');
      }
    } else if (this.subscribers.size >= this.limits.perProcess) {
      return undefined;
    }
    const id = `sub_${randomUUID()}`;
    const stream = new PassThrough();
    const local: Local = { id, sessionId, tokenHash, stream, connectedAt: null };
    this.subscribers.set(id, local);
    const ids = this.bySession.get(sessionId) ?? new Set<string>();
    this.bySession.set(sessionId, ids.add(id));
    const ready = this.enqueue(async () => {
      if (!this.subscribers.has(id)) return; // the page went away while the write waited
      // One transaction under the session's lock: a concurrent open elsewhere waits, then counts
      // this row. The lock is its own statement so the next one reads a snapshot taken after it.
      const gone = await withTransaction(this.pool, async (c) => {
        await c.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [PRESENCE_LOCK_CLASS, sessionId]);
        // The new row is not visible to the rest of the statement: the other fresh rows keep the
        // places left beside it, newest first.
        const { rows } = await c.query<{ connected_at: string; gone: Superseded[] }>(
          `WITH ins AS (
             INSERT INTO subscriber_presence (subscriber_id, session_id, api_instance) VALUES ($1, $2, $3)
             RETURNING connected_at::text
           ), surplus AS (
             SELECT subscriber_id FROM subscriber_presence
              WHERE session_id = $2 AND last_seen_at > now() - make_interval(secs => $5)
              ORDER BY connected_at DESC, subscriber_id DESC
              OFFSET greatest($4::int - 1, 0)
           ), gone AS (
             DELETE FROM subscriber_presence p USING surplus s WHERE p.subscriber_id = s.subscriber_id
             RETURNING p.subscriber_id, p.api_instance
           )
           SELECT (SELECT connected_at FROM ins) AS connected_at,
                  coalesce((SELECT json_agg(gone) FROM gone), '[]'::json) AS gone`,
          [id, sessionId, this.instance, this.limits.perSession, PRESENCE_FRESH_SECONDS],
        );
        local.connectedAt = rows[0]!.connected_at;
        await this.notifySuperseded(c, rows[0]!.gone);
        return rows[0]!.gone;
      });
      this.endSuperseded(gone);
    }).then(() => {
      this.send(local, sseEvent('ready', { subscriber_id: id }));
    });
    return { id, sessionId, stream, ready, close: () => this.close(id) };
  }

  /** Sends one signal to every open page of these sessions, in every process (NOTIFY). */
  async publish(sessionIds: readonly string[], signal: RefreshSignal): Promise<void> {
    if (sessionIds.length === 0) return;
    await this.pool.query(`SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, [
      REFRESH_CHANNEL,
      notifyPayloads(sessionIds, signal),
    ]);
  }

  /**
   * Ends every open page of these sessions in every process (NOTIFY), as a revocation does: the
   * operator API revokes, the game servers hold the streams.
   */
  async publishEnded(sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length === 0) return;
    await this.pool.query(`SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, [
      REFRESH_CHANNEL,
      notifyPayloads(sessionIds, { request_id: null, reason: null }, true),
    ]);
  }

  /** Ends this process's streams of a session now; true if any. */
  /**
   * Sends one event to one of this process's streams (the game server's jackpot ticker). False
   * when the stream is gone.
   */
  sendTo(subscriberId: string, event: string, data: unknown): boolean {
    const local = this.subscribers.get(subscriberId);
    if (!local) return false;
    this.send(local, sseEvent(event, data));
    return true;
  }

  endSession(sessionId: string): boolean {
    const ids = [...(this.bySession.get(sessionId) ?? [])];
    for (const id of ids) this.end(id, 'session_ended');
    return ids.length > 0;
  }

  /**
   * Ends the streams whose session is over: revoked or closed (status not `active`), expired
   * (`expires_at` passed), or relaunched with another token. One statement for every local
   * session; run with each heartbeat (so within 15 s in every process; a revocation through the
   * admin API ends them at once everywhere, `publishEnded`). Resolves with the sessions ended; a failure is logged.
   */
  async sweep(): Promise<string[]> {
    const locals = [...this.subscribers.values()];
    if (locals.length === 0) return [];
    const sessions = new Map<string, string | null>();
    for (const l of locals) if (!sessions.has(l.sessionId)) sessions.set(l.sessionId, l.tokenHash);
    try {
      const { rows } = await this.pool.query<{ session_id: string }>(
        `SELECT t.session_id FROM unnest($1::text[], $2::text[]) AS t(session_id, token_hash)
          WHERE NOT EXISTS (
            SELECT 1 FROM sessions s
             WHERE s.session_id = t.session_id AND s.status = 'active'
               AND (s.expires_at IS NULL OR s.expires_at > now())
               AND (t.token_hash IS NULL OR s.token_hash = t.token_hash))`,
        [[...sessions.keys()], [...sessions.values()]],
      );
      for (const r of rows) this.endSession(r.session_id);
      return rows.map((r) => r.session_id);
    } catch (err) {
      this.logger.warn('event stream session sweep failed', { error: String(err) });
      return [];
    }
  }

  /** Ends every local stream at once (shutdown); their rows go with one DELETE. */
  closeStreams(): void {
    const had = this.subscribers.size > 0;
    for (const local of this.subscribers.values()) local.stream.end();
    this.subscribers.clear();
    this.bySession.clear();
    if (had) {
      void this.enqueue(() =>
        this.pool.query(`DELETE FROM subscriber_presence WHERE api_instance = $1`, [this.instance]),
      ).catch((err: unknown) => this.logger.warn('presence cleanup failed', { error: String(err) }));
    }
  }

  /** Stops the timer (tests call heartbeat() themselves). */
  stopHeartbeat(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops the heartbeat, ends the streams and waits for the presence writes. */
  async stop(): Promise<void> {
    this.stopHeartbeat();
    this.closeStreams();
    await this.queue;
  }

  /** Ends the stream and deletes its presence row (unless `rowGone`: already deleted). */
  private close(id: string, rowGone = false): void {
    const local = this.subscribers.get(id);
    if (!local) return;
    this.subscribers.delete(id);
    const ids = this.bySession.get(local.sessionId);
    ids?.delete(id);
    if (ids?.size === 0) this.bySession.delete(local.sessionId);
    local.stream.end();
    if (rowGone) return;
    void this.enqueue(() =>
      this.pool.query(`DELETE FROM subscriber_presence WHERE subscriber_id = $1`, [id]),
    ).catch((err: unknown) => this.logger.warn('presence delete failed', { error: String(err) }));
  }

  /** Tells the page why (`event: closed`), then closes the stream. */
  private end(id: string, reason: ClosedReason, rowGone = false): void {
    const local = this.subscribers.get(id);
    if (!local) return;
    this.send(local, sseEvent('closed', { reason }));
    this.close(id, rowGone);
  }

  /** NOTIFYs (on commit of `c`'s transaction) the other processes holding superseded streams. */
  private async notifySuperseded(c: PoolClient, gone: readonly Superseded[]): Promise<void> {
    const remote = gone.filter((g) => g.api_instance !== this.instance).map((g) => g.subscriber_id);
    if (remote.length === 0) return;
    await c.query(`SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, [
      REFRESH_CHANNEL,
      supersededPayloads(remote),
    ]);
  }

  /** Ends this process's streams whose rows were deleted past their session's limit. */
  private endSuperseded(gone: readonly Superseded[]): void {
    for (const g of gone) if (g.api_instance === this.instance) this.end(g.subscriber_id, 'superseded', true);
  }

  /**
   * Deletes the fresh presence rows of these sessions beyond the newest `limits.perSession` of
   * each (under each session's advisory lock, taken in key order, a batch per transaction), ends
   * this process's streams among them and NOTIFYs the others'. The heartbeat runs it for sessions
   * whose rows it had to put back.
   */
  private async supersede(sessionIds: readonly string[]): Promise<void> {
    for (let i = 0; i < sessionIds.length; i += TRIM_BATCH) {
      const batch = sessionIds.slice(i, i + TRIM_BATCH);
      const gone = await withTransaction(this.pool, async (c) => {
        // Volatile target lists are evaluated after ORDER BY: the locks are taken in key order, so
        // two processes trimming overlapping batches cannot deadlock (an open takes one lock).
        await c.query(
          `SELECT pg_advisory_xact_lock($1, k)
             FROM (SELECT DISTINCT hashtext(s) AS k FROM unnest($2::text[]) AS s) t ORDER BY k`,
          [PRESENCE_LOCK_CLASS, batch],
        );
        const { rows } = await c.query<Superseded>(
          `WITH ranked AS (
             SELECT subscriber_id,
                    row_number() OVER (PARTITION BY session_id ORDER BY connected_at DESC, subscriber_id DESC) AS n
               FROM subscriber_presence
              WHERE session_id = ANY($1::text[]) AND last_seen_at > now() - make_interval(secs => $3)
           )
           DELETE FROM subscriber_presence p USING ranked r
            WHERE p.subscriber_id = r.subscriber_id AND r.n > $2
           RETURNING p.subscriber_id, p.api_instance`,
          [batch, this.limits.perSession, PRESENCE_FRESH_SECONDS],
        );
        await this.notifySuperseded(c, rows);
        return rows;
      });
      this.endSuperseded(gone);
    }
  }

  private send(local: Local, text: string): void {
    const { stream } = local;
    if (stream.destroyed || stream.writableEnded) return;
    if (stream.writableLength + stream.readableLength > MAX_BUFFERED_BYTES) {
      this.logger.warn('event stream not reading: closed', { subscriber_id: local.id });
      this.close(local.id);
      return;
    }
    stream.write(text);
  }

  private deliver(payload: string): void {
    const message = parsePayload(payload);
    if (!message) {
      this.logger.warn('malformed balance refresh notification', { payload: payload.slice(0, 200) });
      return;
    }
    if (message.superseded) {
      // The row is deleted again: the heartbeat may have put it back meanwhile.
      for (const id of message.superseded) this.end(id, 'superseded');
      return;
    }
    if (message.ended) {
      for (const sessionId of message.session_ids) this.endSession(sessionId);
      return;
    }
    const event = sseEvent('balance-refresh', { request_id: message.request_id, reason: message.reason });
    for (const sessionId of message.session_ids) {
      for (const id of this.bySession.get(sessionId) ?? []) {
        const local = this.subscribers.get(id);
        if (local) this.send(local, event);
      }
    }
  }

  /**
   * Every 15 s (the timer; callable by tests): a keep-alive comment on every stream, then one
   * statement that upserts this process's presence rows (fresh last_seen_at; re-inserted if purged
   * or superseded meanwhile, with the connected_at they had) and purges rows of dead processes.
   * Sessions with a row that was missing or stale (so not counted by the opens meanwhile) are
   * trimmed to the limit again (`supersede`): a superseded stream whose NOTIFY was lost comes back
   * for one heartbeat only, then ends. While this process cannot hear NOTIFY its rows are left to
   * go stale, so refresh requests do not count pages a signal cannot reach. The sweep (`sweep`)
   * ends the streams of sessions that are over. Resolves when the writes are done; a failure is
   * logged, never thrown.
   */
  heartbeat(): Promise<void> {
    for (const local of [...this.subscribers.values()]) this.send(local, ': keepalive\n\n');
    const swept = this.sweep();
    if (!this.listener.healthy) return swept.then(() => {});
    return this.enqueue(async () => {
      const locals = [...this.subscribers.values()];
      // `counted`: this process's rows the opens counted until now (the snapshot before the upsert);
      // a row upserted that was not among them, or was inserted again (xmax = 0: deleted meanwhile),
      // was missing or stale, so its session may now hold more than its limit.
      const { rows } = await this.pool.query<{ session_id: string }>(
        `WITH purged AS (
           DELETE FROM subscriber_presence
           WHERE last_seen_at < now() - make_interval(secs => $5) AND api_instance <> $4
         ), counted AS (
           SELECT subscriber_id FROM subscriber_presence
            WHERE api_instance = $4 AND last_seen_at > now() - make_interval(secs => $6)
         ), upserted AS (
           INSERT INTO subscriber_presence (subscriber_id, session_id, api_instance, connected_at)
           SELECT t.subscriber_id, t.session_id, $4, coalesce(t.connected_at, now())
           FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS t(subscriber_id, session_id, connected_at)
           ON CONFLICT (subscriber_id) DO UPDATE SET last_seen_at = now()
           RETURNING subscriber_id, session_id, xmax = 0 AS inserted
         )
         SELECT DISTINCT u.session_id FROM upserted u
          WHERE u.inserted OR NOT EXISTS (SELECT 1 FROM counted c WHERE c.subscriber_id = u.subscriber_id)`,
        [
          locals.map((l) => l.id),
          locals.map((l) => l.sessionId),
          locals.map((l) => l.connectedAt),
          this.instance,
          PURGE_AFTER_SECONDS,
          PRESENCE_FRESH_SECONDS,
        ],
      );
      const trim = new Set([...this.retrim, ...rows.map((r) => r.session_id)]);
      this.retrim.clear();
      if (trim.size === 0) return;
      try {
        await this.supersede([...trim].sort());
      } catch (err) {
        // Those rows are counted from now on, so the next upsert would not find them again.
        for (const sessionId of trim) this.retrim.add(sessionId);
        throw err;
      }
    })
      .then(
        () => {},
        (err: unknown) => this.logger.warn('presence refresh failed', { error: String(err) }),
      )
      .then(() => swept.then(() => {}));
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => {});
    return run;
  }
}
