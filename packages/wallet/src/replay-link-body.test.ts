import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WalletCallbackRequest } from '@opi/contract';
import { replayLinkKey, roundDetailsUrl, verifyReplayLink } from '@opi/signing';
import { type RoundIntent, transactionIdsFor } from './intent.js';
import { buildCallbackBody, journalEntry } from './journal.js';

// Issue 26: the round's own credit carries its stable replay page (`round_details_url`). The game
// server fixes it in the round's intent when it records the round, so every build of the body, in
// any worker process whatever its configuration, is the same bytes.
const SECRET = 'replay-body-test-secret-0123456789';
const intent: RoundIntent = {
  roundId: 'r_replay_1',
  operatorId: 'op_x',
  sessionId: 's_1',
  playerId: 'player-1',
  gameSymbol: 'vs20emberfox',
  providerId: 'prov_b',
  currency: 'EUR',
  actionType: 'spin',
  stakeMinor: '100',
  winMinor: '250',
  transactions: transactionIdsFor('r_replay_1'),
  jackpot: { jackpotId: 'jp_1', contributionMicros: '1000' },
  detailsUrl: roundDetailsUrl('http://games.test/', replayLinkKey(SECRET), 'r_replay_1'),
};

test("the round's credit carries round_details_url from its intent, a details link the replay page accepts", () => {
  const body = JSON.parse(buildCallbackBody(intent, 'credit', '250'));
  assert.ok(WalletCallbackRequest.safeParse(body).success);
  const url = new URL(body.round_details_url);
  assert.equal(url.origin, 'http://games.test', 'on the game origin (trailing slash of the base dropped)');
  assert.equal(url.pathname, '/replay/r_replay_1');
  assert.deepEqual([...url.searchParams.keys()], ['sig'], 'no expiry: the stable details link');
  const check = verifyReplayLink(
    replayLinkKey(SECRET),
    decodeURIComponent(url.pathname.slice('/replay/'.length)),
    url.searchParams.get('sig'),
    url.searchParams.get('exp') ?? undefined,
  );
  assert.deepEqual(check, { ok: true, kind: 'details', roundId: 'r_replay_1', expiresAt: null });
  const other = verifyReplayLink(
    replayLinkKey('another-secret'),
    'r_replay_1',
    url.searchParams.get('sig'),
    undefined,
  );
  assert.deepEqual(other, { ok: false, reason: 'bad_signature' });
});

test('the same intent always gives the same bytes (journalled once, resent unchanged by any process)', () => {
  const a = journalEntry(intent, 'credit', '250');
  const b = journalEntry(structuredClone(intent), 'credit', '250');
  assert.equal(a.body, b.body);
  assert.equal(a.requestHash, b.requestHash);
});

test("only the round's own credit: not debits, cancels, rollbacks, jackpot_win or free-round credits", () => {
  for (const op of ['debit', 'cancel', 'rollback'] as const) {
    const body = JSON.parse(buildCallbackBody(intent, op, '100'));
    assert.equal(body.round_details_url, undefined, op);
  }
  const jackpotWin = JSON.parse(buildCallbackBody(intent, 'credit', '5000', 'mini'));
  assert.equal(jackpotWin.action_type, 'jackpot_win');
  assert.equal(jackpotWin.round_details_url, undefined);
  const freeRound = JSON.parse(
    buildCallbackBody(
      { ...intent, freeRound: { campaignId: 'c_1', betMinor: '100' } } as RoundIntent,
      'credit',
      '250',
    ),
  );
  assert.equal(freeRound.action_type, 'free_round');
  assert.equal(freeRound.round_details_url, undefined);
  // A round recorded before issue 26 (no link in its intent): the body is as before.
  const { detailsUrl: _, ...older } = intent;
  assert.equal(JSON.parse(buildCallbackBody(older, 'credit', '250')).round_details_url, undefined);
});
