import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { createStaffAccount, login, type StaffAccountLogin, staffCall } from './test-support/world.js';

// Issue 25: the wallet diagnostics' promotional credit check (`promo_win`), against the sandbox
// wallet over real HTTP: a promo_win credit with no open round and no debit, its repeat answered
// the same and credited once, the test money rolled back; a wallet that refuses it (the sandbox's
// refuseActionTypes fault) is a failed check that says why. The run is in the audit log.

const OP = 'op_diag_promo';
let w: PlayWorld;
let staff: StaffAccountLogin;

interface Check {
  id: string;
  name: string;
  expected: string;
  passed: boolean;
  status: string;
  detail: string;
  http_status: number | null;
}

before(async () => {
  w = await startPlayWorld({
    temporal: false,
    operators: [{ id: OP, titles: ['vs20emberfox'], settings: { allowed_currencies: ['EUR'] } }],
  });
  staff = await createStaffAccount(w.h.base, {
    username: 'diag.promo.admin',
    display_name: 'Diagnostics Admin',
    roles: [{ operator_id: OP, role: 'admin' }],
  });
});
after(async () => {
  await w?.close();
});

async function run(playerId: string) {
  const token = await login(w.h.base, staff);
  const res = await staffCall(w.h.base, token, 'POST', `/operators/${OP}/wallet-diagnostics`, {
    player_id: playerId,
    currency: 'EUR',
  });
  assert.equal(res.status, 200, res.text);
  const checks = res.json.data.checks as Check[];
  const promo = checks.find((c) => c.id === 'promo_win');
  assert.ok(promo, res.text);
  return { data: res.json.data, checks, promo, token };
}

/** The diagnostics' test amount: the operator's smallest bet. */
async function betMin(): Promise<string> {
  const { rows } = await w.h.db.pool.query<{ m: string }>(
    'SELECT bet_min_minor::text AS m FROM operators WHERE operator_id = $1',
    [OP],
  );
  return rows[0]!.m;
}

/** The sandbox's stored transactions of the player (the wallet's own record of what it took). */
async function walletRows(playerId: string) {
  const { rows } = await w.h.db.pool.query<{
    transaction_id: string;
    transaction_type: string;
    round_id: string;
    amount_minor: string;
    status: string;
    original_transaction_id: string | null;
  }>(
    `SELECT transaction_id, transaction_type, round_id, amount_minor::text, status, original_transaction_id
       FROM wallet.transactions WHERE operator_id = $1 AND player_id = $2 AND round_id LIKE 'diag_pp_%'
      ORDER BY created_at, transaction_id`,
    [OP, playerId],
  );
  return rows;
}

describe('wallet diagnostics: promo_win credit with no open round', () => {
  test('passes against the sandbox: credited once, the repeat answers the same, rolled back; journalled in the audit log', async () => {
    const player = await w.newPlayer(OP, { prefix: 'diag-promo', balanceMinor: 5_000 });
    const { data, checks, promo, token } = await run(player);
    assert.deepEqual(
      checks.map((c) => [c.id, c.status]),
      [
        ['signature', 'passed'],
        ['balance', 'passed'],
        ['debit', 'passed'],
        ['duplicate', 'passed'],
        ['credit', 'passed'],
        ['cancel', 'passed'],
        ['rollback', 'passed'],
        ['insufficient_funds', 'passed'],
        ['protection_refusal', 'not_configured'],
        ['promo_win', 'passed'],
      ],
      JSON.stringify(checks, null, 2),
    );
    assert.equal(data.passed, true);
    assert.equal(promo.name, 'Promotional credit (promo_win)');
    assert.equal(promo.http_status, 200);
    assert.match(
      promo.detail,
      /^a promo_win credit of .* in round diag_pp_[0-9a-f]{24} \(no debit, no open round\): balance 50\.00 EUR → .*; the repeat answered the original result, credited once \(rolled back again\)$/,
    );
    assert.equal(
      (await w.admin.balance(OP, player, 'EUR')).balance_minor,
      '5000',
      'the test money nets to zero',
    );

    // The wallet's own record: one credit (round = the payout id, no debit in it), its rollback.
    const rows = await walletRows(player);
    assert.equal(rows.length, 2, JSON.stringify(rows));
    const [credit, rollback] = rows as [(typeof rows)[0], (typeof rows)[0]];
    const payout = credit.round_id;
    assert.match(payout, /^diag_pp_[0-9a-f]{24}$/);
    assert.deepEqual(
      { ...credit, round_id: undefined },
      {
        transaction_id: `${payout}:credit`,
        transaction_type: 'credit',
        round_id: undefined,
        amount_minor: await betMin(),
        status: 'success',
        original_transaction_id: null,
      },
    );
    assert.equal(rollback.transaction_id, `${payout}:rollback`);
    assert.equal(rollback.transaction_type, 'rollback');
    assert.equal(rollback.original_transaction_id, `${payout}:credit`);
    // The credit was sent twice (the repeat answered from the wallet's idempotency record).
    const { rows: sent } = await w.h.db.pool.query<{ outcome: string }>(
      `SELECT outcome FROM wallet.requests WHERE operator_id = $1 AND transaction_id = $2 ORDER BY received_at`,
      [OP, `${payout}:credit`],
    );
    assert.deepEqual(
      sent.map((r) => r.outcome),
      ['applied', 'replayed'],
    );
    // Nothing of it in the platform's journal: diagnostics are not game rounds.
    const journal = await w.h.db.pool.query('SELECT 1 FROM wallet_transactions WHERE round_id = $1', [
      payout,
    ]);
    assert.equal(journal.rowCount, 0);

    // The run is in the audit log with the check.
    const audit = await staffCall(
      w.h.base,
      token,
      'GET',
      `/operators/${OP}/audit-log?action=wallet.diagnostics`,
    );
    assert.equal(audit.status, 200, audit.text);
    const entry = audit.json.data.items[0];
    assert.equal(entry.result, 'passed');
    const full = await staffCall(w.h.base, token, 'GET', `/operators/${OP}/audit-log/${entry.audit_id}`);
    const logged = (full.json.data.detail.checks as Check[]).find((c) => c.id === 'promo_win');
    assert.deepEqual(logged, promo);
  });

  test('a wallet that refuses a promo_win credit: the check fails and says why; the other checks pass; nothing moved', async () => {
    const player = await w.newPlayer(OP, { prefix: 'diag-promo-refused', balanceMinor: 5_000 });
    await w.admin.setFaults({ refuseActionTypes: ['promo_win'] });
    try {
      const { data, checks, promo, token } = await run(player);
      assert.equal(promo.status, 'failed');
      assert.equal(promo.passed, false);
      assert.equal(promo.http_status, 400);
      assert.match(
        promo.detail,
        /^a promo_win credit of .* in round diag_pp_[0-9a-f]{24} \(no debit, no open round\) was not accepted: HTTP 400, rejected with unsupported_action_type \(.*promo_win.*\)\. The wallet must take a credit whose round has no debit/,
      );
      assert.deepEqual(
        checks.filter((c) => c.status === 'failed').map((c) => c.id),
        ['promo_win'],
        'only the promotional credit fails',
      );
      assert.equal(data.passed, false);
      assert.equal((await w.admin.balance(OP, player, 'EUR')).balance_minor, '5000');
      assert.deepEqual(await walletRows(player), [], 'the wallet applied nothing');
      const audit = await staffCall(
        w.h.base,
        token,
        'GET',
        `/operators/${OP}/audit-log?action=wallet.diagnostics`,
      );
      assert.equal(audit.json.data.items[0].result, 'failed');
    } finally {
      await w.admin.setFaults({});
    }
  });

  test('not run when the balance cannot be read (the test player is unknown to the wallet)', async () => {
    const { promo, data } = await run('diag-promo-nobody');
    assert.equal(promo.status, 'failed');
    assert.equal(promo.detail, 'not run: the balance check failed');
    assert.equal(promo.http_status, null);
    assert.equal(data.passed, false);
  });
});
