import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newCallbackNonce, signWalletCallback, unixSeconds } from '@opi/signing';
import {
  balanceMinor,
  callbackBody,
  newPlayer,
  OPERATOR_ID,
  SECRET,
  send,
  sendCallback,
  startWallet,
  type WalletHarness,
} from './test-support/harness.js';

let h: WalletHarness;
before(async () => {
  h = await startWallet();
});
after(async () => {
  await h.close();
});

function assertInvalidSignature(res: { status: number; json: any; text: string }) {
  assert.equal(res.status, 401, res.text);
  assert.equal(res.json.success, false);
  assert.equal(res.json.error, 'invalid_signature');
  assert.equal(typeof res.json.message, 'string');
}

async function requestCount(): Promise<number> {
  const { rows } = await h.db.pool.query<{ n: bigint }>('SELECT count(*) AS n FROM wallet.requests');
  return Number(rows[0]!.n);
}

describe('signature verification over the raw bytes', () => {
  test('a good signature is accepted: 200 with the decimal balance', async () => {
    const player = await newPlayer(h, 1000);
    const res = await send(
      h,
      callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 }),
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.success, true);
    assert.equal(res.json.balance, '10.00');
    assert.equal(res.json.currency, 'EUR');
  });

  test('the signature covers bytes, not JSON meaning: insignificant whitespace signed as sent is fine', async () => {
    const player = await newPlayer(h, 500);
    const body = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    const raw = JSON.stringify(body, null, 2);
    const res = await sendCallback(h.walletUrl, 'debit', raw);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.balance, '4.00');
  });

  test('a bad signature, a wrong secret, a missing signature → 401 invalid_signature, no money moved', async () => {
    const player = await newPlayer(h, 1000);
    const before = await requestCount();
    const body = () => callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    assertInvalidSignature(await send(h, body(), { signature: '0'.repeat(64) }));
    assertInvalidSignature(await send(h, body(), { signature: 'not-hex' }));
    assertInvalidSignature(await send(h, body(), { secret: 'wsec_some_other_secret_0123456789' }));
    assertInvalidSignature(await send(h, body(), { unsigned: true }));
    assert.equal(await balanceMinor(h, player), 1000n);
    assert.equal(await requestCount(), before, 'unverified requests are not recorded');
  });

  test('upper-case hex signatures are accepted', async () => {
    const player = await newPlayer(h, 1000);
    const body = callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 });
    const raw = JSON.stringify(body);
    const timestamp = unixSeconds();
    const nonce = newCallbackNonce();
    const signature = signWalletCallback(SECRET, { timestamp, nonce, body: raw }).toUpperCase();
    const res = await sendCallback(h.walletUrl, 'balance', raw, { timestamp, nonce, signature });
    assert.equal(res.status, 200, res.text);
  });

  test('a body altered by one byte after signing → 401', async () => {
    const player = await newPlayer(h, 1000);
    const raw = JSON.stringify(
      callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 }),
    );
    const altered = raw.replace('"amount_minor":100', '"amount_minor":900');
    assert.equal(altered.length, raw.length);
    assertInvalidSignature(await sendCallback(h.walletUrl, 'debit', raw, { sendRaw: altered }));
    // One trailing byte is enough too.
    assertInvalidSignature(await sendCallback(h.walletUrl, 'debit', raw, { sendRaw: `${raw} ` }));
    assert.equal(await balanceMinor(h, player), 1000n);
  });

  test('stale and future timestamps beyond 300 s → 401; malformed timestamps → 401', async () => {
    const player = await newPlayer(h, 1000);
    const now = Number(unixSeconds());
    for (const timestamp of [String(now - 301), String(now + 301), '17e8', '', `${now}.5`]) {
      const body = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
      assertInvalidSignature(await send(h, body, { timestamp }));
    }
    const edge = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    assert.equal((await send(h, edge, { timestamp: String(now - 250) })).status, 200);
    assert.equal(await balanceMinor(h, player), 900n);
  });

  test('the skew is configurable', async () => {
    const narrow = await startWallet({ maxSkewSeconds: 10 });
    try {
      const player = await newPlayer(narrow, 100);
      const body = callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 });
      assertInvalidSignature(await send(narrow, body, { timestamp: String(Number(unixSeconds()) - 60) }));
      assert.equal((await send(narrow, body)).status, 200);
    } finally {
      await narrow.close();
    }
  });

  test('a reused nonce → 401, even with a correct signature and a fresh body', async () => {
    const player = await newPlayer(h, 1000);
    const nonce = newCallbackNonce();
    const first = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    assert.equal((await send(h, first, { nonce })).status, 200);
    // The exact replay of a captured request.
    assertInvalidSignature(await send(h, first, { nonce }));
    // A different request signed with the same nonce.
    const second = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    assertInvalidSignature(await send(h, second, { nonce }));
    assert.equal(await balanceMinor(h, player), 900n);
  });

  test('malformed nonces → 401', async () => {
    const player = await newPlayer(h, 1000);
    for (const nonce of ['short', 'A'.repeat(32), 'g'.repeat(32), 'a'.repeat(33)]) {
      const body = callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 });
      assertInvalidSignature(await send(h, body, { nonce }));
    }
  });

  test('an unknown operator, a body that is not JSON or lacks operator_id → 401', async () => {
    const player = await newPlayer(h, 1000);
    const unknown = callbackBody({
      transaction_type: 'balance',
      player_id: player,
      amount_minor: 0,
      operator_id: 'op_nobody',
    });
    assertInvalidSignature(await send(h, unknown));
    assertInvalidSignature(await sendCallback(h.walletUrl, 'balance', 'not json'));
    assertInvalidSignature(await sendCallback(h.walletUrl, 'balance', '[1,2]'));
    const { operator_id: _omit, ...noOperator } = callbackBody({
      transaction_type: 'balance',
      player_id: player,
      amount_minor: 0,
    });
    assertInvalidSignature(await sendCallback(h.walletUrl, 'balance', noOperator));
  });

  test('rotating the operator secret takes effect immediately', async () => {
    const player = await newPlayer(h, 1000);
    const body = () => callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 });
    const rotated = 'wsec_rotated_secret_0123456789abcdef';
    await h.admin.setSecret(OPERATOR_ID, rotated);
    try {
      assertInvalidSignature(await send(h, body()));
      assert.equal((await send(h, body(), { secret: rotated })).status, 200);
    } finally {
      await h.admin.setSecret(OPERATOR_ID, SECRET);
    }
  });

  test('nonces older than twice the skew window are purged', async () => {
    const player = await newPlayer(h, 1000);
    const nonce = newCallbackNonce();
    await send(h, callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 }), {
      nonce,
    });
    await h.db.pool.query(
      `UPDATE wallet.seen_nonces SET seen_at = now() - interval '11 minutes' WHERE nonce = $1`,
      [nonce],
    );
    const purged = await h.app.service.purgeNonces(300);
    assert.ok(purged >= 1);
    const { rowCount } = await h.db.pool.query('SELECT 1 FROM wallet.seen_nonces WHERE nonce = $1', [nonce]);
    assert.equal(rowCount, 0);
  });
});

describe('validation after verification', () => {
  test('the path operation must equal transaction_type → 400 invalid_request', async () => {
    const player = await newPlayer(h, 1000);
    const body = callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 100 });
    const res = await sendCallback(h.walletUrl, 'debit', body);
    assert.equal(res.status, 400);
    assert.equal(res.json.error, 'invalid_request');
    assert.equal(await balanceMinor(h, player), 1000n);
  });

  test('schema failures → 400 invalid_request', async () => {
    const player = await newPlayer(h, 1000);
    const bad: Array<Record<string, unknown>> = [
      { amount_minor: -1, amount: -0.01 },
      { amount_minor: 1.5, amount: 0.015 },
      { amount_minor: '100', amount: 1 },
      { currency: 'eur' },
      { contract_version: '2025-01-01' },
      { player_id: ' padded' },
      { transaction_id: '' },
      { original_transaction_id: 'tx_other' },
    ];
    for (const over of bad) {
      const body = {
        ...callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 }),
        ...over,
      };
      const res = await send(h, body);
      assert.equal(res.status, 400, JSON.stringify(over));
      assert.equal(res.json.error, 'invalid_request', JSON.stringify(over));
    }
    const rollbackWithoutOriginal = callbackBody({
      transaction_type: 'rollback',
      player_id: player,
      amount_minor: 100,
    });
    assert.equal((await send(h, rollbackWithoutOriginal)).json.error, 'invalid_request');
    const { round_id: _r, ...missing } = callbackBody({
      transaction_type: 'debit',
      player_id: player,
      amount_minor: 100,
    });
    assert.equal((await send(h, missing)).json.error, 'invalid_request');
    assert.equal(await balanceMinor(h, player), 1000n);
  });

  test('amount must equal amount_minor at the currency exponent → else 400 amount_mismatch', async () => {
    const player = await newPlayer(h, 1000);
    const body = {
      ...callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 150 }),
      amount: 150,
    };
    const res = await send(h, body);
    assert.equal(res.status, 400);
    assert.equal(res.json.error, 'amount_mismatch');
    assert.equal(await balanceMinor(h, player), 1000n);
  });

  test('invalid requests are recorded with outcome invalid', async () => {
    const player = await newPlayer(h, 1000);
    const body = callbackBody({
      transaction_type: 'debit',
      player_id: player,
      amount_minor: 150,
      amount: 15,
    });
    await send(h, body);
    const { rows } = await h.db.pool.query(
      `SELECT outcome, response_status, error_code FROM wallet.requests WHERE transaction_id = $1`,
      [body.transaction_id],
    );
    assert.deepEqual(rows, [{ outcome: 'invalid', response_status: 400, error_code: 'amount_mismatch' }]);
  });

  test('a body over 64 KiB → 413 invalid_request', async () => {
    const player = await newPlayer(h, 1000);
    const body = callbackBody({
      transaction_type: 'debit',
      player_id: player,
      amount_minor: 1,
      padding: 'x'.repeat(70_000),
    });
    const res = await send(h, body);
    assert.equal(res.status, 413);
    assert.equal(res.json.error, 'invalid_request');
    assert.equal(await balanceMinor(h, player), 1000n);
  });

  test('unknown operations and methods get JSON errors', async () => {
    const res = await fetch(`${h.walletUrl}/refund`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: string }).error, 'not_found');
    const get = await fetch(`${h.walletUrl}/debit`);
    assert.equal(get.status, 405);
    assert.equal(((await get.json()) as { success: boolean }).success, false);
    const health = await fetch(`${h.base}/health`);
    assert.equal(health.status, 200);
  });
});
