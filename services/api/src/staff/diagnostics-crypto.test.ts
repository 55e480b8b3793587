import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { createStaffAccount, login, type StaffAccountLogin, staffCall } from './test-support/world.js';

// Issue 39 point 5: the wallet diagnostics (runWalletDiagnostics) in a crypto currency, against the
// sandbox wallet over real HTTP. The test amount is the operator's smallest bet, here 1 minor unit
// (1 satoshi, 1 gwei, 10^-6 USDT): every check passes, the wallet receives amount_minor 1 in
// every money callback and its record moves by exactly 1 unit each time, the
// details show the currency's own decimals (0.12345678 BTC), and the test money nets to zero.

const OP = 'op_diag_crypto';
let w: PlayWorld;
let staff: StaffAccountLogin;

before(async () => {
  w = await startPlayWorld({
    temporal: false,
    operators: [
      {
        id: OP,
        titles: ['vs20emberfox'],
        settings: {
          default_currency: 'BTC',
          allowed_currencies: ['BTC', 'ETH', 'UDT'],
          bet_limits: { min: '1', max: '5000000' },
        },
      },
    ],
  });
  staff = await createStaffAccount(w.h.base, {
    username: 'diag.crypto.admin',
    display_name: 'Diagnostics Admin',
    roles: [{ operator_id: OP, role: 'admin' }],
  });
});
after(async () => {
  await w?.close();
});

interface Check {
  id: string;
  status: string;
  detail: string;
  expected: string;
}

const CASES = [
  {
    currency: 'BTC',
    balance: 12_345_678,
    shown: '0.12345678 BTC',
    after: '0.12345677 BTC',
    unit: '0.00000001 BTC',
  },
  {
    currency: 'ETH',
    balance: 1_234_567_891,
    shown: '1.234567891 ETH',
    after: '1.234567890 ETH',
    unit: '0.000000001 ETH',
  },
  { currency: 'UDT', balance: 5_000_001, shown: '5.000001 UDT', after: '5.000000 UDT', unit: '0.000001 UDT' },
] as const;

describe('wallet diagnostics in a crypto currency (issue 39)', () => {
  for (const c of CASES) {
    test(`${c.currency}: every check passes with a test amount of 1 minor unit, exact in the wallet`, async () => {
      const player = await w.newPlayer(OP, {
        prefix: `diag-${c.currency.toLowerCase()}`,
        currency: c.currency,
        balanceMinor: c.balance,
      });
      const token = await login(w.h.base, staff);
      const res = await staffCall(w.h.base, token, 'POST', `/operators/${OP}/wallet-diagnostics`, {
        player_id: player,
        currency: c.currency,
      });
      assert.equal(res.status, 200, res.text);
      const checks = res.json.data.checks as Check[];
      assert.deepEqual(
        checks.map((x) => [x.id, x.status]),
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
      assert.equal(res.json.data.passed, true);
      const by = Object.fromEntries(checks.map((x) => [x.id, x]));
      // Amounts in the currency's own precision, never through a float.
      assert.equal(by.balance!.detail, `balance ${c.shown}`);
      assert.equal(by.debit!.detail, `balance ${c.shown} → ${c.after}`);
      assert.equal(by.debit!.expected, `HTTP 200, balance lowered by ${c.unit}`);
      // The wallet's own record: every money callback of 1 minor unit of the currency, as received
      // (the sandbox keeps each request's amount_minor) and as applied.
      const { rows } = await w.h.db.pool.query<{
        transaction_type: string;
        amount_minor: string;
        currency: string;
      }>(
        `SELECT transaction_type, amount_minor::text, trim(currency) AS currency
           FROM wallet.transactions WHERE operator_id = $1 AND player_id = $2 AND status = 'success'`,
        [OP, player],
      );
      assert.ok(rows.length >= 6, JSON.stringify(rows));
      for (const r of rows)
        assert.deepEqual([r.amount_minor, r.currency], ['1', c.currency], JSON.stringify(r));
      const { rows: sent } = await w.h.db.pool.query<{ amount_minor: string; currency: string }>(
        `SELECT amount_minor::text, currency FROM wallet.requests
          WHERE operator_id = $1 AND player_id = $2 AND transaction_type IN ('debit', 'credit', 'cancel', 'rollback') AND response_status = 200`,
        [OP, player],
      );
      assert.ok(sent.length >= 8, JSON.stringify(sent));
      for (const r of sent)
        assert.deepEqual([r.amount_minor, r.currency], ['1', c.currency], JSON.stringify(r));
      // The test money nets to zero.
      assert.equal((await w.admin.balance(OP, player, c.currency)).balance_minor, String(c.balance));
    });
  }
});
