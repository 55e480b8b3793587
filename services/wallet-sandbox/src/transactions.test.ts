import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WalletAdminError } from './admin-client.js';
import { createWalletApp } from './app.js';
import {
  ADMIN_TOKEN,
  balanceMinor,
  callbackBody,
  newPlayer,
  OPERATOR_ID,
  playerId,
  send,
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

async function ledgerOk() {
  const check = await h.admin.ledgerCheck();
  assert.equal(check.ok, true, JSON.stringify(check, null, 2));
  return check;
}

describe('debit and credit', () => {
  test('debit moves money; credit adds; balances are decimal strings', async () => {
    const player = await newPlayer(h, 1000);
    const debit = await send(
      h,
      callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 250 }),
    );
    assert.equal(debit.status, 200, debit.text);
    assert.deepEqual(Object.keys(debit.json), ['success', 'balance', 'currency', 'transaction_id']);
    assert.equal(debit.json.balance, '7.50');
    const credit = await send(
      h,
      callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 1000 }),
    );
    assert.equal(credit.json.balance, '17.50');
    assert.equal(await balanceMinor(h, player), 1750n);
    await ledgerOk();
  });

  test('a zero-amount debit and credit succeed without ledger entries', async () => {
    const player = await newPlayer(h, 100);
    const d = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 0 });
    assert.equal((await send(h, d)).json.balance, '1.00');
    const c = callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 0 });
    assert.equal((await send(h, c)).json.balance, '1.00');
    const { rowCount } = await h.db.pool.query(
      'SELECT 1 FROM wallet.ledger_entries WHERE transaction_ref = ANY($1)',
      [[`cb:${d.transaction_id}`, `cb:${c.transaction_id}`]],
    );
    assert.equal(rowCount, 0);
  });

  test('JPY (exponent 0), EUR (2) and BHD (3) amounts', async () => {
    const jpy = await newPlayer(h, 10_000, 'JPY');
    const r1 = await send(
      h,
      callbackBody({ transaction_type: 'debit', player_id: jpy, amount_minor: 150, currency: 'JPY' }),
    );
    assert.equal(r1.status, 200, r1.text);
    assert.equal(r1.json.balance, '9850');
    assert.equal(r1.json.currency, 'JPY');

    const bhd = await newPlayer(h, 10_000, 'BHD');
    const r2 = await send(
      h,
      callbackBody({ transaction_type: 'debit', player_id: bhd, amount_minor: 1500, currency: 'BHD' }),
    );
    assert.equal(r2.status, 200, r2.text);
    assert.equal(r2.json.balance, '8.500');
    const r3 = await send(
      h,
      callbackBody({ transaction_type: 'credit', player_id: bhd, amount_minor: 1, currency: 'BHD' }),
    );
    assert.equal(r3.json.balance, '8.501');

    const eur = await newPlayer(h, 5);
    const r4 = await send(h, callbackBody({ transaction_type: 'debit', player_id: eur, amount_minor: 5 }));
    assert.equal(r4.json.balance, '0.00');

    // The decimal amount is checked at the currency's exponent.
    const wrong = {
      ...callbackBody({ transaction_type: 'debit', player_id: bhd, amount_minor: 1500, currency: 'BHD' }),
      amount: 15,
    };
    assert.equal((await send(h, wrong)).json.error, 'amount_mismatch');
    const jpyWrong = {
      ...callbackBody({ transaction_type: 'debit', player_id: jpy, amount_minor: 150, currency: 'JPY' }),
      amount: 1.5,
    };
    assert.equal((await send(h, jpyWrong)).json.error, 'amount_mismatch');
  });

  test('a player account is per currency', async () => {
    const player = await newPlayer(h, 1000, 'EUR');
    const usd = await send(
      h,
      callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 1, currency: 'USD' }),
    );
    assert.equal(usd.status, 400);
    assert.equal(usd.json.error, 'unknown_player');
  });
});

describe('unknown players fail closed', () => {
  test('unknown player → 400 unknown_player for every operation; the rejection is stored', async () => {
    const ghost = playerId('ghost');
    for (const type of ['balance', 'debit', 'credit', 'cancel'] as const) {
      const res = await send(
        h,
        callbackBody({ transaction_type: type, player_id: ghost, amount_minor: 100 }),
      );
      assert.equal(res.status, 400, type);
      assert.deepEqual(
        { success: res.json.success, error: res.json.error },
        { success: false, error: 'unknown_player' },
        type,
      );
    }
    // A repeat returns the stored rejection even after the player exists.
    const debit = callbackBody({ transaction_type: 'debit', player_id: playerId('late'), amount_minor: 100 });
    const first = await send(h, debit);
    assert.equal(first.json.error, 'unknown_player');
    await h.admin.createPlayer({
      operatorId: OPERATOR_ID,
      playerId: String(debit.player_id),
      currency: 'EUR',
      balanceMinor: 1000,
    });
    const again = await send(h, debit);
    assert.equal(again.text, first.text);
    assert.equal(await balanceMinor(h, String(debit.player_id)), 1000n);
  });

  test('autoCreatePlayersWithMinor opens unknown players with that balance (demo mode)', async () => {
    const demo = await startWallet({ autoCreatePlayersWithMinor: 5000n });
    try {
      const player = playerId('auto');
      const bal = await send(
        demo,
        callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 }),
      );
      assert.equal(bal.status, 200, bal.text);
      assert.equal(bal.json.balance, '50.00');
      const other = playerId('auto');
      const debit = await send(
        demo,
        callbackBody({ transaction_type: 'debit', player_id: other, amount_minor: 100 }),
      );
      assert.equal(debit.json.balance, '49.00');
      const check = await demo.admin.ledgerCheck();
      assert.equal(check.ok, true);
      const row = check.accounts.find((a) => a.player_id === other)!;
      assert.equal(row.opening_minor, '5000');
      assert.equal(row.balance_minor, '4900');
    } finally {
      await demo.close();
    }
  });
});

describe('insufficient funds', () => {
  test('→ 400 insufficient_funds, stored: the repeat returns the same rejection even after a deposit', async () => {
    const player = await newPlayer(h, 100);
    const body = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 101 });
    const first = await send(h, body);
    assert.equal(first.status, 400);
    assert.equal(first.json.error, 'insufficient_funds');
    assert.equal(first.json.success, false);
    assert.equal(await balanceMinor(h, player), 100n);
    await h.admin.deposit({
      operatorId: OPERATOR_ID,
      playerId: player,
      currency: 'EUR',
      amountMinor: 1000,
      reference: `dep_${player}`,
    });
    const repeat = await send(h, body);
    assert.equal(repeat.status, 400);
    assert.equal(repeat.text, first.text);
    assert.equal(await balanceMinor(h, player), 1100n);
    // The same amount under a new transaction_id now succeeds.
    const fresh = await send(h, { ...body, transaction_id: `${body.transaction_id}_2` });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.json.balance, '9.99');
  });

  test('the exact balance can be wagered; one minor unit more cannot', async () => {
    const player = await newPlayer(h, 300);
    assert.equal(
      (await send(h, callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 300 })))
        .status,
      200,
    );
    const res = await send(
      h,
      callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 1 }),
    );
    assert.equal(res.json.error, 'insufficient_funds');
    assert.equal(await balanceMinor(h, player), 0n);
  });
});

describe('idempotency by transaction_id', () => {
  test('a repeat returns the original response byte for byte, even after the balance changed', async () => {
    const player = await newPlayer(h, 1000);
    const body = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    const first = await send(h, body);
    assert.equal(first.status, 200);
    assert.equal(first.json.balance, '9.00');
    await send(h, callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 500 }));
    // Same transaction_id and material fields; request_id, session_id and action_type may differ.
    const repeat = await send(h, { ...body, request_id: 'another-request', session_id: 'sess_2' });
    assert.equal(repeat.status, 200);
    assert.equal(repeat.text, first.text);
    assert.equal(await balanceMinor(h, player), 1400n);
    const { rows } = await h.db.pool.query(
      `SELECT outcome FROM wallet.requests WHERE transaction_id = $1 ORDER BY request_seq`,
      [body.transaction_id],
    );
    assert.deepEqual(
      rows.map((r) => r.outcome),
      ['applied', 'replayed'],
    );
  });

  test('a repeat with different material fields → 400 transaction_conflict, nothing applied', async () => {
    const player = await newPlayer(h, 1000);
    const other = await newPlayer(h, 1000);
    const body = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    const original = await send(h, body);
    assert.equal(original.status, 200);
    const variants: Array<Record<string, unknown>> = [
      { amount_minor: 200, amount: 2 },
      { player_id: other },
      { round_id: 'another_round' },
      { currency: 'USD' },
      { transaction_type: 'credit' },
    ];
    for (const over of variants) {
      const res = await send(h, { ...body, ...over });
      assert.equal(res.status, 400, JSON.stringify(over));
      assert.equal(res.json.error, 'transaction_conflict', JSON.stringify(over));
    }
    const rollbackSameId = await send(h, {
      ...body,
      transaction_type: 'rollback',
      original_transaction_id: 'x',
    });
    assert.equal(rollbackSameId.json.error, 'transaction_conflict');
    assert.equal(await balanceMinor(h, player), 900n);
    assert.equal(await balanceMinor(h, other), 1000n);
    // The original is still answered as before.
    assert.equal((await send(h, body)).text, original.text);
    await ledgerOk();
  });

  test('balance reads are not journalled as transactions', async () => {
    const player = await newPlayer(h, 1000);
    const body = callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 });
    assert.equal((await send(h, body)).json.balance, '10.00');
    await send(h, callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 1 }));
    // The same transaction_id again reads the current balance.
    assert.equal((await send(h, body)).json.balance, '10.01');
    const { rowCount } = await h.db.pool.query(
      'SELECT 1 FROM wallet.transactions WHERE transaction_id = $1',
      [body.transaction_id],
    );
    assert.equal(rowCount, 0);
    const recorded = await h.db.pool.query(`SELECT outcome FROM wallet.requests WHERE transaction_id = $1`, [
      body.transaction_id,
    ]);
    assert.deepEqual(
      recorded.rows.map((r) => r.outcome),
      ['balance', 'balance'],
    );
  });
});

describe('ledger', () => {
  test('the ledger always agrees with the balances, and every transaction sums to zero', async () => {
    const check = await ledgerOk();
    assert.ok(check.accounts.length > 5);
    for (const a of check.accounts) {
      assert.equal(a.balance_minor, a.ledger_sum_minor);
      assert.equal(a.balance_minor, a.expected_minor);
    }
    assert.equal(check.unbalanced_transactions, 0);
    for (const t of check.totals) assert.equal(t.sum_minor, '0');
  });

  test('the database refuses an unbalanced transaction, a negative balance, and edits of the journal', async () => {
    const player = await newPlayer(h, 100);
    const { rows } = await h.db.pool.query<{ account_id: bigint }>(
      `SELECT account_id FROM wallet.accounts WHERE player_id = $1`,
      [player],
    );
    const account = rows[0]!.account_id;
    const client = await h.db.pool.connect();
    try {
      // Unbalanced: one leg only, refused at commit.
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO wallet.ledger_entries (operator_id, transaction_ref, account_id, amount_minor, currency)
         VALUES ($1, 'manual:1', $2, 50, 'EUR')`,
        [OPERATOR_ID, account],
      );
      await assert.rejects(client.query('COMMIT'), /unbalanced/);
      // Negative balance: refused immediately by the CHECK.
      await assert.rejects(
        client.query(
          `INSERT INTO wallet.ledger_entries (operator_id, transaction_ref, account_id, amount_minor, currency)
           VALUES ($1, 'manual:2', $2, -101, 'EUR')`,
          [OPERATOR_ID, account],
        ),
        /check constraint/,
      );
      await assert.rejects(client.query('DELETE FROM wallet.ledger_entries'), /append-only/);
      await assert.rejects(client.query('UPDATE wallet.requests SET response_status = 200'), /append-only/);
    } finally {
      client.release();
    }
    assert.equal(await balanceMinor(h, player), 100n);
  });
});

describe('admin API', () => {
  test('requires the admin token', async () => {
    for (const token of [undefined, 'wrong-token-0123456789']) {
      const res = await fetch(`${h.base}/admin/ledger-check`, {
        headers: token ? { 'x-sandbox-admin-token': token } : {},
      });
      assert.equal(res.status, 401);
      assert.equal(((await res.json()) as { error: string }).error, 'unauthorized');
    }
    const ok = await fetch(`${h.base}/admin/ledger-check`, {
      headers: { 'x-sandbox-admin-token': ADMIN_TOKEN },
    });
    assert.equal(ok.status, 200);
  });

  test('the admin API is disabled without a token', async () => {
    const app = createWalletApp({ pool: h.db.pool });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as { port: number };
      for (const token of ['', ADMIN_TOKEN]) {
        const res = await fetch(`http://127.0.0.1:${port}/admin/faults`, {
          headers: { 'x-sandbox-admin-token': token },
        });
        assert.equal(res.status, 401);
      }
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('players: create (201), existing (200, unchanged), read, unknown (404), validation (400)', async () => {
    const id = playerId();
    const created = await h.admin.createPlayer({
      operatorId: OPERATOR_ID,
      playerId: id,
      currency: 'BHD',
      balanceMinor: 1234n,
    });
    assert.equal(created.created, true);
    assert.equal(created.balance, '1.234');
    assert.equal(created.balance_minor, '1234');
    const again = await h.admin.createPlayer({
      operatorId: OPERATOR_ID,
      playerId: id,
      currency: 'BHD',
      balanceMinor: 9999n,
    });
    assert.equal(again.created, false);
    assert.equal(again.balance_minor, '1234');
    const read = await h.admin.balance(OPERATOR_ID, id, 'BHD');
    assert.deepEqual(read, {
      operator_id: OPERATOR_ID,
      player_id: id,
      currency: 'BHD',
      balance_minor: '1234',
      balance: '1.234',
    });
    await assert.rejects(h.admin.balance(OPERATOR_ID, 'nobody', 'EUR'), (e: unknown) => {
      return e instanceof WalletAdminError && e.status === 404 && e.code === 'unknown_player';
    });
    await assert.rejects(
      h.admin.createPlayer({ operatorId: OPERATOR_ID, playerId: 'x', currency: 'eur' }),
      (e: unknown) => e instanceof WalletAdminError && e.status === 400 && e.code === 'invalid_request',
    );
    await assert.rejects(
      h.admin.createPlayer({ operatorId: OPERATOR_ID, playerId: 'x', currency: 'EUR', balanceMinor: -5 }),
      (e: unknown) => e instanceof WalletAdminError && e.status === 400,
    );
    await assert.rejects(
      h.admin.setSecret(OPERATOR_ID, 'short'),
      (e: unknown) => e instanceof WalletAdminError && e.status === 400,
    );
  });

  test('deposits are idempotent by reference; a reused reference with other fields → 409', async () => {
    const player = await newPlayer(h, 0);
    const reference = `dep_${player}`;
    const input = {
      operatorId: OPERATOR_ID,
      playerId: player,
      currency: 'EUR',
      amountMinor: 2500,
      reference,
    };
    const first = await h.admin.deposit(input);
    assert.equal(first.replayed, false);
    assert.equal(first.balance, '25.00');
    const again = await h.admin.deposit(input);
    assert.equal(again.replayed, true);
    assert.equal(again.balance_minor, '2500');
    assert.equal(await balanceMinor(h, player), 2500n);
    await assert.rejects(
      h.admin.deposit({ ...input, amountMinor: 2600 }),
      (e: unknown) => e instanceof WalletAdminError && e.status === 409 && e.code === 'deposit_conflict',
    );
    await assert.rejects(
      h.admin.deposit({ ...input, reference: `${reference}_x`, playerId: 'nobody' }),
      (e: unknown) => e instanceof WalletAdminError && e.status === 404,
    );
    await assert.rejects(
      h.admin.deposit({ ...input, reference: `${reference}_0`, amountMinor: 0 }),
      (e: unknown) => e instanceof WalletAdminError && e.status === 400,
    );
    // Parallel duplicates of one new reference apply once.
    const par = { ...input, reference: `${reference}_par`, amountMinor: 100 };
    const results = await Promise.all(Array.from({ length: 10 }, () => h.admin.deposit(par)));
    assert.equal(results.filter((r) => !r.replayed).length, 1);
    assert.equal(await balanceMinor(h, player), 2600n);
    const check = await ledgerOk();
    const row = check.accounts.find((a) => a.player_id === player)!;
    assert.equal(row.deposits_minor, '2600');
  });
});
