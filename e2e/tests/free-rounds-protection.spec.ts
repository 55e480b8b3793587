/**
 * Free rounds and player protection (issue 18), per played game on a desktop page:
 *
 * - free_rounds: a small campaign for the test player through the operator API (signed like every
 *   call of the suite), a launch that shows it, the page playing every free round (bet 0, the last
 *   marked last), each settled by one credit of its win and no debit (audit API), the campaign's
 *   counts, then a paid spin taken again.
 * - player_protection: the sandbox wallet refuses the test player's debits (self_excluded); the
 *   page's spin is rejected, the page shows the message and takes no bet (a further spin is 409),
 *   the round has one failed debit and nothing after it; cleared, a relaunch takes bets again.
 *
 * Only slot titles (prov_a/prov_b) take free rounds; native and crash titles are reported not
 * applicable. Protection needs the sandbox wallet's staff API (GOLIVE_WALLET_ADMIN_URL): against
 * an operator's own wallet it is not checkable.
 */

import { createWalletAdminClient } from '@opi/wallet-sandbox/admin-client';
import { expect, type Page, test } from '@playwright/test';
import { describeApiError, type OperatorClient, operatorClient } from '../src/operator.js';
import { hook, pageSays, press, until } from '../src/play/common.js';
import { slotDriver } from '../src/play/slot.js';
import { CheckFailed, Recorder } from '../src/record.js';
import { loadSettings, playerId, target } from '../src/settings.js';

const settings = loadSettings();
const SLOT_PROVIDERS = new Set(['prov_a', 'prov_b']);
const FREE_ROUNDS = 2;

interface SpinAnswer {
  status?: string;
  round_id?: string;
  bet_minor?: string;
  win_minor?: string;
  error?: string;
  error_message?: string;
  bets_blocked?: { code: string; message: string } | null;
  free_round?: { campaign_id: string; bet_minor: string; last: boolean; rounds_remaining: number } | null;
  free_round_last?: boolean;
}

/** Presses the spin button and answers the page's own spin request's answer. */
async function spinOnPage(page: Page, timeoutMs: number): Promise<{ status: number; body: SpinAnswer }> {
  const answer = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/runtime/spin' && r.request().method() === 'POST',
    { timeout: timeoutMs },
  );
  await press(page, 'spin-button', false);
  const res = await answer;
  return { status: res.status(), body: (await res.json().catch(() => ({}))) as SpinAnswer };
}

/** The launch URL's runtime, called with its token as the page calls it. */
function runtimeOf(launchUrl: string) {
  const url = new URL(launchUrl);
  const token = url.searchParams.get('mgckey') ?? '';
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(new URL(path, url.origin), {
      method,
      headers: { 'x-session-token': token, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: res.status,
      json: (await res.json().catch(() => null)) as Record<string, unknown> | null,
    };
  };
}

type Round = Awaited<ReturnType<OperatorClient['getRound']>>['data'];

/** The round once the audit API shows it settled with no pending transaction. */
async function settledRound(api: OperatorClient, roundId: string, timeoutMs: number): Promise<Round> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const round = (await api.getRound(roundId)).data;
    const settled = ['completed', 'rejected', 'cancelled', 'rolled_back'].includes(round.status);
    if (settled && !round.transactions.some((t) => t.status === 'pending')) return round;
    if (Date.now() > deadline)
      throw new Error(`round ${roundId} is still ${round.status} after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

const txList = (r: Round) =>
  r.transactions.map((t) => `${t.transaction_type} ${t.status}`).join(', ') || 'none';

for (const game of settings.play) {
  test(`${game.symbol}: free rounds and player protection`, async ({ page }, info) => {
    const rec: Recorder = new Recorder(info, { game: game.symbol, device: 'desktop' });
    const { baseUrl, apiKey } = target(settings);
    const api = operatorClient(baseUrl, apiKey);
    const roundMs = settings.roundTimeoutMs;
    const stepMs = 20_000;
    rec.expect('free_rounds', 'player_protection');
    try {
      const listed = (await api.listGames()).data.items.find(
        (i) => i.symbol === game.symbol || i.slug === game.symbol,
      );
      if (!listed) {
        const why = `${game.symbol} is not in the operator catalog (see catalog_expected)`;
        rec.notCheckable('free_rounds', why);
        rec.notCheckable('player_protection', why);
        return;
      }
      if (!SLOT_PROVIDERS.has(listed.provider_id)) {
        const family =
          listed.provider_id === 'prov_c'
            ? 'native'
            : listed.provider_id === 'prov_d'
              ? 'crash'
              : listed.provider_id;
        rec.notCheckable(
          'free_rounds',
          `not applicable: free rounds are for prov_a/prov_b slot titles (${listed.provider_id}, ${family}: the stake is chosen per bet)`,
        );
        rec.notCheckable(
          'player_protection',
          `not applicable here: the suite checks the protection refusal on the slot titles (${listed.provider_id}, ${family})`,
        );
        return;
      }
      const operatorId = (await api.getContract()).data.operator_id;
      const currency = game.currency ?? settings.currency;
      const launch = (player: string) =>
        api
          .createLaunchUrl({
            symbol: listed.symbol,
            external_player_id: player,
            return_url: settings.returnUrl,
            device: 'desktop',
            ...(currency ? { currency } : {}),
            ...(settings.lang ? { lang: settings.lang } : {}),
          })
          .catch((err: unknown) => {
            throw new Error(`launch of ${listed.symbol} refused: ${describeApiError(err)}`);
          });

      // ── free rounds ──────────────────────────────────────────────────────────────────────────
      await rec.check('free_rounds', `free rounds on ${listed.symbol}`, async () => {
        const player = playerId(settings, operatorId, 'freerounds', listed.symbol);
        const first = await launch(player);
        const session = await runtimeOf(first.launch_url)('GET', '/api/runtime/session');
        const stakes = (session.json?.stakes_minor as string[] | undefined) ?? [];
        if (session.status !== 200 || !stakes.length)
          throw new Error(`the session read answered ${session.status} with no stakes`);
        const stake = stakes.map((s) => BigInt(s)).reduce((a, b) => (b < a ? b : a));
        const campaignId = `golive-${settings.runId}-${listed.symbol}`.slice(0, 64);
        const now = Date.now();
        await api
          .createCampaign({
            campaign_id: campaignId,
            symbols: [listed.symbol],
            currency: first.currency,
            bet_minor: stake.toString(),
            rounds: FREE_ROUNDS,
            valid_from: new Date(now - 10 * 60_000).toISOString(),
            expires_at: new Date(now + 60 * 60_000).toISOString(),
            players: [player],
          })
          .catch((err: unknown) => {
            throw new Error(`the campaign could not be created: ${describeApiError(err)}`);
          });
        const launched = await launch(player);
        const fr = launched.free_rounds;
        if (fr?.campaign_id !== campaignId || fr.rounds_remaining !== FREE_ROUNDS)
          throw new Error(
            `the launch reports free_rounds ${JSON.stringify(fr ?? null)}, not ${FREE_ROUNDS} of ${campaignId}`,
          );

        await page.goto('about:blank');
        await page.evaluate((u) => {
          window.location.href = u;
        }, launched.launch_url);
        await page.waitForLoadState('load', { timeout: stepMs });
        await slotDriver.ready(page, stepMs);
        await expect(hook(page, 'free-rounds')).toBeVisible({ timeout: stepMs });
        const shown = ((await hook(page, 'free-rounds-count').textContent()) ?? '').trim();
        if (!shown.startsWith(String(FREE_ROUNDS)))
          throw new Error(`the page shows "${shown}" free rounds, not ${FREE_ROUNDS}`);

        const played: { roundId: string; win: bigint; last: boolean }[] = [];
        for (let i = 1; i <= FREE_ROUNDS; i++) {
          const { status, body } = await spinOnPage(page, roundMs);
          if (status !== 200 || !body.round_id)
            throw new Error(`free spin ${i} answered ${status} ${JSON.stringify(body).slice(0, 200)}`);
          if (body.bet_minor !== '0')
            throw new Error(`free spin ${i} was played for ${body.bet_minor}, not 0`);
          if (body.free_round?.campaign_id !== campaignId)
            throw new Error(`free spin ${i} answered free_round ${JSON.stringify(body.free_round ?? null)}`);
          const last = body.free_round_last === true && body.free_round.last === true;
          if (last !== (i === FREE_ROUNDS))
            throw new Error(`free spin ${i} of ${FREE_ROUNDS} is ${last ? '' : 'not '}marked last`);
          played.push({ roundId: body.round_id, win: BigInt(body.win_minor ?? '0'), last });
          await slotDriver.ready(page, roundMs);
        }
        await expect(hook(page, 'free-rounds')).toBeHidden({ timeout: stepMs });

        // Each free round: one credit of its win, no debit (nor cancel or rollback).
        for (const p of played) {
          const round = await settledRound(api, p.roundId, roundMs);
          const ok = round.transactions.filter((t) => t.status === 'success');
          if (
            round.status !== 'completed' ||
            BigInt(round.bet_minor) !== 0n ||
            round.transactions.some((t) => t.transaction_type !== 'credit') ||
            ok.length !== 1 ||
            BigInt(ok[0]!.amount_minor) !== p.win
          )
            throw new Error(
              `free round ${p.roundId}: ${round.status}, bet ${round.bet_minor}, transactions ${txList(round)} (expected one credit of ${p.win} and no debit)`,
            );
        }
        const won = played.reduce((a, p) => a + p.win, 0n);
        const campaign = (await api.getCampaign(campaignId)).data;
        const grant = campaign.players.find((g) => g.external_player_id === player);
        if (
          !grant ||
          grant.rounds_used !== FREE_ROUNDS ||
          grant.rounds_remaining !== 0 ||
          BigInt(grant.won_minor) !== won
        )
          throw new Error(
            `the campaign shows ${JSON.stringify(grant ?? null)}; ${FREE_ROUNDS} rounds were played for ${won}`,
          );

        // Paid play resumes: the next spin takes a stake.
        const paid = await slotDriver.play(page, false, roundMs);
        if (paid.betMinor <= 0n)
          throw new Error(`the spin after the free rounds took no stake (${paid.betMinor})`);
        const paidRound = await settledRound(api, paid.roundId, roundMs);
        if (!paidRound.transactions.some((t) => t.transaction_type === 'debit' && t.status === 'success'))
          throw new Error(`the paid round ${paid.roundId} has no debit (${txList(paidRound)})`);
        return {
          value: undefined,
          detail: `campaign ${campaignId}: ${FREE_ROUNDS} free rounds at ${stake} shown and played (the last marked last), each settled by one credit (${played.map((p) => p.win).join(', ')}) and no debit, won_minor ${won}; then a paid spin of ${paid.betMinor} was debited (round ${paid.roundId})`,
        };
      });

      // ── player protection ────────────────────────────────────────────────────────────────────
      if (!settings.walletAdmin) {
        rec.notCheckable(
          'player_protection',
          "the wallet under test is the operator's own (no sandbox staff API, GOLIVE_WALLET_ADMIN_URL unset): the suite cannot make it refuse a chosen player; confirm the refusal with the operator's protection test account (the portal's wallet diagnostics: protection refusal)",
        );
        return;
      }
      const wallet = createWalletAdminClient(settings.walletAdmin);
      const player = playerId(settings, operatorId, 'protection', listed.symbol);
      await rec.check('player_protection', `a protection refusal on ${listed.symbol}`, async () => {
        const launched = await launch(player);
        await wallet.setProtection({ operatorId, playerId: player, refuseDebitsWith: 'self_excluded' });
        try {
          await page.goto('about:blank');
          await page.evaluate((u) => {
            window.location.href = u;
          }, launched.launch_url);
          await page.waitForLoadState('load', { timeout: stepMs });
          await slotDriver.ready(page, stepMs);
          const { status, body } = await spinOnPage(page, roundMs);
          if (!body.round_id || (body.status !== 'rejected' && body.status !== 'pending'))
            throw new Error(
              `the spin answered ${status} ${JSON.stringify(body).slice(0, 200)}, not a rejected round`,
            );
          const round = await settledRound(api, body.round_id, roundMs);
          const debits = round.transactions.filter((t) => t.transaction_type === 'debit');
          // Nothing sent after the refused debit: a credit written ahead with the round (issue 36
          // point 6, credit ahead) is closed unsent (failed, not_sent_debit_rejected) and listed.
          const sentAfterDebit = (r: typeof round) =>
            r.transactions.filter(
              (t) =>
                t.transaction_type !== 'debit' &&
                !(t.status === 'failed' && /^not_sent_/.test(t.error_code ?? '')),
            );
          const sentAfter = sentAfterDebit(round);
          if (
            round.status !== 'rejected' ||
            round.rejection_code !== 'self_excluded' ||
            sentAfter.length !== 0 ||
            debits.length !== 1 ||
            debits[0]!.status !== 'failed' ||
            debits[0]!.error_code !== 'self_excluded'
          )
            throw new Error(
              `round ${body.round_id}: ${round.status} (${round.rejection_code ?? '-'}), transactions ${txList(round)}; expected rejected self_excluded with one failed debit and nothing sent after it`,
            );
          // A round still pending when the spin answered: a reload reads the block.
          if (body.status === 'pending') {
            await page.reload();
            await page.waitForLoadState('load', { timeout: stepMs });
          }
          await until(
            page,
            'the page to block bets',
            async () =>
              (await hook(page, 'game').first().getAttribute('data-bets-blocked')) === 'self_excluded' &&
              (await hook(page, 'game').first().getAttribute('data-state')) === 'blocked',
            stepMs,
          );
          const says = await pageSays(page);
          const message = body.bets_blocked?.message ?? body.error_message ?? 'excluded yourself';
          if (!says.includes(message))
            throw new Error(`the page says ${says || 'nothing'}, not "${message}"`);
          if (!(await hook(page, 'spin-button').isDisabled()))
            throw new Error('the spin button is enabled while bets are blocked');
          const again = await runtimeOf(launched.launch_url)('POST', '/api/runtime/spin', {
            bet_minor: body.bet_minor && body.bet_minor !== '0' ? body.bet_minor : String(round.bet_minor),
          });
          if (again.status !== 409 || again.json?.error !== 'self_excluded')
            throw new Error(
              `a further spin answered ${again.status} ${JSON.stringify(again.json).slice(0, 200)}, not 409 self_excluded`,
            );
          const after = await settledRound(api, body.round_id, 1_000);
          if (after.transactions.length !== round.transactions.length || sentAfterDebit(after).length !== 0)
            throw new Error(
              `the rejected round has ${txList(after)}: the refused debit was followed by more`,
            );
          return {
            value: undefined,
            detail: `self_excluded: round ${body.round_id} rejected with one failed debit and nothing after it; the page showed "${message}" with bets disabled; a further spin answered 409`,
          };
        } finally {
          await wallet
            .setProtection({ operatorId, playerId: player, refuseDebitsWith: null })
            .catch(() => {});
        }
      });
      // Cleared: a relaunch takes bets again.
      await rec.check('player_protection', 'cleared, a relaunch takes bets again', async () => {
        const relaunched = await launch(player);
        await page.evaluate((u) => {
          window.location.href = u;
        }, relaunched.launch_url);
        await page.waitForLoadState('load', { timeout: stepMs });
        await slotDriver.ready(page, stepMs);
        const r = await slotDriver.play(page, false, roundMs);
        return {
          value: undefined,
          detail: `the refusal cleared, a relaunch took a spin of ${r.betMinor} again (round ${r.roundId})`,
        };
      });
    } catch (err) {
      rec.unreached(err);
      throw err instanceof CheckFailed ? new Error(err.message) : err;
    }
  });
}
