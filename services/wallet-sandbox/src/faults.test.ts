import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { loadWalletConfig } from './config.js';
import { FaultInjector, NO_FAULTS } from './faults.js';
import {
  balanceMinor,
  callbackBody,
  newPlayer,
  send,
  startWallet,
  type WalletHarness,
} from './test-support/harness.js';

let h: WalletHarness;
before(async () => {
  h = await startWallet();
});
beforeEach(async () => {
  await h.admin.setFaults({});
});
after(async () => {
  await h.close();
});

/** The error a failed fetch carries: undici wraps the socket error in `cause`. */
function socketError(err: unknown): boolean {
  const e = err as { name?: string; cause?: { code?: string } };
  return e.name === 'TypeError' && typeof e.cause === 'object';
}

describe('fault injection (only on /wallet routes)', () => {
  test('error5xxRate: HTTP 500 injected_fault, nothing applied', async () => {
    const player = await newPlayer(h, 1000);
    await h.admin.setFaults({ error5xxRate: 1 });
    const body = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    const res = await send(h, body);
    assert.equal(res.status, 500);
    assert.deepEqual(res.json, {
      success: false,
      error: 'injected_fault',
      message: 'fault injection: simulated server error',
    });
    // The admin API is not affected.
    assert.equal(await balanceMinor(h, player), 1000n);
    await h.admin.setFaults({});
    const retry = await send(h, body);
    assert.equal(retry.status, 200);
    assert.equal(retry.json.balance, '9.00');
    assert.equal((await h.admin.getFaults()).counters.error5xx >= 1, true);
  });

  test('resetRate: the socket is destroyed before anything happens', async () => {
    const player = await newPlayer(h, 1000);
    await h.admin.setFaults({ resetRate: 1 });
    const body = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    await assert.rejects(send(h, body), socketError);
    await h.admin.setFaults({});
    assert.equal(await balanceMinor(h, player), 1000n);
    const { rowCount } = await h.db.pool.query('SELECT 1 FROM wallet.requests WHERE transaction_id = $1', [
      body.transaction_id,
    ]);
    assert.equal(rowCount, 0);
  });

  test('timeoutRate: no answer until the client gives up', async () => {
    const player = await newPlayer(h, 1000);
    await h.admin.setFaults({ timeoutRate: 1 });
    const started = Date.now();
    await assert.rejects(
      send(h, callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 }), {
        signal: AbortSignal.timeout(400),
      }),
      (err: unknown) => (err as Error).name === 'TimeoutError',
    );
    assert.ok(Date.now() - started >= 390);
    await h.admin.setFaults({});
    assert.equal(await balanceMinor(h, player), 1000n);
  });

  test('dropAfterCommitRate: the debit is committed, the answer lost; the repeat returns the committed result', async () => {
    const player = await newPlayer(h, 1000);
    await h.admin.setFaults({ dropAfterCommitRate: 1 });
    const body = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    await assert.rejects(send(h, body), socketError);
    await h.admin.setFaults({});
    // Committed although the caller never saw an answer.
    assert.equal(await balanceMinor(h, player), 900n);
    const repeat = await send(h, body);
    assert.equal(repeat.status, 200);
    assert.equal(repeat.json.balance, '9.00');
    assert.equal(repeat.json.transaction_id, body.transaction_id);
    assert.equal(await balanceMinor(h, player), 900n);
    const { rows } = await h.db.pool.query(
      'SELECT outcome FROM wallet.requests WHERE transaction_id = $1 ORDER BY request_seq',
      [body.transaction_id],
    );
    assert.deepEqual(
      rows.map((r) => r.outcome),
      ['applied', 'replayed'],
    );
  });

  test('latency: the answer is delayed within [min, max]', async () => {
    const player = await newPlayer(h, 1000);
    await h.admin.setFaults({ latencyMs: [150, 200], latencyRate: 1 });
    const started = Date.now();
    const res = await send(
      h,
      callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 }),
    );
    const elapsed = Date.now() - started;
    assert.equal(res.status, 200);
    assert.ok(elapsed >= 145, `elapsed ${elapsed}`);
  });

  test('faults do not touch /admin or /health', async () => {
    await h.admin.setFaults({ resetRate: 1, error5xxRate: 1 });
    assert.equal((await fetch(`${h.base}/health`)).status, 200);
    const state = await h.admin.getFaults();
    assert.equal(state.faults.resetRate, 1);
    await h.admin.setFaults({});
  });

  test('the admin endpoint validates the configuration', async () => {
    for (const bad of [
      { error5xxRate: 2 },
      { latencyMs: [50, 10] },
      { resetRate: -0.1 },
      { unknownRate: 0.5 },
    ]) {
      const res = await fetch(`${h.base}/admin/faults`, {
        method: 'PUT',
        headers: {
          'x-sandbox-admin-token': 'test-admin-token-0123456789',
          'content-type': 'application/json',
        },
        body: JSON.stringify(bad),
      });
      assert.equal(res.status, 400, JSON.stringify(bad));
    }
    assert.deepEqual((await h.admin.getFaults()).faults, NO_FAULTS);
  });

  test('probabilities are honoured (injected random source)', async () => {
    const sequence = [0.05, 0.5, 0.95];
    let i = 0;
    const injector = new FaultInjector({ error5xxRate: 0.5 }, () => sequence[i++ % sequence.length]!);
    const faulty = await startWallet({ faults: injector }, h.db);
    try {
      const player = await newPlayer(faulty, 1000);
      const statuses: number[] = [];
      for (let n = 0; n < 3; n++) {
        statuses.push(
          (
            await send(
              faulty,
              callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 }),
            )
          ).status,
        );
      }
      assert.deepEqual(statuses, [500, 200, 200]);
    } finally {
      await faulty.close();
    }
  });
});

describe('configuration', () => {
  test('WALLET_FAULTS, WALLET_ADMIN_TOKEN and WALLET_AUTO_CREATE_PLAYERS_MINOR are parsed by the wallet schema', () => {
    const cfg = loadWalletConfig({
      WALLET_PORT: '18090',
      WALLET_ADMIN_TOKEN: 'admin-token-0123456789',
      WALLET_FAULTS: '{"error5xxRate":0.1,"latencyMs":[5,50],"latencyRate":1}',
      WALLET_AUTO_CREATE_PLAYERS_MINOR: '100000',
      SIGNATURE_MAX_SKEW_SECONDS: '120',
    });
    assert.equal(cfg.port, 18090);
    assert.equal(cfg.adminToken, 'admin-token-0123456789');
    assert.deepEqual(cfg.faults, { ...NO_FAULTS, error5xxRate: 0.1, latencyMs: [5, 50], latencyRate: 1 });
    assert.equal(cfg.autoCreatePlayersWithMinor, 100000n);
    assert.equal(cfg.maxSkewSeconds, 120);
  });

  test('defaults: strict players, no faults, admin disabled', () => {
    const cfg = loadWalletConfig({ WALLET_FAULTS: '', WALLET_AUTO_CREATE_PLAYERS_MINOR: '' });
    assert.equal(cfg.autoCreatePlayersWithMinor, null);
    assert.equal(cfg.faults, undefined);
    assert.equal(cfg.adminToken, undefined);
    assert.equal(cfg.port, 8090);
    assert.equal(cfg.maxSkewSeconds, 300);
  });

  test('bad values name the variable', () => {
    for (const [name, value] of [
      ['WALLET_FAULTS', 'not json'],
      ['WALLET_FAULTS', '{"error5xxRate":3}'],
      ['WALLET_AUTO_CREATE_PLAYERS_MINOR', '-5'],
      ['WALLET_AUTO_CREATE_PLAYERS_MINOR', '1.5'],
      ['WALLET_ADMIN_TOKEN', 'short'],
    ] as const) {
      assert.throws(
        () => loadWalletConfig({ [name]: value }),
        (err: unknown) => err instanceof Error && err.message.includes(name),
        `${name}=${value}`,
      );
    }
  });
});
