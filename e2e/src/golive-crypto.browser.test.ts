import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { cleanUpRuns, golive, stackEnv } from './golive-run.js';

// Issue 39: the go-live suite in a crypto currency (`npm run golive -- --ci --currency BTC`). The
// default stack's demo operator accepts BTC and UDT besides its fiat currencies, with the stack's
// demo EUR rates for their stake ladders (packages/db seedDemoRates); the suite launches every
// title in BTC, except where the service refuses BTC for that launch alone: GB takes no crypto
// currency (the GB rules are checked in GBP), a crash title takes its own currencies (dcrash2:
// USD, EUR, GBP). Every item must pass as in the fiat run, and the evidence must be in BTC.

after(cleanUpRuns);

test('the CI subset in BTC passes end to end, its evidence in BTC', async () => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(await stackEnv())) env[`GOLIVE_STACK_${k}`] = v;
  const run = await golive(env, ['--ci', '--currency', 'BTC']);
  assert.equal(run.code, 0, run.output);
  const s = run.summary;
  assert.equal(s.ok, true);
  assert.equal(s.target.started_default_stack, true);
  assert.equal(s.items.length, 24);
  for (const i of s.items) assert.notEqual(i.status, 'fail', `${i.id}: ${i.detail}`);
  for (const id of [
    'operator_active',
    'key_catalog_launch',
    'launch_opens',
    'round_settles',
    'wallet_callbacks',
    'audit_visible',
    'reconciliation_balanced',
    'jurisdiction_rules',
    'free_rounds',
    'player_protection',
    'wallet_cancel_rollback',
    'idempotency',
    'promo_win_credit',
    'history_panel',
  ])
    assert.equal(run.item(id).status, 'pass', `${id}: ${run.item(id).detail}`);
  assert.match(run.item('operator_active').detail, /currencies .*BTC/);
  // Launched, shown and audited in BTC (8 decimals). A per-run item lists its first three runs:
  // at least one of them is the slot's or the native title's (dcrash2 has two runs).
  assert.match(run.item('launch_opens').detail, /(slot|native) page 200, balance "BTC 0\.\d{8}"/);
  assert.match(run.item('history_panel').detail, /Stake BTC 0\.\d{8}Win BTC \d+\.\d{8}/);
  for (const r of s.runs) assert.equal(r.status, 'passed', `${r.game} on ${r.device}`);
  assert.equal(s.runs.length, 6);
  // Rounds audited and reconciled in BTC, in satoshis.
  assert.match(
    run.item('audit_visible').detail,
    /round r_\S+ completed: bet \d+, win \d+ BTC; debit \d+ success/,
  );
  assert.match(run.item('reconciliation_balanced').detail, /BTC: \d+ rounds, .* difference 0, pending 0/);
  // GB refuses crypto: the refusal is the evidence, the GB rules checked in a fiat currency; the
  // crash title that takes no BTC says so too (its own currencies).
  assert.match(
    run.item('jurisdiction_rules').detail,
    /\S+ in BTC refused \(422 body\.currency: crypto currencies are not accepted under GB jurisdiction.*?\): launched in GBP; the stake cap \d+ GBP/,
  );
  assert.match(
    run.item('jurisdiction_rules').detail,
    /dcrash2 in BTC refused \(422 body\.currency: this crash title supports USD, EUR, GBP only\): launched in USD/,
  );
  assert.match(run.item('jurisdiction_rules').detail, /cnmines: .*429 cycle_too_soon/);
  // Free rounds of a BTC campaign at a stake of the session's ladder; the wallet diagnostics in BTC.
  assert.match(run.item('free_rounds').detail, /vs20emberfox on desktop: campaign golive-.*2 free rounds/);
  assert.match(
    run.item('promo_win_credit').detail,
    /player op_demo-diagnostics, BTC\): a promo_win credit of 0\.\d{8} BTC/,
  );
});
