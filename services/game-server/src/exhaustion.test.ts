import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { DEFAULT_BODY_TIMEOUT_MS } from '@opi/service-kit/http/body';
import { ADMIN_KEY, assign, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';
import { rawRequest } from '@opi/testkit/raw-http';
import { until } from '@opi/testkit/until';
import { DEMO_LIVE_CAP, DEMO_PER_ADDRESS_LIMIT } from './crash/demo.js';

/*
 * Issue 23 point 6, "no one exhausts what others need", on the game server's side against the real
 * services on a real database: the open crash demo route's limits, the game pages' event streams
 * and a request body that trickles in. The operator API's side is services/api's exhaustion test.
 */

let h: Harness;
let port: number;

before(async () => {
  // 127.0.0.1 (the test itself) is a trusted proxy here, so X-Forwarded-For names the client.
  h = await startApi({ TRUSTED_PROXIES: '127.0.0.1' });
  port = Number(new URL(h.game).port);
});
after(async () => {
  await h.close();
});

// --- request bodies ------------------------------------------------------------------------------

describe('request bodies on the game server', () => {
  test('a body that trickles in is cut off with 408 once its time is up', async () => {
    const answer = await rawRequest(
      port,
      'POST /api/runtime/crash/demo HTTP/1.1\r\nHost: t\r\ncontent-type: application/json\r\nContent-Length: 100\r\n\r\n',
      async (write, answered) => {
        const body = Buffer.from(JSON.stringify({ slug: 'paper-kite', pad: 'x'.repeat(100) })).subarray(
          0,
          100,
        );
        for (let i = 0; i < body.length && !answered(); i++) {
          if (!(await write(body.subarray(i, i + 1)))) return;
          await new Promise((r) => setTimeout(r, 250));
        }
      },
    );
    assert.equal(answer.status, 408);
    assert.match(JSON.parse(answer.body).detail, /not received within 10 s/);
    assert.equal(answer.headers.connection, 'close');
    assert.ok(answer.closedByServer);
    assert.ok(
      answer.answeredAfterMs >= DEFAULT_BODY_TIMEOUT_MS - 100 &&
        answer.answeredAfterMs < DEFAULT_BODY_TIMEOUT_MS + 2000,
      `answered after ${answer.answeredAfterMs} ms`,
    );
    assert.ok(answer.bodyBytesWritten < 100);
  });
});

// --- crash demo sessions -------------------------------------------------------------------------

describe('POST /api/runtime/crash/demo', () => {
  const demo = (address: string) =>
    call(h.game, 'POST', '/api/runtime/crash/demo', {
      body: { slug: 'paper-kite' },
      headers: { 'x-forwarded-for': address },
    });

  test(`one address gets ${DEMO_PER_ADDRESS_LIMIT} demo sessions in the window, then 429 with Retry-After`, async () => {
    for (let i = 0; i < DEMO_PER_ADDRESS_LIMIT; i++) {
      const res = await demo('203.0.113.7');
      assert.equal(res.status, 201, res.text);
    }
    const refused = await demo('203.0.113.7');
    assert.equal(refused.status, 429);
    assert.match(refused.json.detail, /Too many demo sessions from this address/);
    const retry = Number(refused.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 600, `Retry-After ${retry}`);
    // The address written before the trusted proxy's is the client's own claim: not read.
    assert.equal((await demo('198.51.100.1, 203.0.113.7')).status, 429);
    // Another address is not held back.
    assert.equal((await demo('203.0.113.8')).status, 201);
    const { rows } = await h.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM crash_demo_sessions WHERE client_address = '203.0.113.7'`,
    );
    assert.equal(rows[0]!.n, DEMO_PER_ADDRESS_LIMIT);
  });

  test('the live demo sessions are capped in total: 503 with Retry-After, free again as they expire', async () => {
    const symbol = CATALOG.find((e) => e.slug === 'paper-kite')!.symbol;
    // Fill up to the cap with sessions of many other addresses (as a spread-out flood would).
    await h.db.pool.query(
      `INSERT INTO crash_demo_sessions (demo_id, token_hash, symbol, balance_minor, expires_at, client_address)
       SELECT 'demo_fill_' || i, encode(sha256(('fill' || i)::bytea), 'hex'), $1, 100000,
              now() + interval '1 hour' + i * interval '1 millisecond', '10.9.' || (i / 250) || '.' || (i % 250)
         FROM generate_series(1, $2::int - (SELECT count(*)::int FROM crash_demo_sessions WHERE expires_at > now())) i`,
      [symbol, DEMO_LIVE_CAP],
    );
    const full = await demo('203.0.113.50');
    assert.equal(full.status, 503);
    assert.match(full.json.detail, /Demo play is full/);
    const retry = Number(full.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 7200, `Retry-After ${retry}`);
    const live = async () =>
      (
        await h.db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM crash_demo_sessions WHERE expires_at > now()`,
        )
      ).rows[0]!.n;
    assert.equal(await live(), DEMO_LIVE_CAP);
    // Concurrent calls from fresh addresses cannot slip past the cap.
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => demo(`203.0.113.${100 + i}`)));
    assert.deepEqual(new Set(burst.map((r) => r.status)), new Set([503]));
    assert.equal(await live(), DEMO_LIVE_CAP);
    // Two sessions expire: two places, and only two.
    await h.db.pool.query(
      `UPDATE crash_demo_sessions SET expires_at = now() - interval '1 second'
        WHERE demo_id IN ('demo_fill_1', 'demo_fill_2')`,
    );
    const again = await Promise.all(Array.from({ length: 5 }, (_, i) => demo(`203.0.113.${200 + i}`)));
    assert.deepEqual(again.map((r) => r.status).sort(), [201, 201, 503, 503, 503]);
    assert.equal(await live(), DEMO_LIVE_CAP);
    await h.db.pool.query(`DELETE FROM crash_demo_sessions WHERE demo_id LIKE 'demo_fill_%'`);
  });
});

// --- event streams -------------------------------------------------------------------------------

describe('GET /api/runtime/events', () => {
  const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
  let opKey: string;

  before(async () => {
    // The test drives the sweep itself.
    h.gameDeps.refresh.stopHeartbeat();
    opKey = (await createOperator(h.base, 'op_exhaust')).key;
    await assign(h.base, 'op_exhaust', [slot.symbol]);
  });

  async function launch(player: string) {
    const res = await call(h.base, 'POST', '/api/provider/v1/launch-url', {
      key: opKey,
      body: { symbol: slot.symbol, external_player_id: player, currency: 'EUR' },
    });
    assert.equal(res.status, 200, res.text);
    return {
      token: new URL(res.json.launch_url).searchParams.get('mgckey')!,
      sessionId: res.json.session_id,
    };
  }

  /** An event stream as the page reads it: its events, and whether the server ended it. */
  async function stream(token: string) {
    const abort = new AbortController();
    const res = await fetch(`${h.game}/api/runtime/events`, {
      headers: { 'x-session-token': token },
      signal: abort.signal,
    });
    const events: { event: string; data: any }[] = [];
    let ended = false;
    if (res.ok && res.body) {
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      void (async () => {
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += decoder.decode(value, { stream: true });
            for (let cut = buf.indexOf('\n\n'); cut >= 0; cut = buf.indexOf('\n\n')) {
              const block = buf.slice(0, cut);
              buf = buf.slice(cut + 2);
              const event = /^event: (.*)$/m.exec(block)?.[1];
              const data = /^data: (.*)$/m.exec(block)?.[1];
              if (event) events.push({ event, data: data ? JSON.parse(data) : undefined });
            }
          }
        } catch {}
        ended = true;
      })();
      await until('ready', async () => events.some((e) => e.event === 'ready'), 5000, 10);
    }
    return {
      res,
      events,
      get ended() {
        return ended;
      },
      close: () => abort.abort(),
    };
  }

  test('a session holds at most 3 streams: the 4th closes the oldest, which is told why', async () => {
    const { token, sessionId } = await launch('ex-tabs');
    const first = await stream(token);
    const second = await stream(token);
    const third = await stream(token);
    assert.equal(h.gameDeps.refresh.localCount(sessionId), 3);
    const fourth = await stream(token);
    assert.equal(fourth.res.status, 200);
    await until('the oldest stream ended', async () => first.ended, 5000, 10);
    assert.deepEqual(first.events.at(-1), { event: 'closed', data: { reason: 'superseded' } });
    assert.ok(!second.ended && !third.ended && !fourth.ended);
    assert.equal(h.gameDeps.refresh.localCount(sessionId), 3);
    // Its presence row is gone too: three rows for the session.
    await until(
      'three presence rows',
      async () =>
        (await h.db.pool.query(`SELECT 1 FROM subscriber_presence WHERE session_id = $1`, [sessionId]))
          .rowCount === 3,
    );
    const fifth = await stream(token);
    await until('the second stream ended', async () => second.ended, 5000, 10);
    for (const s of [third, fourth, fifth]) s.close();
  });

  test('the process holds at most its ceiling of streams: past it 503 with Retry-After', async () => {
    // The streams of the test before have been closed by their pages: let the server see it.
    await until('no stream left', async () => h.gameDeps.refresh.localCount() === 0, 5000, 10);
    const before = h.gameDeps.refresh.localCount();
    const saved = h.gameDeps.refresh.limits.perProcess;
    h.gameDeps.refresh.limits.perProcess = before + 2;
    try {
      const a = await launch('ex-full-a');
      const b = await launch('ex-full-b');
      const c = await launch('ex-full-c');
      const sa = await stream(a.token);
      const sb = await stream(b.token);
      const refused = await fetch(`${h.game}/api/runtime/events`, {
        headers: { 'x-session-token': c.token },
      });
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '30');
      assert.match(((await refused.json()) as { detail: string }).detail, /Too many open event streams/);
      assert.equal(h.gameDeps.refresh.localCount(), before + 2);
      // A session already holding streams at its own limit replaces its oldest even when full.
      h.gameDeps.refresh.limits.perSession = 1;
      const sa2 = await stream(a.token);
      assert.equal(sa2.res.status, 200);
      await until('the replaced stream ended', async () => sa.ended, 5000, 10);
      h.gameDeps.refresh.limits.perSession = 3;
      // One closes: there is room again.
      sb.close();
      await until('room', async () => h.gameDeps.refresh.localCount() < before + 2, 5000, 10);
      const sc = await stream(c.token);
      assert.equal(sc.res.status, 200);
      sa2.close();
      sc.close();
    } finally {
      h.gameDeps.refresh.limits.perProcess = saved;
      h.gameDeps.refresh.limits.perSession = 3;
    }
  });

  test('a stream ends when its session is revoked (at once) or expires (at the sweep)', async () => {
    const revokedOne = await launch('ex-revoke');
    const s1 = await stream(revokedOne.token);
    const other = await launch('ex-keep');
    const kept = await stream(other.token);
    const revoked = await call(h.base, 'POST', `/api/admin/v1/sessions/${revokedOne.sessionId}/revoke`, {
      key: ADMIN_KEY,
      sign: true,
      body: {},
    });
    assert.equal(revoked.status, 200, revoked.text);
    await until('the revoked session stream ended', async () => s1.ended, 5000, 10);
    assert.deepEqual(s1.events.at(-1), { event: 'closed', data: { reason: 'session_ended' } });

    // Revoked in another process (or directly in the database): the sweep finds it.
    const elsewhere = await launch('ex-revoke-elsewhere');
    const s2 = await stream(elsewhere.token);
    await h.db.pool.query(`UPDATE sessions SET status = 'revoked' WHERE session_id = $1`, [
      elsewhere.sessionId,
    ]);
    // Expired.
    const expiring = await launch('ex-expire');
    const s3 = await stream(expiring.token);
    await h.db.pool.query(
      `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE session_id = $1`,
      [expiring.sessionId],
    );
    // Relaunched with a new token: the old page's stream ends.
    const relaunched = await launch('ex-relaunch');
    const s4 = await stream(relaunched.token);
    await h.db.pool.query(`UPDATE sessions SET token_hash = $2 WHERE session_id = $1`, [
      relaunched.sessionId,
      'f'.repeat(64),
    ]);
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(!s2.ended && !s3.ended && !s4.ended, 'nothing ends before the sweep');
    await h.gameDeps.refresh.heartbeat();
    await until('the swept streams ended', async () => s2.ended && s3.ended && s4.ended, 5000, 10);
    for (const s of [s2, s3, s4])
      assert.deepEqual(s.events.at(-1), { event: 'closed', data: { reason: 'session_ended' } });
    assert.ok(!kept.ended, 'a live session keeps its stream');
    assert.equal(h.gameDeps.refresh.localCount(other.sessionId), 1);
    kept.close();
  });
});
