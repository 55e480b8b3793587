import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createWalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { type RunningStack, startDefaultStack } from './default-stack.js';
import { cleanUpRuns, golive, stackEnv } from './golive-run.js';
import { DEFAULT_STACK_GAMES } from './settings.js';

// The go-live suite itself, as `npm test` runs it: once with no configuration (it starts the
// default stack and must pass: the CI subset, one game per family on desktop and phone-portrait),
// then against a stack of ours broken two ways, where it must fail with a clear report: the
// wallet secret is wrong; an expected game has no release acceptance.
//
// Under the test runner each stack uses the run's PostgreSQL (a database cloned from the migrated
// template) and Temporal server (a task queue of its own) instead of embedded ones (golive-run.ts).

after(cleanUpRuns);

test('with no configuration the suite starts the default stack, and the CI subset passes', async () => {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(await stackEnv())) env[`GOLIVE_STACK_${k}`] = v;
  const run = await golive(env, ['--ci']);
  assert.equal(run.code, 0, run.output);
  const s = run.summary;
  assert.equal(s.ok, true);
  assert.equal(s.target.started_default_stack, true);
  assert.deepEqual(s.target.devices, ['desktop', 'phone-portrait']);
  // One line per go-live item, and none failed.
  assert.equal(s.items.length, 24);
  for (const i of s.items) assert.notEqual(i.status, 'fail', `${i.id}: ${i.detail}`);
  for (const id of [
    'health',
    'operator_active',
    'catalog_expected',
    'key_catalog_launch',
    'launch_opens',
    'page_clean',
    'round_settles',
    'callback_signature',
    'wallet_callbacks',
    'close_return',
    'balance_refresh',
    'audit_visible',
    'reconciliation_balanced',
    'jurisdiction_rules',
    'free_rounds',
    'player_protection',
    'wallet_cancel_rollback',
    'idempotency',
    'promo_win_credit',
    'replay_link',
    'history_panel',
  ])
    assert.equal(run.item(id).status, 'pass', `${id}: ${run.item(id).detail}`);
  // Played on the slot title; the native and crash titles are reported not applicable.
  assert.match(run.item('free_rounds').detail, /vs20emberfox on desktop: campaign golive-.*2 free rounds/);
  assert.match(run.item('free_rounds').detail, /not applicable: .*cnmines.*prov_c/);
  assert.match(
    run.item('player_protection').detail,
    /self_excluded: round .* rejected with one failed debit/,
  );
  // Through the wallet diagnostics with the stack's demo staff account (issue 25).
  assert.match(
    run.item('promo_win_credit').detail,
    /^wallet diagnostics of op_demo \(audit \d+, player op_demo-diagnostics, [A-Z]{3}\): a promo_win credit of .* \(no debit, no open round\): .* credited once \(rolled back again\)$/,
  );
  // Cancel, rollback and a repeated transaction_id, from the same diagnostics run (issue 26).
  assert.match(
    run.item('wallet_cancel_rollback').detail,
    /^wallet diagnostics of op_demo \(audit \d+, .*\): cancel: wager returned, balance .*; rollback: debit reversed, balance .*$/,
  );
  assert.match(
    run.item('idempotency').detail,
    /^wallet diagnostics of op_demo \(audit \d+, .*\): the original result \(balance .*\) came back; the money moved once$/,
  );
  assert.equal(run.item('https_base').status, 'warning', 'HTTP on loopback is a warning');
  for (const id of ['feature_acceptance', 'prov_b_rollout'])
    assert.equal(run.item(id).status, 'not_checkable');
  assert.match(run.item('catalog_expected').detail, /exactly the 9 expected games/);
  assert.match(
    run.item('balance_refresh').detail,
    /subscribers_notified 1; the page read its balance again .*; a refresh sent during round r_.* was read after the spin's balance, and the page ended on \d+ minor/,
  );
  // A screenshot per game per device, and the HTML report.
  assert.equal(s.runs.length, 6);
  for (const r of s.runs) {
    assert.equal(r.status, 'passed', `${r.game} on ${r.device}`);
    assert.equal(r.screenshots.length, 1);
    assert.ok(existsSync(path.join(run.outputDir, r.screenshots[0]!)), r.screenshots[0]);
  }
  assert.ok(existsSync(path.join(run.outputDir, 'html', 'index.html')));
  // The summary is one line per item and per run.
  const text = readFileSync(path.join(run.outputDir, 'summary.json'), 'utf8');
  assert.equal(text.split('\n').filter((l) => l.startsWith('    {"id":')).length, 24);
  // Issue 26: the replay link and the history panel on every game and device run; GB cycles and caps.
  assert.match(run.item('replay_link').detail, /^passed on 6 game\/device runs: /);
  assert.match(run.item('history_panel').detail, /^passed on 6 game\/device runs: /);
  assert.match(run.item('jurisdiction_rules').detail, /stake_above_cap|lower bet limit/);
  assert.match(run.item('jurisdiction_rules').detail, /cnmines: .*429 cycle_too_soon/);
  assert.match(run.item('jurisdiction_rules').detail, /dcrash2: .*429 cycle_too_soon/);
});

describe('the suite fails with a clear report', () => {
  let stack: RunningStack;
  let settings: Record<string, string>;

  before(async () => {
    stack = await startDefaultStack({ env: await stackEnv() });
    settings = {
      GOLIVE_BASE_URL: stack.baseUrl,
      GOLIVE_API_KEY: stack.apiKey,
      GOLIVE_GAMES: DEFAULT_STACK_GAMES,
    };
  });
  after(() => stack?.stop());

  test("when the stack's wallet secret is wrong", async () => {
    const wallet = createWalletAdminClient({
      baseUrl: stack.walletUrl,
      token: stack.secrets.walletAdminToken,
    });
    await wallet.setSecret('op_demo', `wsec_${randomUUID().replaceAll('-', '')}`);
    try {
      // Free rounds and protection are checked by the passing run; skipped here to keep the file
      // within the test runner's time limit.
      const run = await golive({ ...settings, GOLIVE_PLAY: 'vs20emberfox,cnmines,dcrash2' }, [
        '--project',
        'desktop',
        '--grep-invert',
        'free rounds and player protection',
      ]);
      assert.notEqual(run.code, 0);
      assert.equal(run.summary.ok, false);
      // The API side is fine: the failure is named where it is.
      for (const id of ['health', 'operator_active', 'catalog_expected', 'key_catalog_launch'])
        assert.equal(run.item(id).status, 'pass', `${id}: ${run.item(id).detail}`);
      const signature = run.item('callback_signature');
      assert.equal(signature.status, 'fail');
      for (const game of ['vs20emberfox', 'cnmines', 'dcrash2'])
        assert.match(
          signature.detail,
          new RegExp(
            `${game} on desktop: the page's balance read answered .*The operator wallet is unavailable.*wallet secret`,
          ),
        );
      assert.equal(run.item('wallet_callbacks').status, 'fail');
      assert.match(
        run.item('launch_opens').detail,
        /balance read answered 502 "The operator wallet is unavailable"/,
      );
      assert.equal(run.item('round_settles').status, 'fail');
      assert.match(run.item('round_settles').detail, /not reached: stopped at launch_opens/);
      assert.deepEqual(
        run.summary.runs.map((r) => r.status),
        ['failed', 'failed', 'failed'],
      );
      // Each failed run has its screenshot.
      for (const r of run.summary.runs) assert.equal(r.screenshots.length, 1, `${r.game}`);
      assert.match(run.output, /callback_signature/);
      // No staff account given: the callbacks only the platform can sign cannot be checked, and say why.
      for (const id of ['promo_win_credit', 'wallet_cancel_rollback', 'idempotency']) {
        assert.equal(run.item(id).status, 'not_checkable', id);
        assert.match(run.item(id).detail, /^no staff account \(GOLIVE_STAFF_USERNAME/, id);
      }
    } finally {
      await wallet.setSecret('op_demo', stack.secrets.demoWalletSecret);
    }
  });

  test('when an expected game lacks release acceptance', async () => {
    const admin = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${stack.baseUrl}/api/admin/v1${p}`, {
        method,
        headers: { 'x-provider-api-key': stack.secrets.providerAdminKey, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as any;
    };
    const game = (await admin('GET', '/games')).data.items.find((g: any) => g.symbol === 'vs25tidalpearl');
    const accepted = game.release_readiness;
    await admin('PUT', '/release-registry/vs25tidalpearl', {
      status: 'blocked',
      registry_version: game.installed_version,
      detail: 'go-live self-test: acceptance withdrawn',
      reasons: ['bet level acceptance pending'],
    });
    // And the sandbox wallet refuses promo_win credits (issue 25): with the stack's demo staff
    // account the suite runs the wallet diagnostics, whose promo_win check fails, naming why.
    const wallet = createWalletAdminClient({
      baseUrl: stack.walletUrl,
      token: stack.secrets.walletAdminToken,
    });
    await wallet.setFaults({ refuseActionTypes: ['promo_win'] });
    try {
      const staff = {
        GOLIVE_STAFF_USERNAME: 'demo',
        GOLIVE_STAFF_PASSWORD: stack.secrets.demoStaffPassword ?? '',
      };
      const run = await golive({ ...settings, ...staff, GOLIVE_PLAY: 'vs25tidalpearl,vs20emberfox' }, [
        '--project',
        'desktop',
        '--grep-invert',
        'free rounds and player protection',
      ]);
      assert.notEqual(run.code, 0);
      assert.equal(run.summary.ok, false);
      const catalog = run.item('catalog_expected');
      assert.equal(catalog.status, 'fail');
      assert.match(
        catalog.detail,
        /vs25tidalpearl is not in the operator catalog \(a launch answers 403 Game not enabled: its installed version has no accepted release\)/,
      );
      const key = run.item('key_catalog_launch');
      assert.equal(key.status, 'fail');
      assert.match(
        key.detail,
        /vs25tidalpearl on desktop: launch of vs25tidalpearl refused: 403 .*no accepted release/,
      );
      // The other game is unaffected.
      const runs = Object.fromEntries(run.summary.runs.map((r) => [r.game, r.status]));
      assert.deepEqual(runs, { vs25tidalpearl: 'failed', vs20emberfox: 'passed' });
      assert.equal(run.item('health').status, 'pass');
      assert.equal(run.item('reconciliation_balanced').status, 'pass');
      // The refusal of promo_win fails that item only: cancel, rollback and the repeat pass.
      assert.equal(run.item('wallet_cancel_rollback').status, 'pass');
      assert.equal(run.item('idempotency').status, 'pass');
      const promo = run.item('promo_win_credit');
      assert.equal(promo.status, 'fail');
      assert.match(
        promo.detail,
        /^wallet diagnostics of op_demo \(audit \d+, .*\): the promo_win check failed \(HTTP 400\): a promo_win credit .* was not accepted: HTTP 400, rejected with unsupported_action_type/,
      );
    } finally {
      await wallet.setFaults({});
      await admin('PUT', '/release-registry/vs25tidalpearl', {
        status: accepted.status,
        registry_version: accepted.registry_version,
        detail: accepted.detail,
        reasons: accepted.reasons,
        evidence: accepted.evidence,
        deployment_identity: accepted.deployment_identity,
      });
    }
  });
});
