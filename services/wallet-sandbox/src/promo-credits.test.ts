import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  ADMIN_TOKEN,
  balanceMinor,
  callbackBody,
  newPlayer,
  send,
  startWallet,
  type WalletHarness,
} from './test-support/harness.js';

// Issue 25: the callbacks' optional jackpot and promotion fields, and credits with no debit in
// their round (a promo_win's round is its payout id), as the service sends them; and the fault
// injection that has the wallet refuse an action_type, as a wallet that does not know it would.

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

const payoutId = () => `pp_t_${Math.random().toString(36).slice(2, 12)}`;

function promoCredit(player: string, amount: number, payout = payoutId()) {
  return callbackBody({
    transaction_type: 'credit',
    player_id: player,
    amount_minor: amount,
    transaction_id: `${payout}:credit`,
    round_id: payout,
    action_type: 'promo_win',
    promo_type: 'tournament',
    promo_id: 'spring_cup',
    rank: 1,
  });
}

describe('issue 25 callbacks', () => {
  test('a promo_win credit with no debit in its round is credited once; its repeat answers the same bytes', async () => {
    const player = await newPlayer(h, 1000);
    const body = promoCredit(player, 250);
    const first = await send(h, body);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.balance, '12.50');
    const again = await send(h, body);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.text, first.text, 'the original answer, byte for byte');
    assert.equal(await balanceMinor(h, player), 1250n, 'credited once');
    const { rows } = await h.db.pool.query(
      `SELECT transaction_type, round_id, status FROM wallet.transactions WHERE transaction_id = $1`,
      [body.transaction_id],
    );
    assert.deepEqual(rows, [{ transaction_type: 'credit', round_id: body.round_id, status: 'success' }]);
  });

  test("a contributing debit's jackpot fields and a jackpot_win credit after the round's credit are accepted", async () => {
    const player = await newPlayer(h, 1000);
    const round = `r_${Math.random().toString(36).slice(2, 12)}`;
    const debit = callbackBody({
      transaction_type: 'debit',
      player_id: player,
      amount_minor: 100,
      round_id: round,
      transaction_id: `${round}:debit`,
      jackpot_id: 'mega',
      jackpot_contribution_micros: '1500000',
    });
    assert.equal((await send(h, debit)).json.balance, '9.00');
    const credit = callbackBody({
      transaction_type: 'credit',
      player_id: player,
      amount_minor: 40,
      round_id: round,
      transaction_id: `${round}:credit`,
    });
    assert.equal((await send(h, credit)).json.balance, '9.40');
    const win = callbackBody({
      transaction_type: 'credit',
      player_id: player,
      amount_minor: 5000,
      round_id: round,
      transaction_id: `${round}:jackpot:mini`,
      action_type: 'jackpot_win',
      jackpot_id: 'mega',
      jackpot_level: 'mini',
    });
    const paid = await send(h, win);
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.json.balance, '59.40');
    assert.equal(await balanceMinor(h, player), 5940n);
  });

  test('refuseActionTypes: a promo_win credit is refused 400 unsupported_action_type, nothing applied or stored; other credits land', async () => {
    const player = await newPlayer(h, 1000);
    const set = await h.admin.setFaults({ refuseActionTypes: ['promo_win'] });
    assert.deepEqual(set.faults.refuseActionTypes, ['promo_win']);
    const before = set.counters.refusedActionType;
    const body = promoCredit(player, 300);
    const refused = await send(h, body);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.success, false);
    assert.equal(refused.json.error, 'unsupported_action_type');
    assert.match(refused.json.message, /does not accept action_type promo_win/);
    assert.equal(await balanceMinor(h, player), 1000n);
    const stored = await h.db.pool.query('SELECT 1 FROM wallet.transactions WHERE transaction_id = $1', [
      body.transaction_id,
    ]);
    assert.equal(stored.rowCount, 0, 'not a stored decision');
    const recorded = await h.db.pool.query(
      'SELECT outcome, error_code FROM wallet.requests WHERE transaction_id = $1',
      [body.transaction_id],
    );
    assert.deepEqual(recorded.rows, [{ outcome: 'invalid', error_code: 'unsupported_action_type' }]);
    // A spin's credit and a balance read are not affected.
    const spin = await send(
      h,
      callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 5 }),
    );
    assert.equal(spin.json.balance, '10.05');
    assert.equal(
      (await send(h, callbackBody({ transaction_type: 'balance', player_id: player, amount_minor: 0 })))
        .status,
      200,
    );
    assert.equal((await h.admin.getFaults()).counters.refusedActionType, before + 1);
    // Cleared: the same transaction is taken (the refusal was not a decision).
    await h.admin.setFaults({});
    const taken = await send(h, body);
    assert.equal(taken.status, 200, taken.text);
    assert.equal(await balanceMinor(h, player), 1305n);
  });

  test('refuseActionTypes is validated', async () => {
    for (const bad of [
      { refuseActionTypes: 'promo_win' },
      { refuseActionTypes: [''] },
      { refuseActionTypes: [7] },
    ]) {
      const res = await fetch(`${h.base}/admin/faults`, {
        method: 'PUT',
        headers: { 'x-sandbox-admin-token': ADMIN_TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify(bad),
      });
      assert.equal(res.status, 400, JSON.stringify(bad));
    }
    assert.deepEqual((await h.admin.getFaults()).faults.refuseActionTypes, []);
  });
});
