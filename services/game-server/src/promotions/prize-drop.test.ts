import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CATALOG } from '@opi/games';
import type { Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { WalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { recordHistory } from '@opi/workflows/histories';

/*
 * Issue 25: a prize drop's awards are decided in the statement that records the spin, at the
 * pool's row lock (never more awards than prizes, even under concurrent spins), and each is paid
 * by the round's workflow as a `promo_win` credit of type `prize_drop` on its payout record.
 * Real parts: the game server, PostgreSQL, Temporal and the sandbox wallet over HTTP.
 */
const slot = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const OPERATOR = 'op_drop';
let w: PlayWorld;
let h: Harness;
let admin: WalletAdminClient;
let key: string;

before(async () => {
  w = await startPlayWorld({ queue: 'prize-drop', operators: [{ id: OPERATOR, titles: [slot.symbol] }] });
  ({ h, admin, key } = w);
});
after(() => w.close());

/** A drop in the database as the admin API writes it (every qualifying spin draws a prize). */
async function defineDrop(dropId: string, prizes: number, minStake = 100, optedIn = true) {
  await h.db.pool.query(
    `WITH d AS (
       INSERT INTO prize_drops (drop_id, name, starts_at, ends_at) VALUES ($1, 'Drop', now() - interval '1 minute', now() + interval '1 hour')
     ), t AS (INSERT INTO prize_drop_titles VALUES ($1, $2))
     , o AS (INSERT INTO prize_drop_operators (drop_id, operator_id, opted_in) VALUES ($1, $3, $6))
     INSERT INTO prize_drop_pools (drop_id, currency, prize_minor, prizes_total, prizes_left, min_stake_minor, award_every_spins)
     VALUES ($1, 'EUR', 2500, $4, $4, $5, 1)`,
    [dropId, slot.symbol, OPERATOR, prizes, minStake, optedIn],
  );
}

async function player(id: string, balance = 100_000) {
  await admin.createPlayer({ operatorId: OPERATOR, playerId: id, currency: 'EUR', balanceMinor: balance });
  return (await w.launch(key, { symbol: slot.symbol, external_player_id: id })).token!;
}
const spin = (token: string, bet = 100) => w.runtime(token, 'POST', '/api/runtime/spin', { bet_minor: bet });

async function payouts(dropId: string) {
  const { rows } = await h.db.pool.query(
    `SELECT p.payout_id, p.external_player_id, p.amount_minor, p.status, t.status AS tx_status, t.request_body
       FROM promo_payouts p LEFT JOIN wallet_transactions t ON t.transaction_id = p.payout_id || ':credit'
      WHERE p.promo_type = 'prize_drop' AND p.promo_id = $1 ORDER BY p.external_player_id`,
    [dropId],
  );
  return rows;
}

test('concurrent qualifying spins: exactly the pool is awarded, each paid once as a promo_win credit', async () => {
  await defineDrop('drop-race', 3);
  const ids = Array.from({ length: 6 }, (_, i) => `drop-p${i}`);
  const tokens = await Promise.all(ids.map((id) => player(id)));
  const results = await Promise.all(tokens.map((t) => spin(t)));
  for (const r of results) assert.equal(r.status, 200, r.text);
  const awarded = results.filter((r) => r.json.prize_drop !== null);
  assert.equal(awarded.length, 3, 'never more awards than prizes');
  for (const r of awarded)
    assert.deepEqual(r.json.prize_drop, { drop_id: 'drop-race', amount_minor: '2500' });
  await until('the awards are paid', async () =>
    (await payouts('drop-race')).every((p) => p.status === 'paid'),
  );
  recordHistory({
    workflow: 'settleRound',
    path: 'prize-drop-award',
    workflowId: awarded[0]!.json.round_id,
    address: w.address,
  });
  const rows = await payouts('drop-race');
  assert.equal(rows.length, 3);
  for (const p of rows) {
    assert.equal(p.tx_status, 'success');
    const body = JSON.parse(p.request_body);
    assert.equal(body.transaction_type, 'credit');
    assert.equal(body.action_type, 'promo_win');
    assert.equal(body.promo_type, 'prize_drop');
    assert.equal(body.promo_id, 'drop-race');
    assert.equal(body.round_id, p.payout_id);
    assert.equal(body.amount_minor, 2500);
  }
  const { rows: pool } = await h.db.pool.query(
    `SELECT prizes_left FROM prize_drop_pools WHERE drop_id = 'drop-race'`,
  );
  assert.equal(pool[0].prizes_left, 0);
  // The wallet holds each winner's prize once (stake and win of the spin, plus 2500).
  for (const r of awarded) {
    const id = ids[results.indexOf(r)]!;
    const held = BigInt((await admin.balance(OPERATOR, id, 'EUR')).balance_minor);
    assert.equal(held, 100_000n - 100n + BigInt(r.json.win_minor) + 2500n);
  }
  // The pool is empty: the next qualifying spin wins nothing.
  const late = await spin(await player('drop-late'));
  assert.equal(late.json.prize_drop, null);
  await h.db.pool.query(
    `UPDATE prize_drops SET status = 'cancelled', cancelled_at = now() WHERE drop_id = 'drop-race'`,
  );
});

test('a stake below the minimum, an operator not opted in and a second prize for one player win nothing', async () => {
  await defineDrop('drop-rules', 10, 500);
  const token = await player('drop-rules-1');
  assert.equal((await spin(token, 100)).json.prize_drop, null, 'below the minimum stake');
  const first = await spin(token, 500);
  assert.deepEqual(first.json.prize_drop, { drop_id: 'drop-rules', amount_minor: '2500' });
  assert.equal((await spin(token, 500)).json.prize_drop, null, 'one prize per player per drop');
  await h.db.pool.query(
    `UPDATE prize_drops SET status = 'cancelled', cancelled_at = now() WHERE drop_id = 'drop-rules'`,
  );
  await defineDrop('drop-off', 10, 100, false);
  const other = await player('drop-rules-2');
  assert.equal((await spin(other, 500)).json.prize_drop, null, 'not opted in (and the other drop cancelled)');
});

test('an award to a round whose debit is refused is void: the prize goes back to the pool, nothing is sent', async () => {
  await defineDrop('drop-void', 1);
  const poor = await player('drop-poor', 10);
  const res = await spin(poor, 100);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.status, 'rejected');
  assert.deepEqual(await payouts('drop-void'), []);
  const { rows } = await h.db.pool.query(
    `SELECT prizes_left FROM prize_drop_pools WHERE drop_id = 'drop-void'`,
  );
  assert.equal(rows[0].prizes_left, 1, 'the prize is back');
  // The same player, funded now, can win it again: a new award with a new (random) payout id, paid once.
  await admin.deposit({
    operatorId: OPERATOR,
    playerId: 'drop-poor',
    currency: 'EUR',
    amountMinor: 10_000,
    reference: 'drop-poor-1',
  });
  const again = await spin(poor, 100);
  assert.equal(again.json.status, 'completed', again.text);
  assert.deepEqual(again.json.prize_drop, { drop_id: 'drop-void', amount_minor: '2500' });
  await until('the second award is paid', async () => (await payouts('drop-void'))[0]?.status === 'paid');
  // Issue 34: the ids are random, so the voided round's id is not the new award's (a late status
  // change of the voided round can never remove the new award), and only the new one exists.
  const paid = (await payouts('drop-void'))[0]!.payout_id;
  const { rows: named } = await h.db.pool.query(
    `SELECT r.status, r.prize_drop_payout_id = $1 AS current,
            EXISTS (SELECT 1 FROM promo_payouts p WHERE p.payout_id = r.prize_drop_payout_id) AS exists
       FROM rounds r JOIN players p ON p.player_id = r.player_id
      WHERE p.external_player_id = 'drop-poor' AND r.prize_drop_payout_id IS NOT NULL ORDER BY r.created_at`,
    [paid],
  );
  assert.deepEqual(
    named.map((r) => [r.status, r.current, r.exists]),
    [
      ['rejected', false, false],
      ['completed', true, true],
    ],
  );
  // The pool is empty now: nobody else wins.
  const rich = await spin(await player('drop-rich'));
  assert.equal(rich.json.prize_drop, null);
});
