import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { buildCallbackBody, buildPromoCallbackBody, type RoundIntent, transactionIdsFor } from '@opi/wallet';
import {
  type CreditKind,
  createWalletCallbackVerifier,
  creditKind,
  isFreeRoundWin,
  isJackpotContribution,
  isJackpotWin,
  isPromoWin,
  type WalletCallbackRequest,
  walletSignature,
} from './index.js';

// Issue 25: the SDK tells a wallet's code what a callback pays. The bodies are the platform's own
// (buildCallbackBody, buildPromoCallbackBody: the bytes the settlement and payout workflows send),
// verified by the SDK's verifier, then told apart by the guards.

const SECRET = 'wsec_sdk_kinds_secret_0123456789abcdef';
const verifier = createWalletCallbackVerifier({ secret: SECRET });

async function verified(raw: string): Promise<WalletCallbackRequest> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  const op = (JSON.parse(raw) as { transaction_type: string }).transaction_type;
  const res = await verifier.verify({
    headers: {
      'x-pp-timestamp': timestamp,
      'x-pp-nonce': nonce,
      'x-pp-signature': walletSignature(SECRET, { timestamp, nonce, body: raw }),
    },
    rawBody: raw,
    operation: op,
  });
  assert.equal(res.ok, true, JSON.stringify(res));
  return (res as { body: WalletCallbackRequest }).body;
}

function intent(extra: Partial<RoundIntent> = {}): RoundIntent {
  const roundId = `r_${randomUUID()}`;
  return {
    roundId,
    operatorId: 'op_sdk_kinds',
    sessionId: 's_kinds',
    playerId: 'kinds-player',
    gameSymbol: 'vs20emberfox',
    providerId: 'prov_a',
    currency: 'EUR',
    actionType: 'spin',
    stakeMinor: '100',
    winMinor: '40',
    transactions: transactionIdsFor(roundId),
    ...extra,
  };
}

describe('telling callbacks apart', () => {
  test("a contributing spin's debit, its round's credit and its jackpot win", async () => {
    const i = intent({ jackpot: { jackpotId: 'mega', contributionMicros: '650000' } });
    const debit = await verified(buildCallbackBody(i, 'debit', '100'));
    assert.equal(isJackpotContribution(debit), true);
    if (isJackpotContribution(debit)) {
      // Narrowed: both fields are strings here.
      assert.equal(debit.jackpot_id, 'mega');
      assert.equal(BigInt(debit.jackpot_contribution_micros), 650000n);
    }
    assert.equal(creditKind(debit), null);
    assert.equal(isJackpotWin(debit), false);

    const credit = await verified(buildCallbackBody(i, 'credit', '40'));
    assert.equal(creditKind(credit), 'round_win');
    assert.equal(isJackpotContribution(credit), false);

    const win = await verified(buildCallbackBody(i, 'credit', '1000', 'mini'));
    assert.equal(isJackpotWin(win), true);
    assert.equal(creditKind(win), 'jackpot_win');
    if (isJackpotWin(win)) {
      assert.equal(win.jackpot_id, 'mega');
      assert.equal(win.jackpot_level, 'mini');
      assert.equal(win.transaction_id, `${i.roundId}:jackpot:mini`);
      assert.equal(win.round_id, i.roundId);
    }
    assert.equal(isPromoWin(win), false);
  });

  test('a tournament prize and a prize drop: promo_win with no debit; a free round; a plain spin', async () => {
    const payout = {
      payout_id: 'pp_t_spring_cup_0123456789abcdef0123456789abcdef',
      promo_type: 'tournament' as const,
      promo_id: 'spring_cup',
      operator_id: 'op_sdk_kinds',
      external_player_id: 'kinds-player',
      currency: 'EUR',
      amount_minor: '5000',
      rank: 2,
      session_id: 's_closed_long_ago',
      game_symbol: 'vs20emberfox',
      status: 'pending' as const,
    };
    const prize = await verified(buildPromoCallbackBody(payout));
    assert.equal(isPromoWin(prize), true);
    assert.equal(creditKind(prize), 'promo_win');
    if (isPromoWin(prize)) {
      assert.equal(prize.promo_type, 'tournament');
      assert.equal(prize.promo_id, 'spring_cup');
      assert.equal(prize.rank, 2);
      assert.equal(prize.round_id, payout.payout_id);
      assert.equal(prize.transaction_id, `${payout.payout_id}:credit`);
    }
    const drop = await verified(
      buildPromoCallbackBody({
        ...payout,
        payout_id: 'pp_d_friday_0123456789abcdef0123456789abcdef',
        promo_type: 'prize_drop',
        promo_id: 'friday',
        rank: null,
      }),
    );
    assert.equal(creditKind(drop), 'promo_win');
    assert.equal(drop.rank, undefined);

    const free = await verified(
      buildCallbackBody(
        intent({ stakeMinor: '0', freeRound: { campaignId: 'welcome', betMinor: '10', last: true } }),
        'credit',
        '30',
      ),
    );
    assert.equal(isFreeRoundWin(free), true);
    assert.equal(creditKind(free), 'free_round');

    const kinds: (CreditKind | null)[] = [];
    const plain = intent();
    for (const op of ['debit', 'credit', 'cancel', 'rollback'] as const)
      kinds.push(creditKind(await verified(buildCallbackBody(plain, op, '100'))));
    assert.deepEqual(kinds, [null, 'round_win', null, null]);
  });

  test('a body that only claims a kind (fields missing) is not narrowed', () => {
    const base = JSON.parse(buildCallbackBody(intent(), 'credit', '10')) as WalletCallbackRequest;
    assert.equal(isPromoWin({ ...base, action_type: 'promo_win' }), false, 'no promo_type/promo_id');
    assert.equal(isPromoWin({ ...base, action_type: 'promo_win', promo_type: 'tournament' }), false);
    assert.equal(isJackpotWin({ ...base, action_type: 'jackpot_win', jackpot_id: 'mega' }), false);
    assert.equal(
      isJackpotContribution({
        ...base,
        transaction_type: 'debit',
        jackpot_id: 'mega',
        jackpot_contribution_micros: '1.5',
      }),
      false,
    );
    assert.equal(creditKind({ ...base, action_type: 'promo_win' }), 'round_win');
  });
});
