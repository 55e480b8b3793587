import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
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
after(async () => {
  const check = await h.admin.ledgerCheck();
  assert.equal(check.ok, true, JSON.stringify(check, null, 2));
  await h.close();
});

const rollbackOf = (original: Record<string, unknown>, over: Record<string, unknown> = {}) =>
  callbackBody({
    transaction_type: 'rollback',
    player_id: String(original.player_id),
    amount_minor: Number(original.amount_minor),
    currency: String(original.currency),
    round_id: String(original.round_id),
    original_transaction_id: String(original.transaction_id),
    ...over,
  });

describe('rollback', () => {
  test('reverses a successful debit; the repeat replays; another rollback changes nothing', async () => {
    const player = await newPlayer(h, 1000);
    const debit = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 300 });
    assert.equal((await send(h, debit)).json.balance, '7.00');
    const rollback = rollbackOf(debit);
    const first = await send(h, rollback);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.balance, '10.00');
    assert.equal((await send(h, rollback)).text, first.text);
    // A second, different rollback of the same debit: 200, no further change.
    const second = await send(h, rollbackOf(debit));
    assert.equal(second.status, 200);
    assert.equal(second.json.balance, '10.00');
    assert.equal(await balanceMinor(h, player), 1000n);
    const { rows } = await h.db.pool.query(
      'SELECT reversed_by FROM wallet.transactions WHERE operator_id = $1 AND transaction_id = $2',
      [debit.operator_id, debit.transaction_id],
    );
    assert.equal(rows[0]!.reversed_by, rollback.transaction_id);
  });

  test('reverses a credit (and refuses to overdraw doing so)', async () => {
    const player = await newPlayer(h, 100);
    const credit = callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 500 });
    assert.equal((await send(h, credit)).json.balance, '6.00');
    assert.equal((await send(h, rollbackOf(credit))).json.balance, '1.00');

    const other = await newPlayer(h, 0);
    const win = callbackBody({ transaction_type: 'credit', player_id: other, amount_minor: 500 });
    await send(h, win);
    await send(h, callbackBody({ transaction_type: 'debit', player_id: other, amount_minor: 400 }));
    const refused = await send(h, rollbackOf(win));
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error, 'insufficient_funds');
    assert.equal(await balanceMinor(h, other), 100n);
  });

  test('unknown original → 200 without change, and a late debit with that id is refused (transaction_reversed)', async () => {
    const player = await newPlayer(h, 1000);
    const debit = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 200 });
    const rollback = await send(h, rollbackOf(debit));
    assert.equal(rollback.status, 200, rollback.text);
    assert.equal(rollback.json.balance, '10.00');
    const late = await send(h, debit);
    assert.equal(late.status, 400);
    assert.equal(late.json.error, 'transaction_reversed');
    // Stored: its repeat answers the same.
    assert.equal((await send(h, debit)).text, late.text);
    // A late credit under a tombstoned id is refused too.
    const credit = callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 50 });
    await send(h, rollbackOf(credit));
    assert.equal((await send(h, credit)).json.error, 'transaction_reversed');
    assert.equal(await balanceMinor(h, player), 1000n);
    // A rollback of the (now rejected) late debit changes nothing.
    assert.equal((await send(h, rollbackOf(debit))).json.balance, '10.00');
  });

  test('a rejected original (insufficient funds) moved no money: rollback → 200 without change', async () => {
    const player = await newPlayer(h, 100);
    const debit = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 500 });
    assert.equal((await send(h, debit)).json.error, 'insufficient_funds');
    const res = await send(h, rollbackOf(debit));
    assert.equal(res.status, 200);
    assert.equal(res.json.balance, '1.00');
  });

  test('amount or owner differing from the original → 400 amount_mismatch / original_mismatch', async () => {
    const player = await newPlayer(h, 1000);
    const other = await newPlayer(h, 1000);
    const debit = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 300 });
    await send(h, debit);
    const wrongAmount = await send(h, rollbackOf(debit, { amount_minor: 200, amount: 2 }));
    assert.equal(wrongAmount.status, 400);
    assert.equal(wrongAmount.json.error, 'amount_mismatch');
    const wrongPlayer = await send(h, rollbackOf(debit, { player_id: other }));
    assert.equal(wrongPlayer.json.error, 'original_mismatch');
    // A rollback may not target a rollback.
    const rb = rollbackOf(debit);
    await send(h, rb);
    const ofRollback = await send(h, rollbackOf(rb));
    assert.equal(ofRollback.json.error, 'original_mismatch');
    assert.equal(await balanceMinor(h, player), 1000n);
    assert.equal(await balanceMinor(h, other), 1000n);
  });
});

describe('cancel', () => {
  const cancelOf = (player: string, roundId: string, amount: number, currency = 'EUR') =>
    callbackBody({
      transaction_type: 'cancel',
      player_id: player,
      amount_minor: amount,
      round_id: roundId,
      currency,
    });

  test("reverses the round's unreversed debits when the amount equals their sum", async () => {
    const player = await newPlayer(h, 1000);
    const roundId = `round_${randomUUID()}`;
    await send(
      h,
      callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100, round_id: roundId }),
    );
    await send(
      h,
      callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 150, round_id: roundId }),
    );
    assert.equal(await balanceMinor(h, player), 750n);
    const mismatch = await send(h, cancelOf(player, roundId, 100));
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.json.error, 'amount_mismatch');
    assert.equal(await balanceMinor(h, player), 750n);
    const cancel = cancelOf(player, roundId, 250);
    const res = await send(h, cancel);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.balance, '10.00');
    assert.equal((await send(h, cancel)).text, res.text);
    // Another cancel of the same round: 200, no further change.
    const again = await send(h, cancelOf(player, roundId, 250));
    assert.equal(again.status, 200);
    assert.equal(again.json.balance, '10.00');
    // The round is closed: a later debit (or credit) in it is refused.
    const late = await send(
      h,
      callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100, round_id: roundId }),
    );
    assert.equal(late.json.error, 'round_cancelled');
    const lateWin = await send(
      h,
      callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 100, round_id: roundId }),
    );
    assert.equal(lateWin.json.error, 'round_cancelled');
    assert.equal(await balanceMinor(h, player), 1000n);
  });

  test('a cancel for a round without a debit → 200 no-op; the round is tombstoned (a late debit → round_cancelled)', async () => {
    const player = await newPlayer(h, 1000);
    const roundId = `round_${randomUUID()}`;
    const res = await send(h, cancelOf(player, roundId, 400));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.balance, '10.00');
    const debit = callbackBody({
      transaction_type: 'debit',
      player_id: player,
      amount_minor: 400,
      round_id: roundId,
    });
    const late = await send(h, debit);
    assert.equal(late.status, 400);
    assert.equal(late.json.error, 'round_cancelled');
    assert.equal((await send(h, debit)).text, late.text);
    assert.equal(await balanceMinor(h, player), 1000n);
  });

  test('debits already rolled back are not reversed again by a cancel', async () => {
    const player = await newPlayer(h, 1000);
    const roundId = `round_${randomUUID()}`;
    const debit = callbackBody({
      transaction_type: 'debit',
      player_id: player,
      amount_minor: 200,
      round_id: roundId,
    });
    await send(h, debit);
    await send(h, rollbackOf(debit));
    const res = await send(h, cancelOf(player, roundId, 200));
    assert.equal(res.status, 200);
    assert.equal(res.json.balance, '10.00');
    // And a debit reversed by a cancel is not reversed again by a rollback.
    const round2 = `round_${randomUUID()}`;
    const d2 = callbackBody({
      transaction_type: 'debit',
      player_id: player,
      amount_minor: 300,
      round_id: round2,
    });
    await send(h, d2);
    assert.equal((await send(h, cancelOf(player, round2, 300))).json.balance, '10.00');
    assert.equal((await send(h, rollbackOf(d2))).json.balance, '10.00');
    assert.equal(await balanceMinor(h, player), 1000n);
  });

  test('a round with a credited win can no longer be cancelled (round_settled)', async () => {
    const player = await newPlayer(h, 1000);
    const roundId = `round_${randomUUID()}`;
    await send(
      h,
      callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100, round_id: roundId }),
    );
    await send(
      h,
      callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 300, round_id: roundId }),
    );
    const res = await send(h, cancelOf(player, roundId, 100));
    assert.equal(res.status, 400);
    assert.equal(res.json.error, 'round_settled');
    assert.equal(await balanceMinor(h, player), 1200n);
  });

  test('JPY and BHD cancels', async () => {
    for (const [currency, amount] of [
      ['JPY', 150],
      ['BHD', 1500],
    ] as const) {
      const player = await newPlayer(h, 10_000, currency);
      const roundId = `round_${randomUUID()}`;
      await send(
        h,
        callbackBody({
          transaction_type: 'debit',
          player_id: player,
          amount_minor: amount,
          round_id: roundId,
          currency,
        }),
      );
      const res = await send(h, cancelOf(player, roundId, amount, currency));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.balance, currency === 'JPY' ? '10000' : '10.000');
    }
  });
});

describe('the requests journal proves the invariants', () => {
  test('distinct debit transaction ids per round, and no transaction applied twice', async () => {
    const player = await newPlayer(h, 1000);
    const roundId = `round_${randomUUID()}`;
    const debit = callbackBody({
      transaction_type: 'debit',
      player_id: player,
      amount_minor: 100,
      round_id: roundId,
    });
    await send(h, debit);
    await send(h, debit);
    await send(h, debit);
    await send(
      h,
      callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 20, round_id: roundId }),
    );
    const { rows } = await h.db.pool.query<{ debits: bigint; received: bigint; applied: bigint }>(
      `SELECT count(DISTINCT transaction_id) FILTER (WHERE transaction_type = 'debit') AS debits,
              count(*) FILTER (WHERE transaction_type = 'debit') AS received,
              count(*) FILTER (WHERE transaction_type = 'debit' AND outcome = 'applied') AS applied
       FROM wallet.requests WHERE round_id = $1`,
      [roundId],
    );
    assert.deepEqual(rows[0], { debits: 1n, received: 3n, applied: 1n });
    const applied = await h.db.pool.query<{ n: bigint }>(
      `SELECT count(*) AS n FROM (SELECT operator_id, transaction_id FROM wallet.requests WHERE outcome = 'applied'
       GROUP BY 1, 2 HAVING count(*) > 1) x`,
    );
    assert.equal(applied.rows[0]!.n, 0n);
  });
});
