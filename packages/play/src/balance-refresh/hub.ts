import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { PassThrough } from 'node:stream';
import type { Pool } from '@opi/db';
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
 * Streams one session may hold in this process: a page and a reload or two (a reload's old stream
 * may linger until its socket is found closed). Past it the oldest is closed, told `closed`
 * `{reason: 'superseded'}` so that page stops reconnecting.
 */
export const MAX_STREAMS_PER_SESSION = 3;
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
}

/** Why the server ended a stream (`event: closed`); the page does not reconnect after it. */
export type ClosedReason = 'superseded' | 'session_ended';

/** One server-sent event; JSON.stringify escapes CR and LF, so `data` is one line. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The NOTIFY payloads for one signal: every session id once, each payload under the size limit. */
export function notifyPayloads(
  sessionIds: readonly string[],
  signal: RefreshSignal,
  ended = false,
): string[] {
  const encode = (ids: string[]) =>
    JSON.stringify({
      session_ids: ids,
      request_id: signal.request_id,
      reason: signal.reason,
      ...(ended ? { ended: true } : {}),
    });
  const payloads: string[] = [];
  let batch: string[] = [];
  for (const id of sessionIds) {
    if (batch.length > 0 && Buffer.byteLength(encode([...batch, id])) > NOTIFY_PAYLOAD_MAX_BYTES) {
      payloads.push(encode(batch));
      batch = [];
    }
    batch.push(id);
  }
  if (batch.length > 0) payloads.push(encode(batch));
  return payloads;
}

/** A NOTIFY payload of REFRESH_CHANNEL, as `notifyPayloads` writes it. */
const Payload = z.object({
  session_ids: z.array(z.string()),
  request_id: z.string().nullable(),
  reason: z.string().nullable(),
  /** The sessions are over (revoked): their streams end, told `closed` `{reason: 'session_ended'}`. */
  ended: z.literal(true).optional(),
});

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
   * `tokenHash`). The session's oldest streams past `limits.perSession` are closed; undefined when
   * this process already holds `limits.perProcess` streams (the caller answers 503).
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
    const local: Local = { id, sessionId, tokenHash, stream };
    this.subscribers.set(id, local);
    const ids = this.bySession.get(sessionId) ?? new Set<string>();
    this.bySession.set(sessionId, ids.add(id));
    const ready = this.enqueue(() =>
      this.pool.query(
        `INSERT INTO subscriber_presence (subscriber_id, session_id, api_instance) VALUES ($1, $2, $3)`,
        [id, sessionId, this.instance],
      ),
    ).then(() => {
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

  private close(id: string): void {
    const local = this.subscribers.get(id);
    if (!local) return;
    this.subscribers.delete(id);
    const ids = this.bySession.get(local.sessionId);
    ids?.delete(id);
    if (ids?.size === 0) this.bySession.delete(local.sessionId);
    local.stream.end();
    void this.enqueue(() =>
      this.pool.query(`DELETE FROM subscriber_presence WHERE subscriber_id = $1`, [id]),
    ).catch((err: unknown) => this.logger.warn('presence delete failed', { error: String(err) }));
  }

  /** Tells the page why (`event: closed`), then closes the stream. */
  private end(id: string, reason: ClosedReason): void {
    const local = this.subscribers.get(id);
    if (!local) return;
    this.send(local, sseEvent('closed', { reason }));
    this.close(id);
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
   * meanwhile) and purges rows of dead processes. While this process cannot hear NOTIFY its rows
   * are left to go stale, so refresh requests do not count pages a signal cannot reach. The sweep
   * (`sweep`) ends the streams of sessions that are over. Resolves when the writes are done; a
   * failure is logged, never thrown.
   */
  heartbeat(): Promise<void> {
    for (const local of [...this.subscribers.values()]) this.send(local, ': keepalive\n\n');
    const swept = this.sweep();
    if (!this.listener.healthy) return swept.then(() => {});
    return this.enqueue(() => {
      const locals = [...this.subscribers.values()];
      return this.pool.query(
        `WITH purged AS (
           DELETE FROM subscriber_presence
           WHERE last_seen_at < now() - make_interval(secs => $4) AND api_instance <> $3
         )
         INSERT INTO subscriber_presence (subscriber_id, session_id, api_instance)
         SELECT t.subscriber_id, t.session_id, $3
         FROM unnest($1::text[], $2::text[]) AS t(subscriber_id, session_id)
         ON CONFLICT (subscriber_id) DO UPDATE SET last_seen_at = now()`,
        [locals.map((l) => l.id), locals.map((l) => l.sessionId), this.instance, PURGE_AFTER_SECONDS],
      );
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
