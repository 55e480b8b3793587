import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FamilyId } from '@opi/wallet/intent';
import { OPERATOR_ID, type SettlementEnv, startSettlementEnv } from '../test-support/settlement-env.js';
import { settle } from './start.js';
import type { SettlementTuning } from './workflow.js';

// Player protection from the operator's wallet: real Temporal, real PostgreSQL, the sandbox wallet
// over HTTP refusing the player's debits with a code (PUT /admin/protection). A 400 from a debit
// is a definite rejection: never retried, never compensated, the round rejected.
const FAST: Partial<SettlementTuning> = {
  initialRetryMs: 50,
  maxRetryMs: 400,
  debitAttemptsBeforeRollback: 3,
};

let env: SettlementEnv;
before(async () => {
  env = await startSettlementEnv();
  await env.startWorker();
});
after(() => env.close());

async function walletRequests(roundId: string) {
  const { rows } = await env.pool.query<{ operation: string; response_status: number; error_code: string }>(
    `SELECT transaction_type AS operation, response_status, error_code FROM wallet.requests
     WHERE round_id = $1 ORDER BY request_seq`,
    [roundId],
  );
  return rows;
}

async function sessionBlock(sessionId: string) {
  const { rows } = await env.pool.query(
    `SELECT bets_blocked_code, bets_blocked_round_id, bets_blocked_at IS NOT NULL AS has_at
     FROM sessions WHERE session_id = $1`,
    [sessionId],
  );
  return rows[0];
}

const CASES: Array<{ code: string; blocks: boolean }> = [
  { code: 'limit_reached', blocks: false },
  { code: 'self_excluded', blocks: true },
  { code: 'session_time_limit', blocks: true },
  { code: 'player_blocked', blocks: true },
  { code: 'rg_cool_off', blocks: true }, // a code the service does not know
];

describe('a debit refused with a player-protection code', () => {
  for (const family of ['prov_a', 'prov_c'] as FamilyId[]) {
    for (const { code, blocks } of CASES) {
      test(`${family} ${code}: one debit, no retry, no rollback/cancel/credit; round rejected; session ${blocks ? 'blocked' : 'not blocked'}`, async () => {
        const p = await env.newPlayer({ family, balanceMinor: 10_000 });
        await env.wallet.admin.setProtection({
          operatorId: OPERATOR_ID,
          playerId: p.externalId,
          refuseDebitsWith: code,
        });
        const intent = await env.newRound(p, {
          stakeMinor: 200,
          winMinor: family === 'prov_c' ? null : 500,
          ...(family === 'prov_c' ? { multiStep: { abandonAfterSeconds: 2, rule: 'cashout' } } : {}),
        });
        const outcome = await settle(env.client, env.taskQueue, intent, FAST);
        assert.deepEqual(outcome, { status: 'rejected', error: code });

        // The wallet saw exactly one request for the round: the debit, refused.
        assert.deepEqual(await walletRequests(intent.roundId), [
          { operation: 'debit', response_status: 400, error_code: code },
        ]);
        const { rows: journal } = await env.pool.query(
          `SELECT transaction_type, status, attempts, error_code, http_status FROM wallet_transactions WHERE round_id = $1`,
          [intent.roundId],
        );
        assert.deepEqual(journal, [
          { transaction_type: 'debit', status: 'failed', attempts: 1, error_code: code, http_status: 400 },
        ]);
        const { rows: round } = await env.pool.query(
          'SELECT status, stuck, win_minor FROM rounds WHERE round_id = $1',
          [intent.roundId],
        );
        assert.deepEqual(round[0], { status: 'rejected', stuck: false, win_minor: 0n });
        assert.equal(
          (await env.wallet.admin.balance(OPERATOR_ID, p.externalId, p.currency)).balance_minor,
          '10000',
        );
        assert.deepEqual(
          await sessionBlock(p.sessionId),
          blocks
            ? { bets_blocked_code: code, bets_blocked_round_id: intent.roundId, has_at: true }
            : { bets_blocked_code: null, bets_blocked_round_id: null, has_at: false },
        );
        // Nothing is sent later either (no timer-driven credit of an abandoned multi-step round).
        if (family === 'prov_c') {
          await new Promise((r) => setTimeout(r, 2_500));
          assert.equal((await walletRequests(intent.roundId)).length, 1);
        }
      });
    }
  }

  test('insufficient_funds rejects the round and does not block the session', async () => {
    const p = await env.newPlayer({ family: 'prov_b', balanceMinor: 100 });
    const intent = await env.newRound(p, { stakeMinor: 500, winMinor: 0 });
    assert.deepEqual(await settle(env.client, env.taskQueue, intent, FAST), {
      status: 'rejected',
      error: 'insufficient_funds',
    });
    assert.equal((await sessionBlock(p.sessionId)).bets_blocked_code, null);
  });

  test('limit_reached for one debit: the next round of the session is debited and settled', async () => {
    const p = await env.newPlayer({ family: 'prov_b', balanceMinor: 1_000 });
    await env.wallet.admin.setProtection({
      operatorId: OPERATOR_ID,
      playerId: p.externalId,
      refuseDebitsWith: 'limit_reached',
      times: 1,
    });
    const first = await env.newRound(p, { stakeMinor: 100, winMinor: 0 });
    assert.equal((await settle(env.client, env.taskQueue, first, FAST)).status, 'rejected');
    const second = await env.newRound(p, { stakeMinor: 100, winMinor: 300 });
    assert.equal((await settle(env.client, env.taskQueue, second, FAST)).status, 'completed');
    assert.equal(
      (await env.wallet.admin.balance(OPERATOR_ID, p.externalId, p.currency)).balance_minor,
      '1200',
    );
  });

  test('a refusal after uncertain attempts: the same debit resent until the 400, then nothing more', async () => {
    const p = await env.newPlayer({ family: 'prov_b', balanceMinor: 1_000 });
    await env.wallet.admin.setProtection({
      operatorId: OPERATOR_ID,
      playerId: p.externalId,
      refuseDebitsWith: 'self_excluded',
    });
    const intent = await env.newRound(p, { stakeMinor: 100, winMinor: 100 });
    const before5xx = (await env.wallet.admin.getFaults()).counters.error5xx;
    await env.wallet.admin.setFaults({ error5xxRate: 1 });
    try {
      const running = settle(env.client, env.taskQueue, intent, FAST);
      const deadline = Date.now() + 20_000;
      while ((await env.wallet.admin.getFaults()).counters.error5xx < before5xx + 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      await env.wallet.admin.setFaults({});
      assert.deepEqual(await running, { status: 'rejected', error: 'self_excluded' });
    } finally {
      await env.wallet.admin.setFaults({});
    }
    // Injected 5xx answers are not handled (not in wallet.requests); the one handled is the refusal.
    assert.deepEqual(await walletRequests(intent.roundId), [
      { operation: 'debit', response_status: 400, error_code: 'self_excluded' },
    ]);
    const { rows } = await env.pool.query(
      `SELECT count(DISTINCT request_hash)::int AS bodies, max(attempts) AS attempts FROM wallet_transactions WHERE round_id = $1`,
      [intent.roundId],
    );
    assert.equal(rows[0].bodies, 1);
    assert.ok(rows[0].attempts >= 3, `attempts ${rows[0].attempts}`);
    assert.equal((await sessionBlock(p.sessionId)).bets_blocked_code, 'self_excluded');
  });
});
