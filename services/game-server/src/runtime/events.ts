import { REFRESH_FAMILY } from '@opi/play/balance-refresh/hub';
import type { RuntimeSession } from '@opi/play/sessions/runtime-session';
import { hashLaunchToken } from '@opi/play/sessions/tokens';
import { conflict, unavailable } from '@opi/service-kit/http/named-errors';
import type { Context } from 'koa';
import type { GameDeps } from '../deps.js';
import { sessionJackpotId } from '../jackpots/ticker.js';

/**
 * GET /api/runtime/events: the open game page's server-sent-event stream (read with fetch()
 * streaming, so the session token travels in `x-session-token`). `ready` carries the subscriber
 * id once the page counts as present; `balance-refresh` asks the page to read its balance again;
 * `jackpot` carries the values of the jackpot the session's spins feed (on connect, then on each
 * change; jackpots/ticker.ts); a `: keepalive` comment every 15 s. Only prov_a sessions get a stream (else 409). A session
 * holds at most 3 streams over every game-server process together: a new one ends the oldest,
 * wherever held, with `closed` `{reason:'superseded'}` (counted in subscriber_presence under the
 * session's advisory lock; other processes are told by a `superseded` NOTIFY, and one that missed
 * it ends the stream at its next heartbeat: hub.ts MAX_STREAMS_PER_SESSION). A process holds at
 * most 2,000 (else 503 with Retry-After), and a stream ends (`closed` `{reason:'session_ended'}`)
 * when its session is revoked, expires or is relaunched (hub.ts sweep).
 */
/** Seconds a page is asked to wait before trying again when this process holds all the streams it may. */
export const STREAMS_FULL_RETRY_AFTER_S = 30;

export function eventStream(deps: GameDeps) {
  return async (ctx: Context) => {
    const session = ctx.state.session as RuntimeSession;
    if (session.provider_id !== REFRESH_FAMILY) {
      throw conflict(
        `Unsupported provider operation: balance refresh events are supported for ${REFRESH_FAMILY} sessions only`,
      );
    }
    const token = ctx.get('x-session-token') || /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
    const subscriber = deps.refresh.open(session.session_id, token ? hashLaunchToken(token) : null);
    if (!subscriber) {
      throw unavailable(
        'Too many open event streams on this server: retry after Retry-After seconds',
        {},
        { 'Retry-After': String(STREAMS_FULL_RETRY_AFTER_S) },
      );
    }
    // The page going away (or the server ending the stream) removes its presence row.
    ctx.res.once('close', () => {
      deps.jackpots.unwatch(subscriber.id);
      subscriber.close();
    });
    try {
      await subscriber.ready;
    } catch (err) {
      subscriber.close();
      throw err;
    }
    // The jackpot the session's spins feed: its ticker values come on this stream (`jackpot`).
    const jackpotId = await sessionJackpotId(deps, session);
    if (jackpotId && !ctx.res.writableEnded) deps.jackpots.watch(subscriber.id, jackpotId, session.currency);
    const socket = ctx.req.socket;
    socket.setTimeout(0);
    socket.setNoDelay(true);
    socket.setKeepAlive(true);
    ctx.status = 200;
    ctx.set({
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      // No proxy buffering; the connection is not reused after the stream ends.
      'X-Accel-Buffering': 'no',
      Connection: 'close',
    });
    ctx.body = subscriber.stream;
  };
}
