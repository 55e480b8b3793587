import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createSecretBox } from '@opi/db';
import { CATALOG, chainSeed, crashPointCents, SYMBOL_NAMES } from '@opi/games';
import { replayLinkKey, roundDetailsPath, shareReplayUrl } from '@opi/signing';
import { call, type Harness, SERVICE_SECRET } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import { type RoundIntent, transactionIdsFor } from '@opi/wallet';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { cancelUpdate, recordRound, startSettlement, stateQuery } from '@opi/workflows';
import type { Client } from '@temporalio/client';
import { PAGE_CSP } from '../slots/page-routes.js';

// The replay page without a browser: the link checks (bad, tampered, unknown, expired), the
// headers, and what the HTML says for a played slot round and for rounds that were rejected,
// cancelled or rolled back, on the real stack (spins through the runtime route, the sandbox wallet
// over HTTP, settlement workflows on the Temporal dev server).
const OP = 'op_replay';
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const key = replayLinkKey(SERVICE_SECRET);
const box = createSecretBox(SERVICE_SECRET);
const FAST = { initialRetryMs: 50, maxRetryMs: 200, debitAttemptsBeforeRollback: 3 };

let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let client: Client;
let taskQueue: string;

before(async () => {
  w = await startPlayWorld({
    queue: 'replay',
    operatorWalletTitles: ['cnmines'],
    operators: [
      {
        id: OP,
        titles: [slot.symbol, 'cnmines', 'dcrash1'],
        settings: { default_currency: 'EUR', allowed_currencies: ['EUR', 'USD'] },
      },
    ],
    worker: { settlement: { walletTimeoutMs: 2_000, stuckAfterAttempts: 2 } },
    client: true,
  });
  ({ h, admin, taskQueue } = w);
  client = w.client!;
});
after(() => w.close());

async function player(balance: number) {
  const ext = `rp-${randomUUID().slice(0, 10)}`;
  await admin.createPlayer({ operatorId: OP, playerId: ext, currency: 'EUR', balanceMinor: balance });
  const l = await w.launch(w.key, { symbol: slot.symbol, external_player_id: ext, currency: 'EUR' });
  return { ext, token: l.token!, sessionId: l.sessionId };
}

const get = (path: string) => call(h.game, 'GET', path);

/** A round recorded as the runtime records one, settled by the workflow with short retries. */
async function workflowRound(sessionId: string, ext: string, win: string | null) {
  const { rows } = await h.db.pool.query<{ player_id: string }>(
    'SELECT player_id FROM sessions WHERE session_id = $1',
    [sessionId],
  );
  const roundId = `r_${randomUUID()}`;
  const intent: RoundIntent = {
    roundId,
    operatorId: OP,
    sessionId,
    playerId: ext,
    gameSymbol: slot.symbol,
    providerId: 'prov_a',
    currency: 'EUR',
    actionType: 'spin',
    stakeMinor: '100',
    winMinor: win,
    transactions: transactionIdsFor(roundId),
    ...(win === null ? { multiStep: { abandonAfterSeconds: 600, rule: 'loss' as const } } : {}),
  };
  await recordRound(h.db.pool, { intent, playerPk: rows[0]!.player_id });
  return { intent, handle: await startSettlement(client, taskQueue, intent, FAST) };
}

function assertPageHeaders(res: { headers: Headers }) {
  assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(res.headers.get('content-security-policy'), PAGE_CSP);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
}

const attrs = (html: string, testid: string, name: string): string[] =>
  [...html.matchAll(new RegExp(`data-testid="${testid}"[^>]*?${name}="([^"]*)"`, 'g'))].map((m) => m[1]!);

describe('replay links', () => {
  let roundId = '';
  let html = '';
  before(async () => {
    const p = await player(10_000);
    const res = await w.spin(p.token, { bet_minor: 100 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.status, 'completed', res.text);
    roundId = res.json.round_id;
  });

  test('the details link opens the stored slot round with the game pages headers', async () => {
    const res = await get(roundDetailsPath(key, roundId));
    assert.equal(res.status, 200, res.text);
    assertPageHeaders(res);
    html = res.text;
    assert.match(html, new RegExp(`data-round-id="${roundId}"`));
    assert.match(html, /data-family="slot" data-status="completed"/);
    assert.ok(!html.includes('data-testid="replay-status"'), 'no status banner for a completed round');
    assert.ok(!/<script(?![^>]*\bsrc=)(?![^>]*application\/json)/.test(html), 'no inline script');
    const { rows } = await h.db.pool.query(
      `SELECT bet_minor::text, win_minor::text, outcome FROM rounds WHERE round_id = $1`,
      [roundId],
    );
    const grid: number[][] = rows[0].outcome.grid;
    // Row-major cells: row 0 reels 0..4, then row 1, row 2.
    const expected = [0, 1, 2].flatMap((row) => grid.map((reel) => SYMBOL_NAMES[reel[row]!]!));
    assert.deepEqual(attrs(html, 'replay-cell', 'data-symbol'), expected);
    assert.deepEqual(attrs(html, 'replay-stake', 'data-minor'), [rows[0].bet_minor]);
    assert.deepEqual(attrs(html, 'replay-win', 'data-minor'), [rows[0].win_minor]);
    // The balance from the wallet's journalled answers: 100.00 before the 1.00 bet.
    assert.deepEqual(attrs(html, 'replay-balance-before', 'data-minor'), ['10000']);
    const after = String(10_000 - 100 + Number(rows[0].win_minor));
    assert.deepEqual(attrs(html, 'replay-balance-after', 'data-minor'), [after]);
    const wins = rows[0].outcome.lineWins as { line: number; winMinor: string }[];
    assert.deepEqual(
      attrs(html, 'replay-line-win', 'data-win-minor'),
      wins.map((l) => l.winMinor),
    );
    // Its script and style sheet are served from content-hashed paths.
    for (const m of html.matchAll(/(?:src|href)="(\/replay\/static\/[^"]+)"/g)) {
      const asset = await get(m[1]!);
      assert.equal(asset.status, 200, m[1]);
      assert.match(asset.headers.get('cache-control')!, /immutable/);
    }
    assert.equal((await get('/replay/static/replay-000000000000.js')).status, 404);
  });

  test('a bad, malformed or repeated signature, a tampered or unknown round: 404 with no data', async () => {
    const good = new URL(roundDetailsPath(key, roundId), 'http://x');
    const sig = good.searchParams.get('sig')!;
    const flipped = `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`;
    const otherRound = `r_${randomUUID()}`;
    const cases = {
      'bad signature': `/replay/${roundId}?sig=${flipped}`,
      'no signature': `/replay/${roundId}`,
      'malformed signature': `/replay/${roundId}?sig=abc`,
      'repeated signature': `/replay/${roundId}?sig=${sig}&sig=${sig}`,
      // The round id changed, the signature kept: another round's id is refused.
      'tampered round id': `/replay/${otherRound}?sig=${sig}`,
      // Signed by another key (another SERVICE_SECRET).
      'another key': roundDetailsPath(replayLinkKey('another-secret'), roundId),
      // A correctly signed link for a round that does not exist.
      'unknown round': roundDetailsPath(key, otherRound),
    };
    for (const [what, path] of Object.entries(cases)) {
      const res = await get(path);
      assert.equal(res.status, 404, `${what}: ${res.status}`);
      assertPageHeaders(res);
      assert.match(res.text, /data-testid="replay-error"[^>]*data-reason="not_found"/, what);
      assert.ok(!res.text.includes(roundId), `${what}: the round is not named`);
      assert.ok(!res.text.includes('replay-cell'), `${what}: no round data`);
      assert.ok(!res.text.includes('<script'), `${what}: no script`);
    }
  });

  test('a share link opens the round until it expires (then 410); its signature is no details link', async () => {
    const share = shareReplayUrl('http://games.test', key, roundId);
    const path = share.url.slice('http://games.test'.length);
    const ok = await get(path);
    assert.equal(ok.status, 200, ok.text);
    assert.match(ok.text, new RegExp(`data-round-id="${roundId}"`));
    const u = new URL(share.url);
    const noExp = await get(`/replay/${roundId}?sig=${u.searchParams.get('sig')}`);
    assert.equal(noExp.status, 404, 'a share signature without its exp');
    const laterExp = await get(
      `/replay/${roundId}?exp=${Number(u.searchParams.get('exp')) + 60}&sig=${u.searchParams.get('sig')}`,
    );
    assert.equal(laterExp.status, 404, 'an extended exp');
    const old = shareReplayUrl('http://games.test', key, roundId, Date.now() - 601_000);
    const expired = await get(old.url.slice('http://games.test'.length));
    assert.equal(expired.status, 410);
    assertPageHeaders(expired);
    assert.match(expired.text, /data-reason="expired"/);
    assert.ok(!expired.text.includes(roundId), 'no data on an expired link');
  });
});

describe('statuses', () => {
  test('a rejected round says so and shows no outcome', async () => {
    const p = await player(50);
    const res = await w.spin(p.token, { bet_minor: 100 });
    assert.equal(res.json.status, 'rejected', res.text);
    const page = await get(roundDetailsPath(key, res.json.round_id));
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /data-testid="replay-status" data-status="rejected"/);
    assert.match(page.text, /rejected: the wallet refused the bet/);
    assert.ok(!page.text.includes('data-testid="replay-cell"'), 'no reels for a refused bet');
    assert.match(page.text, /data-testid="replay-no-outcome"/);
  });

  test('an open round is pending; a cancelled one and a rolled-back one say so', async () => {
    const p = await player(10_000);
    const c = await workflowRound(p.sessionId, p.ext, null);
    await until('the debit', async () => (await c.handle.query(stateQuery)).phase === 'open');
    const open = await get(roundDetailsPath(key, c.intent.roundId));
    assert.equal(open.status, 200, open.text);
    assert.match(open.text, /data-testid="replay-status" data-status="open"/);
    assert.match(open.text, /pending/);
    const cancelled = await c.handle.executeUpdate(cancelUpdate, { args: [{ reason: 'staff' }] });
    assert.equal(cancelled.status, 'cancelled');
    const page = await get(roundDetailsPath(key, c.intent.roundId));
    assert.equal(page.status, 200, page.text);
    assertPageHeaders(page);
    assert.match(page.text, /data-testid="replay-status" data-status="cancelled"/);
    assert.match(page.text, /This round was cancelled/);

    await admin.setFaults({ error5xxRate: 1 });
    try {
      const rb = await workflowRound(p.sessionId, p.ext, '0');
      await until('the rollback', async () => {
        const { rows } = await h.db.pool.query(
          `SELECT 1 FROM wallet_transactions WHERE transaction_id = $1`,
          [rb.intent.transactions.rollback],
        );
        return rows.length === 1;
      });
      await admin.setFaults({});
      assert.equal((await rb.handle.result()).status, 'rolled_back');
      const rolled = await get(roundDetailsPath(key, rb.intent.roundId));
      assert.equal(rolled.status, 200, rolled.text);
      assert.match(rolled.text, /data-testid="replay-status" data-status="rolled_back"/);
      assert.match(rolled.text, /rolled back/);
    } finally {
      await admin.setFaults({});
    }
  });
});

describe('nothing is revealed early', () => {
  test('an open Mines round shows its picks but not its layout', async () => {
    const ext = `rp-${randomUUID().slice(0, 10)}`;
    await admin.createPlayer({ operatorId: OP, playerId: ext, currency: 'EUR', balanceMinor: 100_000 });
    const l = await w.launch(w.key, { symbol: 'cnmines', external_player_id: ext, currency: 'EUR' });
    const ex = await call(h.game, 'POST', '/api/runtime/native/session-from-grant', {
      body: { grant: l.grant },
    });
    assert.equal(ex.status, 200, ex.text);
    const native = (path: string, body: Record<string, unknown>) =>
      call(h.game, 'POST', `/api/runtime/native/${path}`, {
        headers: { 'x-session-token': ex.json.token },
        body,
      });
    const b = await native('bet', { stake_minor: 1000, mines: 5 });
    assert.equal(b.status, 200, b.text);
    const roundId = b.json.round.round_id as string;
    const { rows } = await h.db.pool.query(`SELECT outcome FROM rounds WHERE round_id = $1`, [roundId]);
    const mines: number[] = rows[0].outcome.mines;
    const cell = Array.from({ length: 25 }, (_, i) => i).find((i) => !mines.includes(i))!;
    assert.equal((await native('action', { round_id: roundId, action: 'reveal', cell })).status, 200);
    const page = await get(roundDetailsPath(key, roundId));
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /data-testid="replay-status" data-status="open"/);
    assert.match(page.text, /data-mines-shown="false"/);
    assert.deepEqual(
      attrs(page.text, 'replay-mine-cell', 'data-state').filter((s) => s !== 'hidden'),
      ['safe'],
    );
    assert.ok(!page.text.includes('application/json'), 'no data block');
    assert.ok(!page.text.includes(JSON.stringify(mines)), 'the layout is nowhere on the page');
    assert.deepEqual(attrs(page.text, 'replay-stage', 'data-action'), ['bet', 'reveal']);
    // Once cashed out, the layout is shown.
    assert.equal((await native('action', { round_id: roundId, action: 'cashout' })).status, 200);
    await until('settled', async () => {
      const r = await h.db.pool.query(`SELECT status FROM rounds WHERE round_id = $1`, [roundId]);
      return r.rows[0].status === 'completed';
    });
    const done = await get(roundDetailsPath(key, roundId));
    assert.deepEqual(
      attrs(done.text, 'replay-mine-cell', 'data-state')
        .map((s, i) => [s, i] as const)
        .filter(([s]) => s === 'mine')
        .map(([, i]) => i),
      [...mines].sort((a, c) => a - c),
    );
  });

  test('a running crash round shows no server seed and no crash point until it ends', async () => {
    const ext = `rp-${randomUUID().slice(0, 10)}`;
    await admin.createPlayer({ operatorId: OP, playerId: ext, currency: 'USD', balanceMinor: 100_000 });
    const l = await w.launch(w.key, { symbol: 'dcrash1', external_player_id: ext, currency: 'USD' });
    const auth = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
      headers: { 'x-login-grant': l.login! },
    });
    assert.equal(auth.status, 200, auth.text);
    const rt = (method: string, path: string, body?: unknown) =>
      call(h.game, method, `/api/runtime/crash${path}`, {
        headers: { 'x-session-token': auth.json.session_token },
        ...(body === undefined ? {} : { body }),
      });
    const state = await rt('GET', '/state');
    const { rows: chains } = await h.db.pool.query(
      `SELECT c.root_seed_enc, c.length, c.next_position FROM crash_seed_chains c JOIN players p ON p.player_id = c.player_id
       WHERE p.external_player_id = $1 AND p.operator_id = $2 AND c.symbol = 'dcrash1' AND c.exhausted_at IS NULL`,
      [ext, OP],
    );
    const chain = chains[0]!;
    const seed = chainSeed(box.decrypt(chain.root_seed_enc), chain.length, chain.next_position);
    let clientSeed = '';
    for (let i = 0; !clientSeed; i++) {
      if (crashPointCents(seed, `late-${i}`, chain.next_position, '97.00') >= 3000) clientSeed = `late-${i}`;
    }
    const placed = await rt('POST', '/bet', {
      stake_minor: 100,
      client_seed: clientSeed,
      commitment: state.json.next.commitment,
    });
    assert.equal(placed.status, 200, placed.text);
    const roundId = placed.json.round.round_id as string;
    await until('running', async () => (await rt('GET', `/rounds/${roundId}`)).json.state === 'running');
    const running = await get(roundDetailsPath(key, roundId));
    assert.equal(running.status, 200, running.text);
    assert.match(running.text, /data-testid="replay-status" data-status="open"/);
    assert.ok(!running.text.includes(seed), 'the server seed is not on the page');
    assert.match(running.text, /data-testid="fairness-result" data-result="unrevealed"/);
    assert.match(running.text, /data-testid="replay-crash-point">not yet revealed/);
    assert.ok(!running.text.includes('id="replay-data"'), 'no fairness data block before the end');
    // Cashed out: the round has ended and the seed is revealed.
    await until('cashed out', async () => {
      const out = await rt('POST', '/cashout', { round_id: roundId });
      return out.status === 200 && out.json.round.state === 'cashed_out';
    });
    const ended = await get(roundDetailsPath(key, roundId));
    assert.ok(ended.text.includes(seed), 'the server seed is revealed once the round has ended');
    assert.match(ended.text, /data-testid="fairness-result" data-result="checking"/);
  });
});
