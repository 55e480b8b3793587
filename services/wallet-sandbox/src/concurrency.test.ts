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
  await h.close();
});

async function assertLedgerAgrees(player: string) {
  const check = await h.admin.ledgerCheck();
  assert.equal(check.ok, true, JSON.stringify(check, null, 2));
  const row = check.accounts.find((a) => a.player_id === player)!;
  assert.equal(row.balance_minor, row.ledger_sum_minor);
  return row;
}

describe('concurrent callbacks of one player', () => {
  test('50 parallel debits never overdraw, and the ledger sums to the balance', async () => {
    // 1000 minor units, 50 debits of 70: at most 14 can succeed.
    const player = await newPlayer(h, 1000);
    const bodies = Array.from({ length: 50 }, () =>
      callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 70 }),
    );
    const results = await Promise.all(bodies.map((b) => send(h, b)));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 400);
    assert.equal(ok.length + refused.length, 50, results.map((r) => r.text).join('\n'));
    assert.equal(ok.length, 14);
    for (const r of refused) assert.equal(r.json.error, 'insufficient_funds');
    const balance = await balanceMinor(h, player);
    assert.equal(balance, 1000n - 14n * 70n);
    // Each success reports a distinct balance after it: the debits were serialised.
    const after = new Set(ok.map((r) => r.json.balance));
    assert.equal(after.size, 14);
    const row = await assertLedgerAgrees(player);
    assert.equal(row.debits_minor, String(14 * 70));
  });

  test('the same transaction_id sent 20 times in parallel is applied once; every answer is the same bytes', async () => {
    const player = await newPlayer(h, 1000);
    const body = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
    const results = await Promise.all(Array.from({ length: 20 }, () => send(h, body)));
    for (const r of results) {
      assert.equal(r.status, 200);
      assert.equal(r.text, results[0]!.text);
    }
    assert.equal(await balanceMinor(h, player), 900n);
    const { rows } = await h.db.pool.query<{ outcome: string; n: bigint }>(
      `SELECT outcome, count(*) AS n FROM wallet.requests WHERE transaction_id = $1 GROUP BY outcome ORDER BY outcome`,
      [body.transaction_id],
    );
    assert.deepEqual(rows, [
      { outcome: 'applied', n: 1n },
      { outcome: 'replayed', n: 19n },
    ]);
    await assertLedgerAgrees(player);
  });

  test('a mix of debits, credits, rollbacks and cancels in parallel keeps every invariant', async () => {
    const player = await newPlayer(h, 5000);
    const rounds = Array.from({ length: 10 }, () => `round_${randomUUID()}`);
    const debits = rounds.map((round_id) =>
      callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 300, round_id }),
    );
    const calls: Array<Record<string, unknown>> = [];
    for (const [i, d] of debits.entries()) {
      calls.push(d, d);
      if (i % 3 === 0) {
        calls.push(
          callbackBody({
            transaction_type: 'rollback',
            player_id: player,
            amount_minor: 300,
            round_id: String(d.round_id),
            original_transaction_id: String(d.transaction_id),
          }),
        );
      } else if (i % 3 === 1) {
        calls.push(
          callbackBody({
            transaction_type: 'cancel',
            player_id: player,
            amount_minor: 300,
            round_id: String(d.round_id),
          }),
        );
      } else {
        calls.push(
          callbackBody({
            transaction_type: 'credit',
            player_id: player,
            amount_minor: 450,
            round_id: String(d.round_id),
          }),
        );
      }
    }
    const results = await Promise.all(calls.map((b) => send(h, b)));
    for (const r of results) assert.ok(r.status === 200 || r.status === 400, r.text);
    const row = await assertLedgerAgrees(player);
    assert.equal(BigInt(row.balance_minor) >= 0n, true);
    // Whatever the interleaving, no debit was reversed twice and every reversal matches one debit.
    const { rows } = await h.db.pool.query<{ reversed: bigint; reversal_sum: bigint | null }>(
      `SELECT (SELECT count(*) FROM wallet.transactions WHERE player_id = $1 AND reversed_by IS NOT NULL) AS reversed,
              (SELECT sum(player_delta_minor)::bigint FROM wallet.transactions
               WHERE player_id = $1 AND transaction_type IN ('rollback', 'cancel') AND status = 'success') AS reversal_sum`,
      [player],
    );
    assert.equal(rows[0]!.reversal_sum ?? 0n, rows[0]!.reversed * 300n);
  });

  test('players do not block each other: parallel debits of many players all succeed', async () => {
    const players = await Promise.all(Array.from({ length: 20 }, () => newPlayer(h, 100)));
    const results = await Promise.all(
      players.flatMap((p) =>
        Array.from({ length: 3 }, () =>
          send(h, callbackBody({ transaction_type: 'debit', player_id: p, amount_minor: 10 })),
        ),
      ),
    );
    assert.ok(results.every((r) => r.status === 200));
    for (const p of players) assert.equal(await balanceMinor(h, p), 70n);
  });
});
