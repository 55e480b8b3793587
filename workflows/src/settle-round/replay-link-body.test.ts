import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WalletCallbackRequest } from '@opi/contract';
import { replayLinkKey, verifyReplayLink } from '@opi/signing';
import { buildCallbackBody, journalEntry, replayLinksFor } from './activities.js';
import { type RoundIntent, transactionIdsFor } from './intent.js';

// Issue 26: the round's own credit carries its stable replay page (`round_details_url`), built
// from the round id and the configuration only, so that every build of the body is the same bytes.
const links = replayLinksFor('http://games.test/', 'replay-body-test-secret-0123456789');
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
};

test("the round's credit carries round_details_url, a details link the replay page accepts", () => {
  const body = JSON.parse(buildCallbackBody(intent, 'credit', '250', undefined, links));
  assert.ok(WalletCallbackRequest.safeParse(body).success);
  const url = new URL(body.round_details_url);
  assert.equal(url.origin, 'http://games.test', 'on the game origin (trailing slash of the base dropped)');
  assert.equal(url.pathname, '/replay/r_replay_1');
  assert.deepEqual([...url.searchParams.keys()], ['sig'], 'no expiry: the stable details link');
  const check = verifyReplayLink(
    replayLinkKey('replay-body-test-secret-0123456789'),
    decodeURIComponent(url.pathname.slice('/replay/'.length)),
    url.searchParams.get('sig'),
    url.searchParams.get('exp') ?? undefined,
  );
  assert.deepEqual(check, { ok: true, kind: 'details', roundId: 'r_replay_1', expiresAt: null });
  // Another secret's key refuses it.
  const other = verifyReplayLink(
    replayLinkKey('another-secret'),
    'r_replay_1',
    url.searchParams.get('sig'),
    undefined,
  );
  assert.deepEqual(other, { ok: false, reason: 'bad_signature' });
});

test('the same intent and configuration always give the same bytes (journalled once, resent unchanged)', () => {
  const a = journalEntry(intent, 'credit', '250', undefined, links);
  const b = journalEntry(
    structuredClone(intent),
    'credit',
    '250',
    undefined,
    replayLinksFor('http://games.test/', 'replay-body-test-secret-0123456789'),
  );
  assert.equal(a.body, b.body);
  assert.equal(a.requestHash, b.requestHash);
});

test("only the round's own credit: not debits, cancels, rollbacks, jackpot_win or free-round credits", () => {
  for (const op of ['debit', 'cancel', 'rollback'] as const) {
    const body = JSON.parse(buildCallbackBody(intent, op, '100', undefined, links));
    assert.equal(body.round_details_url, undefined, op);
  }
  const jackpotWin = JSON.parse(buildCallbackBody(intent, 'credit', '5000', 'mini', links));
  assert.equal(jackpotWin.action_type, 'jackpot_win');
  assert.equal(jackpotWin.round_details_url, undefined);
  const freeRound = JSON.parse(
    buildCallbackBody(
      { ...intent, freeRound: { campaignId: 'c_1', betMinor: '100' } } as RoundIntent,
      'credit',
      '250',
      undefined,
      links,
    ),
  );
  assert.equal(freeRound.action_type, 'free_round');
  assert.equal(freeRound.round_details_url, undefined);
  // Without replay links (a worker not given them) the body is as before.
  assert.equal(JSON.parse(buildCallbackBody(intent, 'credit', '250')).round_details_url, undefined);
});
