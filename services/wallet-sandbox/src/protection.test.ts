import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WalletAdminError } from './admin-client.js';
import {
  balanceMinor,
  callbackBody,
  newPlayer,
  OPERATOR_ID,
  send,
  startWallet,
  type WalletHarness,
} from './test-support/harness.js';

// The sandbox wallet over real HTTP and real PostgreSQL: player protection settings refuse a
// player's debits with a code, as an operator's wallet does.
let h: WalletHarness;
before(async () => {
  h = await startWallet();
});
after(async () => {
  await h.close();
});

const PROTECTION_CODES = ['limit_reached', 'self_excluded', 'session_time_limit', 'player_blocked'];

describe('player protection (PUT /admin/protection)', () => {
  for (const code of [...PROTECTION_CODES, 'rg_cool_off']) {
    test(`${code}: debits are refused with 400 ${code}, stored; a credit still lands`, async () => {
      const player = await newPlayer(h, 1000);
      // A win of an earlier round, before the setting.
      const paid = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
      assert.equal((await send(h, paid)).status, 200);
      const set = await h.admin.setProtection({
        operatorId: OPERATOR_ID,
        playerId: player,
        refuseDebitsWith: code,
      });
      assert.deepEqual(set, {
        operator_id: OPERATOR_ID,
        player_id: player,
        refuse_debits_with: code,
        remaining: null,
      });

      const debit = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 200 });
      const refused = await send(h, debit);
      assert.equal(refused.status, 400);
      assert.equal(refused.json.success, false);
      assert.equal(refused.json.error, code);
      assert.equal(typeof refused.json.message, 'string');
      assert.equal(await balanceMinor(h, player), 900n);
      // Every debit, until cleared.
      const second = await send(h, { ...debit, transaction_id: `${debit.transaction_id}_2` });
      assert.equal(second.json.error, code);

      // The earlier round is still settled: its credit is paid despite the setting.
      const credit = callbackBody({
        transaction_type: 'credit',
        player_id: player,
        amount_minor: 50,
        round_id: String(paid.round_id),
        transaction_id: `${paid.round_id}:credit`,
      });
      assert.equal((await send(h, credit)).status, 200);
      assert.equal(await balanceMinor(h, player), 950n);

      // Cleared: the stored refusal is still the answer to its own transaction_id (idempotency),
      // a new debit is decided as usual.
      await h.admin.setProtection({ operatorId: OPERATOR_ID, playerId: player, refuseDebitsWith: null });
      const repeat = await send(h, debit);
      assert.equal(repeat.status, 400);
      assert.equal(repeat.text, refused.text);
      const fresh = await send(h, { ...debit, transaction_id: `${debit.transaction_id}_3` });
      assert.equal(fresh.status, 200, fresh.text);
      assert.equal(await balanceMinor(h, player), 750n);
      assert.equal((await h.admin.ledgerCheck()).ok, true);
    });
  }

  test('times: only that many debits are refused; a repeat of a refused one does not count again', async () => {
    const player = await newPlayer(h, 1000);
    await h.admin.setProtection({
      operatorId: OPERATOR_ID,
      playerId: player,
      refuseDebitsWith: 'limit_reached',
      times: 2,
    });
    const first = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    assert.equal((await send(h, first)).json.error, 'limit_reached');
    assert.equal((await send(h, first)).json.error, 'limit_reached', 'the stored refusal, replayed');
    assert.equal(
      (await h.admin.getProtection(OPERATOR_ID, player)).remaining,
      1,
      'a replay does not count down',
    );
    const second = { ...first, transaction_id: `${first.transaction_id}_b` };
    assert.equal((await send(h, second)).json.error, 'limit_reached');
    assert.deepEqual(await h.admin.getProtection(OPERATOR_ID, player), {
      operator_id: OPERATOR_ID,
      player_id: player,
      refuse_debits_with: null,
      remaining: null,
    });
    const third = await send(h, { ...first, transaction_id: `${first.transaction_id}_c` });
    assert.equal(third.status, 200, third.text);
    assert.equal(await balanceMinor(h, player), 900n);
  });

  test('the setting applies to every currency of the player', async () => {
    const player = await newPlayer(h, 1000, 'EUR');
    await h.admin.createPlayer({
      operatorId: OPERATOR_ID,
      playerId: player,
      currency: 'USD',
      balanceMinor: 500,
    });
    await h.admin.setProtection({
      operatorId: OPERATOR_ID,
      playerId: player,
      refuseDebitsWith: 'self_excluded',
    });
    for (const currency of ['EUR', 'USD']) {
      const res = await send(
        h,
        callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 10, currency }),
      );
      assert.equal(res.json.error, 'self_excluded', currency);
    }
  });

  test('a malformed setting is 400 invalid_request', async () => {
    for (const body of [
      { refuseDebitsWith: 'Self Excluded' },
      { refuseDebitsWith: '' },
      { refuseDebitsWith: 'self_excluded', times: 0 },
    ]) {
      await assert.rejects(
        h.admin.setProtection({ operatorId: OPERATOR_ID, playerId: 'p-x', ...body }),
        (err: unknown) =>
          err instanceof WalletAdminError && err.status === 400 && err.code === 'invalid_request',
      );
    }
  });
});
