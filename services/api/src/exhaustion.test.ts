import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, assign, call, createOperator, type Harness, startApi } from '@opi/testkit/harness';
import { rawRequest } from '@opi/testkit/raw-http';

/*
 * Issue 23 point 6, "no one exhausts what others need", against the real API on a real database:
 * request bodies (oversize, before the key) and the paging of a free-round campaign's players. The
 * game server's side (crash demo limits, event streams, a slow body) is its own exhaustion test.
 */

let h: Harness;
let port: number;

before(async () => {
  // 127.0.0.1 (the test itself) is a trusted proxy here, so X-Forwarded-For names the client.
  h = await startApi({ TRUSTED_PROXIES: '127.0.0.1' });
  port = Number(new URL(h.base).port);
});
after(async () => {
  await h.close();
});

// --- request bodies ------------------------------------------------------------------------------

describe('request bodies', () => {
  const MiB = 1024 * 1024;
  const adminPost = (extra: string) =>
    `POST /api/admin/v1/operators HTTP/1.1\r\nHost: t\r\nx-provider-api-key: ${ADMIN_KEY}\r\ncontent-type: application/json\r\n${extra}\r\n`;

  test('a 20 MiB chunked body is answered 413 at once and the connection closed', async () => {
    const answer = await rawRequest(
      port,
      adminPost('Transfer-Encoding: chunked\r\n'),
      async (write, answered) => {
        const piece = Buffer.alloc(64 * 1024, 0x61);
        const chunk = Buffer.concat([
          Buffer.from(`${piece.length.toString(16)}\r\n`),
          piece,
          Buffer.from('\r\n'),
        ]);
        for (let sent = 0; sent < 20 * MiB && !answered(); sent += piece.length) {
          if (!(await write(chunk))) return;
        }
        if (!answered()) await write(Buffer.from('0\r\n\r\n'));
      },
    );
    assert.equal(answer.status, 413);
    assert.equal(answer.headers.connection, 'close');
    assert.match(JSON.parse(answer.body).detail, /larger than 65536 bytes/);
    assert.ok(answer.closedByServer, 'the server closes the connection');
    // Measured here: answered in ~10-60 ms with well under 20 MiB written (the server stops
    // reading past 64 KiB; the client stalls on the full socket buffers).
    assert.ok(answer.answeredAfterMs < 1000, `answered after ${answer.answeredAfterMs} ms`);
    assert.ok(
      answer.bodyBytesWritten < 20 * MiB,
      `the client had written ${answer.bodyBytesWritten} bytes when the answer came`,
    );
  });

  test('a declared 20 MiB body is refused before any of it is sent, and the connection closed', async () => {
    const answer = await rawRequest(port, adminPost(`Content-Length: ${20 * MiB}\r\n`));
    assert.equal(answer.status, 413);
    assert.equal(answer.headers.connection, 'close');
    assert.equal(answer.bodyBytesWritten, 0);
    assert.ok(answer.closedByServer);
    assert.ok(answer.answeredAfterMs < 1000, `answered after ${answer.answeredAfterMs} ms`);
  });

  test('the artwork upload without a key (or with a wrong one) is 401 before its body is read', async () => {
    const symbol = CATALOG.find((e) => e.provider_id === 'prov_a')!.symbol;
    for (const keyHeader of ['', 'x-provider-api-key: padm_not_a_key_at_all_0123456789abcdef\r\n']) {
      // 4 MiB declared (under the 5 MiB limit), none of it sent: the answer cannot wait for it.
      const answer = await rawRequest(
        port,
        `PUT /api/admin/v1/games/${symbol}/artwork?format=vertical HTTP/1.1\r\nHost: t\r\n${keyHeader}content-type: image/png\r\nContent-Length: ${4 * MiB}\r\n\r\n`,
      );
      assert.equal(answer.status, 401, answer.body);
      assert.match(JSON.parse(answer.body).detail, keyHeader ? /Invalid API key/ : /Missing API key/);
      assert.equal(answer.bodyBytesWritten, 0);
      assert.ok(answer.answeredAfterMs < 1000, `answered after ${answer.answeredAfterMs} ms`);
      assert.equal(answer.headers.connection, 'close');
      assert.ok(answer.closedByServer);
    }
    // With the key the same request waits for its body (and is refused only when it is too large).
    const big = await rawRequest(
      port,
      `PUT /api/admin/v1/games/${symbol}/artwork?format=vertical HTTP/1.1\r\nHost: t\r\nx-provider-api-key: ${ADMIN_KEY}\r\ncontent-type: image/png\r\nContent-Length: ${6 * MiB}\r\n\r\n`,
    );
    assert.equal(big.status, 413);
  });
});

// --- free-round campaign players -----------------------------------------------------------------

describe('GET /api/provider/v1/free-rounds/{campaign_id}: the players in pages', () => {
  const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
  let key: string;
  const players = [
    ...Array.from({ length: 1000 }, (_, i) => `fr-p-${String(i).padStart(4, '0')}`),
    ...Array.from({ length: 1000 }, (_, i) => `fr-q-${i}`),
    // Ids that sort around the others, and characters a cursor must carry.
    'A-first',
    'zz-last',
    'fr-p-0500 ',
    'fr-p-0500x',
    'joueur-é-日本',
  ].map((p) => p.trim());
  const api = (method: string, path: string, body?: unknown) =>
    call(h.base, method, `/api/provider/v1${path}`, { key, sign: true, ...(body ? { body } : {}) });

  before(async () => {
    key = (await createOperator(h.base, 'op_exhaust_fr')).key;
    await assign(h.base, 'op_exhaust_fr', [slot.symbol]);
    const created = await api('POST', '/free-rounds', {
      campaign_id: 'big-campaign',
      symbols: [slot.symbol],
      currency: 'EUR',
      bet_minor: 100,
      rounds: 3,
      valid_from: new Date(Date.now() - 3600_000).toISOString(),
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      players: players.slice(0, 1000),
    });
    assert.equal(created.status, 201, created.text);
    // The create answers the first page: all 1000 players, and no further page yet.
    assert.equal(created.json.data.players.length, 1000);
    assert.equal(created.json.data.players_next_cursor, null);
    const added = await api('POST', '/free-rounds/big-campaign/players', {
      players: players.slice(1000, 2000),
    });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.json.data.players.length, 1000);
    assert.equal(typeof added.json.data.players_next_cursor, 'string');
    assert.equal(
      (await api('POST', '/free-rounds/big-campaign/players', { players: players.slice(2000) })).status,
      200,
    );
  });

  test('the first page by default, then every page by cursor: each player exactly once, in order', async () => {
    const unique = [...new Set(players)];
    const first = await api('GET', '/free-rounds/big-campaign');
    assert.equal(first.status, 200);
    assert.equal(first.json.data.players_count, unique.length);
    assert.equal(first.json.data.players.length, 1000, 'the first page in the same field');
    assert.equal(typeof first.json.data.players_next_cursor, 'string');

    for (const limit of [1000, 333, 1]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Awaited<ReturnType<typeof api>> = await api(
          'GET',
          `/free-rounds/big-campaign?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        assert.equal(page.status, 200, page.text);
        assert.ok(page.json.data.players.length <= limit);
        seen.push(...page.json.data.players.map((p: { external_player_id: string }) => p.external_player_id));
        cursor = page.json.data.players_next_cursor;
        pages++;
        if (limit === 1 && pages > 20) break; // enough single-player pages to see the cursor work
      } while (cursor);
      if (limit === 1) {
        assert.equal(seen.length, 21);
        assert.equal(new Set(seen).size, 21);
        continue;
      }
      assert.equal(pages, Math.ceil(unique.length / limit));
      assert.equal(seen.length, unique.length, 'every player once');
      assert.deepEqual(new Set(seen), new Set(unique));
      // In the database's player id order, the same as one unpaged read.
      const { rows } = await h.db.pool.query<{ external_player_id: string }>(
        `SELECT external_player_id FROM free_round_grants WHERE campaign_id = 'big-campaign' ORDER BY external_player_id`,
      );
      assert.deepEqual(
        seen,
        rows.map((r) => r.external_player_id),
      );
    }
  });

  test('a bad limit or a cursor this service did not give is 422', async () => {
    for (const q of [
      'limit=0',
      'limit=1001',
      'limit=x',
      'cursor=!!',
      `cursor=${Buffer.from(' x').toString('base64url')}`,
    ]) {
      const res = await api('GET', `/free-rounds/big-campaign?${q}`);
      assert.equal(res.status, 422, `${q}: ${res.text}`);
      assert.ok(Array.isArray(res.json.detail));
    }
  });
});
