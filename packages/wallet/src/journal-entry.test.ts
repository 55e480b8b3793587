import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type RoundIntent, transactionIdsFor } from './intent.js';
import { buildCallbackBody, journalEntry } from './journal.js';

// journalEntry remembers the entries it built (issue 27: a spin's process built the debit's three
// times). Its key must hold every input of the body: changing any field of an intent that changes
// the body must change the entry. A field added to the body but not to the key fails here.
const full: RoundIntent = {
  roundId: 'r_entry_1',
  operatorId: 'op_x',
  sessionId: 's_1',
  playerId: 'player-1',
  gameSymbol: 'vs20emberfox',
  providerId: 'prov_a',
  currency: 'EUR',
  actionType: 'spin',
  stakeMinor: '100',
  winMinor: '250',
  transactions: transactionIdsFor('r_entry_1'),
  trace: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, requestId: 'req-1' },
  journalAhead: true,
  oneStep: true,
  detailsUrl: 'http://games.test/replay/r_entry_1?sig=abc',
  freeRound: { campaignId: 'c-1', betMinor: '100', last: false },
  jackpot: { jackpotId: 'jp_1', contributionMicros: '1000', wins: [{ level: 'mini', amountMinor: '500' }] },
  prizeDrop: { dropId: 'd-1', payoutId: 'pp_d_1', amountMinor: '300' },
};

/** Every intent that differs from `base` in one leaf value (strings change, booleans flip). */
function variants(base: unknown, path: string[] = []): { path: string; intent: RoundIntent }[] {
  const out: { path: string; intent: RoundIntent }[] = [];
  const at = (v: unknown, p: string[]) => {
    if (typeof v === 'string' || typeof v === 'boolean') {
      const copy = structuredClone(base) as Record<string, unknown>;
      let o = copy;
      for (const k of p.slice(0, -1)) o = o[k] as Record<string, unknown>;
      const last = p[p.length - 1]!;
      o[last] =
        last === 'currency' ? 'USD' : typeof v === 'string' ? (/^\d+$/.test(v) ? `${v}1` : `${v}x`) : !v;
      out.push({ path: p.join('.'), intent: copy as unknown as RoundIntent });
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) at(child, [...p, k]);
    }
  };
  at(base, path);
  return out;
}

test('a remembered journal entry is always the body buildCallbackBody makes now, whatever field changed', () => {
  const cases: [Parameters<typeof journalEntry>[1], string, string?][] = [
    ['debit', '100'],
    ['credit', '250'],
    ['credit', '500', 'mini'],
    ['rollback', '100'],
    ['cancel', '100'],
  ];
  for (const [op, amount, level] of cases) {
    for (const base of [full, { ...full, freeRound: undefined, jackpot: undefined }]) {
      // Remember the base intent's entry first, then ask for each variant.
      const first = journalEntry(base, op, amount, level);
      assert.equal(first.body, buildCallbackBody(base, op, amount, level));
      assert.equal(journalEntry(structuredClone(base), op, amount, level), first, 'remembered');
      for (const v of variants(base)) {
        const entry = journalEntry(v.intent, op, amount, level);
        assert.equal(entry.body, buildCallbackBody(v.intent, op, amount, level), `${op} ${v.path}`);
      }
    }
  }
});
