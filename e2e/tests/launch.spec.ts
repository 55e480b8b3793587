/**
 * Per game and device project: launch through the operator API, open the launch URL unchanged,
 * check the page renders with the balance, play a round to its settlement, (prov_a) signal a
 * balance refresh to the open page, read the round and its transactions through the audit API,
 * and close back to the return URL. A screenshot of the settled round is attached per game and
 * device.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { expect, type Page, type Request, test } from '@playwright/test';
import { auditRound } from '../src/audit.js';
import { describeApiError, launchInRunCurrency, operatorClient } from '../src/operator.js';
import { PageWatch } from '../src/page-watch.js';
import { type Driver, hook, pageSays, press, Stop, shownBalance, until } from '../src/play/common.js';
import { crashDriver } from '../src/play/crash.js';
import { nativeDriver } from '../src/play/native.js';
import { slotDriver } from '../src/play/slot.js';
import { CheckFailed, Recorder, SCREENSHOT } from '../src/record.js';
import { isLoopback, loadSettings, playerId, target } from '../src/settings.js';

const settings = loadSettings();

/** The page family from the launch URL's path (the catalog's launch_path). */
function familyOf(url: URL): { name: string; driver: Driver } | undefined {
  if (url.pathname.startsWith('/gs2c/')) return { name: 'slot', driver: slotDriver };
  if (url.pathname.startsWith('/native/')) return { name: 'native', driver: nativeDriver };
  if (url.pathname.startsWith('/games/')) return { name: 'crash', driver: crashDriver };
  return undefined;
}

const DEVICE_HINT: Record<string, 'desktop' | 'mobile' | 'tablet'> = {
  desktop: 'desktop',
  'phone-portrait': 'mobile',
  'phone-landscape': 'mobile',
  tablet: 'tablet',
};

/**
 * Opens the launch URL in the page's top window exactly as the service returned it, the way an
 * operator's page hands it over, without the URL (a bearer secret) becoming a step title of the
 * report. Answers the document's response.
 */
async function openUnchanged(page: Page, launchUrl: string, timeoutMs: number) {
  const doc = page.waitForResponse(
    (r) => r.request().isNavigationRequest() && r.frame() === page.mainFrame(),
    {
      timeout: timeoutMs,
    },
  );
  await page.evaluate((u) => {
    window.location.href = u;
  }, launchUrl);
  const res = await doc;
  await page.waitForLoadState('load', { timeout: timeoutMs });
  return res;
}

for (const game of settings.play) {
  test(game.symbol, async ({ page, hasTouch }, info) => {
    const device = info.project.name;
    const rec: Recorder = new Recorder(info, { game: game.symbol, device });
    const { baseUrl, apiKey } = target(settings);
    const api = operatorClient(baseUrl, apiKey);
    const stepMs = 20_000;
    const roundMs = settings.roundTimeoutMs;
    const lobby = new URL(settings.returnUrl);
    const isLobby = (u: URL) => u.origin === lobby.origin && u.pathname === lobby.pathname;
    rec.expect(
      'key_catalog_launch',
      'https_base',
      'launch_opens',
      'round_settles',
      'callback_signature',
      'wallet_callbacks',
      'audit_visible',
      'replay_link',
      'history_panel',
      'page_clean',
      'close_return',
    );
    let watch: PageWatch | undefined;
    let shot = false;
    const screenshot = async (name: string) => {
      // One file per game and device under <output>/screenshots (named in the JSON summary), and
      // the same image in the HTML report.
      const rel = path.join('screenshots', `${game.symbol}-${device}-${name.replace(/\W+/g, '-')}.png`);
      const body = await page.screenshot({ path: path.join(settings.outputDir, rel) });
      await info.attach(`${game.symbol} on ${device}: ${name}`, { body, contentType: 'image/png' });
      info.annotations.push({ type: SCREENSHOT, description: rel });
      shot = true;
    };

    try {
      // ── launch through the operator API ──────────────────────────────────────────────────
      const operatorId = (await api.getContract().catch(() => undefined))?.data.operator_id ?? 'qa';
      const player = playerId(settings, operatorId, device, game.symbol);
      const currency = game.currency ?? settings.currency;
      const launch = await rec.check('key_catalog_launch', 'launch through the operator API', async () => {
        // A title that does not take the run's currency (a crash title's own list) is launched in
        // one it takes, and the detail says so (launchInRunCurrency).
        const { launched: l, note } = await launchInRunCurrency(
          api,
          {
            symbol: game.symbol,
            external_player_id: player,
            return_url: settings.returnUrl,
            device: DEVICE_HINT[device] ?? 'desktop',
            ...(currency ? { currency } : {}),
            ...(settings.lang ? { lang: settings.lang } : {}),
          },
          !game.currency,
        ).catch((err: unknown) => {
          throw new Error(`launch of ${game.symbol} refused: ${describeApiError(err)}`);
        });
        return { value: l, detail: `${note}launch 200 (${l.session_id}, ${l.currency}, player ${player})` };
      });
      const url = new URL(launch.launch_url);
      if (url.protocol === 'https:') rec.pass('https_base', `launch URL origin ${url.origin}`);
      else if (isLoopback(url.hostname))
        rec.warn('https_base', `launch URL origin ${url.origin} is HTTP (loopback: a test environment)`);
      else rec.record('https_base', 'fail', `launch URL origin ${url.origin} is not HTTPS`);
      const family = familyOf(url);
      if (!family)
        rec.fail('launch_opens', `the launch URL's path ${url.pathname} is of no known game family`);
      const offersRefresh = launch.operator_integration?.balance_refresh ?? family.name === 'slot';
      if (offersRefresh) rec.expect('balance_refresh');
      else
        rec.notCheckable(
          'balance_refresh',
          `not offered for this title (balance refresh is supported for prov_a only; ${family.name} page)`,
        );

      // ── open it unchanged; the page renders and shows the balance ─────────────────────────
      await page.context().route(
        (u) => isLobby(u),
        (route) =>
          route.fulfill({
            status: 200,
            contentType: 'text/html',
            body: '<!doctype html><title>Lobby</title><p data-testid="lobby">Operator lobby (go-live QA)</p>',
          }),
      );
      watch = new PageWatch(page, isLobby);
      const w = watch;
      const before = await rec.check(
        'launch_opens',
        'open the launch URL; the page shows the balance',
        async () => {
          const res = await openUnchanged(page, launch.launch_url, stepMs);
          if (res.request().url() !== launch.launch_url)
            throw new Error('the browser requested another URL than the launch URL');
          if (res.status() !== 200)
            throw new Error(`the launch URL answered ${res.status()}: ${await pageSays(page)}`);
          const balance = await until(
            page,
            'the balance to show',
            async () => {
              const failed = w.failedBalanceReads();
              if (failed.length)
                throw new Stop(`the page's balance read answered ${failed[0]} (${await pageSays(page)})`);
              if (await hook(page, 'game-error').first().isVisible()) {
                // The page may show the refusal before the watcher has read the answer's reason:
                // give it a moment, so that the report names the balance read when that was the cause.
                const settle = Date.now() + 2000;
                while (!w.failedBalanceReads().length && Date.now() < settle)
                  await new Promise((r) => setTimeout(r, 100));
                const late = w.failedBalanceReads();
                if (late.length)
                  throw new Stop(`the page's balance read answered ${late[0]} (${await pageSays(page)})`);
                throw new Stop(await pageSays(page));
              }
              return shownBalance(page);
            },
            stepMs,
          ).catch(async (err: unknown) => {
            await screenshot('not ready').catch(() => {});
            throw err;
          });
          await family.driver.ready(page, stepMs);
          const text = ((await hook(page, 'game-balance').textContent()) ?? '').trim();
          return {
            value: balance,
            detail: `${family.name} page 200, balance "${text}" (${balance} minor)`,
          };
        },
      );
      rec.pass('wallet_callbacks', `balance read answered 200 (${w.balanceReads.length} reads)`);

      // ── one round, played and settled on the page ────────────────────────────────────────
      const played = await rec.check('round_settles', 'play a round to its settlement', async () => {
        const t0 = Date.now();
        const r = await family.driver.play(page, hasTouch, roundMs);
        const expected = before - r.betMinor + r.winMinor;
        await until(
          page,
          `the settled balance ${expected} (before ${before} - bet ${r.betMinor} + win ${r.winMinor})`,
          async () => (await shownBalance(page)) === expected,
          roundMs,
        );
        await screenshot('round settled');
        return {
          value: r,
          detail: `${r.summary}: bet ${r.betMinor}, win ${r.winMinor}, balance ${before} -> ${expected} (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
        };
      });

      // ── balance refresh reaches the open page (prov_a) ───────────────────────────────────
      if (offersRefresh) {
        await rec.check('balance_refresh', 'balance refresh reaches the open page', async () => {
          await until(
            page,
            "the page's refresh subscription",
            async () => (await hook(page, 'game').first().getAttribute('data-events')) === 'ready',
            stepMs,
          );
          const reads = page.waitForRequest(
            (r) => new URL(r.url()).pathname === '/api/runtime/balance' && r.method() === 'GET',
            { timeout: stepMs },
          );
          const requestId = `golive-${randomUUID()}`;
          const res = await api.refreshPlayerBalance({
            external_player_id: player,
            session_id: launch.session_id,
            request_id: requestId,
            reason: 'go-live QA check',
          });
          if (res.subscribers_notified < 1)
            throw new Error(
              `subscribers_notified ${res.subscribers_notified} (sessions_found ${res.sessions_found}): no open page was known to hear the signal`,
            );
          await reads.catch(() => {
            throw new Error('the page did not read its balance again after the signal');
          });
          const after = await until(page, 'the balance after the refresh', () => shownBalance(page), stepMs);
          // A refresh during a spin: the page shows the spin's balance, then reads the wallet
          // again (docs/game-pages.md, "The balance shown"), and ends on the settled balance.
          const startAt = await until(
            page,
            'the balance before the second round',
            () => shownBalance(page),
            stepMs,
          );
          const spinAnswered = page.waitForResponse(
            (r) => new URL(r.url()).pathname === '/api/runtime/spin' && r.request().method() === 'POST',
            { timeout: roundMs },
          );
          const spinSent = page.waitForRequest(
            (r) => new URL(r.url()).pathname === '/api/runtime/spin' && r.method() === 'POST',
            { timeout: stepMs },
          );
          const readsAfterSpin: number[] = [];
          let spinAnsweredAt = Number.POSITIVE_INFINITY;
          void spinAnswered.then(
            () => {
              spinAnsweredAt = Date.now();
            },
            () => {},
          );
          const noteRead = (r: Request) => {
            if (new URL(r.url()).pathname === '/api/runtime/balance' && Date.now() >= spinAnsweredAt)
              readsAfterSpin.push(Date.now());
          };
          page.on('request', noteRead);
          try {
            const playing = family.driver.play(page, hasTouch, roundMs);
            await spinSent;
            const during = await api.refreshPlayerBalance({
              external_player_id: player,
              session_id: launch.session_id,
              request_id: `${requestId}-spin`,
              reason: 'go-live QA check during a spin',
            });
            if (during.subscribers_notified < 1)
              throw new Error(`during a spin: subscribers_notified ${during.subscribers_notified}`);
            const r = await playing;
            const expected = startAt - r.betMinor + r.winMinor;
            await until(
              page,
              `a balance read after the spin's answer (the refresh sent during the spin)`,
              async () => readsAfterSpin.length > 0,
              stepMs,
            );
            await until(
              page,
              `the settled balance ${expected} after the refresh sent during the spin`,
              async () => (await shownBalance(page)) === expected,
              stepMs,
            );
            return {
              value: undefined,
              detail: `sessions_found ${res.sessions_found}, subscribers_notified ${res.subscribers_notified}; the page read its balance again (${after} minor); a refresh sent during round ${r.roundId} was read after the spin's balance, and the page ended on ${expected} minor`,
            };
          } finally {
            page.off('request', noteRead);
          }
        });
      }

      // ── the operator's audit view of the round ───────────────────────────────────────────
      const audited = await rec.check(
        'audit_visible',
        'the round and its transactions in the audit API',
        async () => {
          const a = await auditRound(
            api,
            played,
            { sessionId: launch.session_id, currency: launch.currency },
            roundMs,
          );
          return { value: a, detail: a.detail };
        },
      );
      rec.pass(
        'wallet_callbacks',
        `balance reads 200; ${audited.types.join(' and ')} successful (${audited.transactionIds.join(', ')})`,
      );
      rec.pass(
        'callback_signature',
        `the operator wallet accepted the signed balance, debit and credit callbacks of round ${played.roundId}`,
      );

      // ── the player's own history on the page (issue 26) ──────────────────────────────────
      await rec.check('history_panel', "the page's history panel lists the round", async () => {
        await expect(hook(page, 'history-button')).toBeVisible({ timeout: stepMs });
        await press(page, 'history-button', hasTouch);
        await expect(hook(page, 'history-panel')).toBeVisible({ timeout: stepMs });
        const item = page.locator(`[data-testid="history-item"][data-round-id="${played.roundId}"]`);
        await expect(item).toBeVisible({ timeout: stepMs });
        const href = (await item.locator('[data-testid="history-replay"]').getAttribute('href')) ?? '';
        // A time-limited share link of the round's replay page (issue 34: key id, issue time, expiry, signature).
        const link = href ? new URL(href, page.url()) : undefined;
        if (
          !link ||
          link.pathname !== `/replay/${encodeURIComponent(played.roundId)}` ||
          !link.searchParams.get('sig') ||
          !link.searchParams.get('exp')
        )
          throw new Error(`the round's history entry links to ${href || 'nothing'}, not its replay page`);
        const text = ((await item.textContent()) ?? '').replace(/\s+/g, ' ').trim();
        await press(page, 'history-close', hasTouch);
        await expect(hook(page, 'history-panel')).toBeHidden({ timeout: stepMs });
        return {
          value: undefined,
          detail: `round ${played.roundId} listed ("${text.slice(0, 120)}"), linking to its replay`,
        };
      });

      // ── the round's replay page, from the operator's links (issue 26) ───────────────────
      await rec.check('replay_link', "the round's replay link renders", async () => {
        const round = (await api.getRound(played.roundId)).data as { round_details_url?: string | null };
        const links: [string, string][] = [];
        if (!round.round_details_url) throw new Error('the audit API gives the round no round_details_url');
        links.push(['round_details_url', round.round_details_url]);
        const share = await api.createReplayUrl(played.roundId).catch((err: unknown) => {
          throw new Error(`POST replay-url refused: ${describeApiError(err)}`);
        });
        links.push(['share link', share.data.url]);
        const view = await page.context().newPage();
        try {
          const seen: string[] = [];
          for (const [name, link] of links) {
            const res = await view.goto(link, { timeout: stepMs });
            if (res?.status() !== 200) throw new Error(`the ${name} answered ${res?.status() ?? 'nothing'}`);
            const main = view.getByTestId('replay');
            await expect(main).toHaveAttribute('data-round-id', played.roundId, { timeout: stepMs });
            await expect(main).toHaveAttribute('data-status', 'completed', { timeout: stepMs });
            const stake = await view.getByTestId('replay-stake').getAttribute('data-minor');
            const win = await view.getByTestId('replay-win').getAttribute('data-minor');
            if (stake !== String(played.betMinor) || win !== String(played.winMinor))
              throw new Error(
                `the ${name} shows stake ${stake} and return ${win}; the round was bet ${played.betMinor}, win ${played.winMinor}`,
              );
            const family = await main.getAttribute('data-family');
            const views = [
              'replay-slot',
              'replay-stages',
              'replay-crash',
              'replay-mines',
              'replay-dice',
              'replay-hilo',
            ];
            let shown = '';
            for (const v of views) if (!shown && (await view.getByTestId(v).count()) > 0) shown = v;
            if (!shown) throw new Error(`the ${name} shows no reels, stages or curve (family ${family})`);
            seen.push(`${name} ${shown}`);
          }
          return {
            value: undefined,
            detail: `round ${played.roundId} completed, stake ${played.betMinor}, return ${played.winMinor}: ${seen.join(', ')} (share link until ${share.data.expires_at})`,
          };
        } finally {
          await view.close();
        }
      });

      // ── no console error, no failed request ──────────────────────────────────────────────
      w.stop();
      if (w.problems.length) rec.fail('page_clean', w.problems.slice(0, 5).join('; '));
      rec.pass(
        'page_clean',
        `no console error, no failed request${w.apiRefusals.length ? ` (API refusals seen: ${w.apiRefusals.join('; ')})` : ''}`,
      );

      // ── close returns to the return URL ──────────────────────────────────────────────────
      await rec.check('close_return', 'close returns to the return URL', async () => {
        await expect(hook(page, 'close-button')).toBeVisible({ timeout: stepMs });
        await press(page, 'close-button', hasTouch);
        await page.waitForURL((u) => u.href === lobby.href, { timeout: stepMs });
        await expect(page.getByTestId('lobby')).toBeVisible({ timeout: stepMs });
        return { value: undefined, detail: `the top window went to ${lobby.href}` };
      });
    } catch (err) {
      if (watch) {
        const failed = watch.failedBalanceReads();
        if (failed.length) {
          const why = `the page's balance read answered ${failed[0]}: the service got no balance from the operator wallet`;
          rec.record('callback_signature', 'fail', `${why} (check the wallet secret and the wallet URL)`);
          rec.record('wallet_callbacks', 'fail', `balance callback failed: ${why}`);
        }
      }
      if (!shot) await screenshot('failure').catch(() => {});
      rec.unreached(err);
      throw err instanceof CheckFailed ? new Error(err.message) : err;
    }
  });
}
